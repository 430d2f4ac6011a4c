"""One running bot program: line I/O over its pipes, its log, and killing its whole tree."""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

from . import isolation
from .errors import BotGone, LineTooLong, ReadTimeout, SandboxUnavailable, WriteTimeout
from .limits import Limits
from .resolve import BOT_MOUNT

logger = logging.getLogger(__name__)

READ_CHUNK = 64 * 1024
DEFAULT_LIMITS = Limits()
DEFAULT_SEND_TIMEOUT_S = 10.0


class _StderrTail:
    """Drain a pipe on a daemon thread, keeping only its last ``cap`` bytes."""

    def __init__(self, pipe, cap: int) -> None:
        self._fd = pipe.fileno()
        self._pipe = pipe
        self._cap = cap
        self._data = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="bot-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, READ_CHUNK)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._data += chunk
                if len(self._data) > self._cap:
                    del self._data[: len(self._data) - self._cap]

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", errors="replace")

    def close(self, timeout_s: float = 2.0) -> None:
        self._thread.join(timeout_s)
        if not self._thread.is_alive():
            self._pipe.close()


class BotProcess:
    """A running bot: send it bytes, read its lines, read its log, kill it.

    Not thread-safe for concurrent ``send``/``readline`` (one referee loop
    drives a bot); ``kill`` may be called from any thread, and more than once.
    """

    def __init__(
        self,
        popen: subprocess.Popen,
        *,
        limits: Limits,
        staging: isolation.Staging,
        info_fd: int | None,
    ) -> None:
        self._popen = popen
        self._staging = staging
        self._sandboxed = info_fd is not None
        self._info_fd = info_fd
        self._init_pid: int | None = None
        self._pid_namespace: str | None = None
        self._stdin = popen.stdin.fileno()
        self._stdout = popen.stdout.fileno()
        os.set_blocking(self._stdin, False)
        os.set_blocking(self._stdout, False)
        self._readable = select.poll()
        self._readable.register(self._stdout, select.POLLIN)
        self._writable = select.poll()
        self._writable.register(self._stdin, select.POLLOUT)
        self._buffer = bytearray()
        self._scanned = 0
        self._stderr = _StderrTail(popen.stderr, limits.stderr_bytes)
        self._kill_lock = threading.Lock()
        self._killed = False

    @property
    def pid(self) -> int:
        """Host pid of the process we started (``bwrap`` when sandboxed)."""
        return self._popen.pid

    @property
    def sandboxed(self) -> bool:
        return self._sandboxed

    def send(self, data: bytes, timeout_s: float = DEFAULT_SEND_TIMEOUT_S) -> None:
        """Write ``data`` to the bot's stdin.

        Raises ``BotGone`` if the bot closed its input or was killed, and
        ``WriteTimeout`` (a ``ReadTimeout``) if it stopped reading for ``timeout_s``.
        """
        if self._killed:
            raise BotGone("bot was killed")
        view = memoryview(data)
        deadline = None
        while view:
            try:
                view = view[os.write(self._stdin, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError as error:  # EPIPE: nobody reads the bot's stdin any more
                raise BotGone(f"bot closed its input ({error.strerror})") from None
            deadline = deadline or time.monotonic() + timeout_s
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WriteTimeout(f"bot did not read its input within {timeout_s} s")
            self._writable.poll(math.ceil(remaining * 1000))

    def readline(self, timeout_s: float, max_bytes: int = 64 * 1024) -> bytes:
        """The bot's next stdout line, without the newline.

        Raises ``ReadTimeout`` if no full line came within ``timeout_s`` (what
        came so far is kept for the next call), ``LineTooLong`` if the line
        exceeds ``max_bytes`` (the buffer is dropped: kill the bot), and
        ``BotGone`` at end of output (a partial last line is dropped).
        """
        buffer = self._buffer
        deadline = None
        while True:
            end = buffer.find(b"\n", self._scanned)
            if end >= 0:
                if end > max_bytes:
                    break
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                self._scanned = 0
                return line
            if len(buffer) > max_bytes:
                break
            self._scanned = len(buffer)
            if deadline is None:
                deadline = time.monotonic() + timeout_s
                remaining = timeout_s
            else:
                remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ReadTimeout(f"no full line from the bot within {timeout_s} s")
            if self._killed:
                raise BotGone("bot was killed")
            if self._readable.poll(math.ceil(remaining * 1000)):
                self._read_chunk()
        buffer.clear()
        self._scanned = 0
        raise LineTooLong(f"bot wrote a line longer than {max_bytes} bytes")

    def _read_chunk(self) -> None:
        try:
            chunk = os.read(self._stdout, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as error:
            raise BotGone(f"bot output unreadable ({error.strerror})") from None
        if not chunk:
            self._buffer.clear()
            self._scanned = 0
            code = self._popen.poll()
            raise BotGone("bot closed its output" + (f" (exit {code})" if code is not None else ""))
        self._buffer += chunk

    def pending(self) -> bool:
        """Whether the bot has written output nobody asked for yet (out of turn)."""
        if self._buffer:
            return True
        return bool(self._readable.poll(0))

    def stderr_tail(self) -> str:
        """The bot's log so far: its last ``Limits.stderr_bytes`` bytes of stderr."""
        return self._stderr.text()

    def alive(self) -> bool:
        return not self._killed and self._popen.poll() is None

    def kill(self) -> None:
        """Kill the bot's whole process tree, reap it and remove its staging files.

        Idempotent. Sandboxed, the PID namespace's init is killed, so the kernel
        kills every process in it, daemons and orphans included.
        """
        with self._kill_lock:
            if self._killed:
                return
            self._killed = True
            if self.sandboxed:
                self._kill_sandbox()
            else:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self._popen.pid, signal.SIGKILL)
                self._popen.wait()
            self._kill_survivors()
            for pipe in (self._popen.stdin, self._popen.stdout):
                with contextlib.suppress(OSError):
                    pipe.close()
            self._stderr.close()
            self._staging.remove()

    def _kill_survivors(self, timeout_s: float = 5.0) -> None:
        """Make sure nothing of the bot still runs (the kernel may need a moment)."""
        deadline = time.monotonic() + timeout_s
        while (pids := self.survivors()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        if pids:
            logger.error("bot processes %s survived SIGKILL for %s s", pids, timeout_s)

    def _kill_sandbox(self) -> None:
        self._read_info()
        if self._init_pid and self._popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._init_pid, signal.SIGKILL)
        try:
            self._popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._popen.kill()  # bwrap's --die-with-parent takes the sandbox down with it
            self._popen.wait()

    def _read_info(self, timeout_s: float = 5.0) -> None:
        """Learn the sandbox init's host pid and PID namespace from bwrap's --info-fd."""
        if self._info_fd is None:
            return
        data = b""
        deadline = time.monotonic() + timeout_s
        while (remaining := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self._info_fd], [], [], remaining)
            chunk = os.read(self._info_fd, 4096) if ready else b""
            if not chunk:
                break
            data += chunk
        os.close(self._info_fd)
        self._info_fd = None
        with contextlib.suppress(ValueError, KeyError, TypeError):
            self._init_pid = int(json.loads(data)["child-pid"])
        if self._init_pid:
            with contextlib.suppress(OSError):
                self._pid_namespace = os.readlink(f"/proc/{self._init_pid}/ns/pid")

    def survivors(self) -> list[int]:
        """Host pids of the bot's processes still running (empty after ``kill``).

        Sandboxed: every process in the bot's PID namespace. Unsandboxed: every
        process in its session (a daemon that starts its own session escapes).
        """
        if self.sandboxed:
            self._read_info()
            namespace = self._pid_namespace
            return _pids_where(
                lambda pid: namespace is not None and _pid_namespace(pid) == namespace
            )
        return _pids_where(lambda pid: _session(pid) == self._popen.pid)

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.kill()


def _pids_where(predicate) -> list[int]:
    """Pids of running (not zombie) processes matching ``predicate``, ourselves excluded."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid() and predicate(int(entry)):
            state = _stat_fields(int(entry))
            if state and state[0] not in ("Z", "X"):
                found.append(int(entry))
    return found


def _pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _stat_fields(pid: int) -> list[str]:
    """``/proc/<pid>/stat`` after the command name: state, ppid, pgrp, session..."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            return stat_file.read().rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return []


def _session(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[3]) if len(fields) > 3 else None


def spawn(
    command: list[str], *, bot_dir: Path, limits: Limits = DEFAULT_LIMITS, sandboxed: bool = True
) -> BotProcess:
    """Start a bot program; ``command`` is as run inside the sandbox (see ``resolve``).

    ``bot_dir`` is the bot's directory, or its single program file, mounted at
    ``/bot``. ``sandboxed=False`` runs a plain subprocess for trusted bots in
    development (with a warning). Raises ``SandboxUnavailable`` if sandboxing
    was asked for and does not work here: never falls back silently.
    """
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(arg, str) and arg for arg in command)
    ):
        raise ValueError(f"command must be a non-empty list of non-empty strings, got {command!r}")
    bot_path = Path(bot_dir).resolve()
    if not bot_path.exists():
        raise ValueError(f"bot_dir {str(bot_path)!r} does not exist")
    if not sandboxed:
        return _spawn_unsandboxed(command, bot_path, limits)
    if not isolation.available():
        raise SandboxUnavailable(
            f"cannot sandbox bots on this host: {isolation.unavailable_reason()}"
        )
    uid = isolation.host_uid()
    staging = isolation.stage(bot_path, uid=uid)
    read_end, write_end = os.pipe()
    try:
        popen = subprocess.Popen(
            isolation.bwrap_argv(command, staging=staging, limits=limits, info_fd=write_end),
            **isolation.popen_identity(uid),
            pass_fds=[write_end],
            env={"PATH": isolation.SANDBOX_PATH},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except BaseException:
        os.close(read_end)
        staging.remove()
        raise
    finally:
        os.close(write_end)
    return BotProcess(popen, limits=limits, staging=staging, info_fd=read_end)


def _spawn_unsandboxed(command: list[str], bot_path: Path, limits: Limits) -> BotProcess:
    logger.warning(
        "RUNNING BOT %s WITHOUT A SANDBOX: full access to this machine, its network "
        "and files. Only for trusted bots in development.",
        bot_path,
    )
    staging = isolation.stage(bot_path, uid=None)
    scratch = staging.root / "tmp"
    scratch.mkdir(mode=0o700)
    bot_home = bot_path if bot_path.is_dir() else bot_path.parent
    argv = [_host_path(arg, bot_path) for arg in command]
    if os.access(isolation.PRLIMIT, os.X_OK):  # all but NPROC, which would count our own uid
        rlimits = [arg for arg in limits.prlimit_args() if not arg.startswith("--nproc")]
        argv = [isolation.PRLIMIT, *rlimits, "--", *argv]
    try:
        popen = subprocess.Popen(
            argv,
            cwd=bot_home,
            env=isolation.environment(home=str(scratch), sdk=str(staging.root / "sdk")),
            start_new_session=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except BaseException:
        staging.remove()
        raise
    return BotProcess(popen, limits=limits, staging=staging, info_fd=None)


def _host_path(arg: str, bot_path: Path) -> str:
    """Map an in-sandbox ``/bot/...`` argument to the bot's real location."""
    if arg != BOT_MOUNT and not arg.startswith(BOT_MOUNT + "/"):
        return arg
    if bot_path.is_file():
        return str(bot_path) if arg == f"{BOT_MOUNT}/{bot_path.name}" else arg
    return str(bot_path) + arg[len(BOT_MOUNT) :]
