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
from .cgroup import BotGroup, CgroupError
from .cgroup import create as create_group
from .cgroup import host as cgroup_host
from .errors import (
    BotGone,
    CpuExceeded,
    FileSizeExceeded,
    LineTooLong,
    MemoryExceeded,
    ReadTimeout,
    SandboxUnavailable,
    WriteTimeout,
)
from .limits import Limits
from .resolve import BOT_MOUNT

logger = logging.getLogger(__name__)

READ_CHUNK = 64 * 1024
DEFAULT_LIMITS = Limits()
DEFAULT_SEND_TIMEOUT_S = 10.0
#: How long a bot whose output closed is given to exit, so that its exit status can
#: tell which limit killed it.
EXIT_WAIT_S = 0.5
#: Share of ``Limits.cpu_seconds`` the bot's cgroup must have used for a SIGKILL to be
#: put down to the CPU limit (the rlimit is per process and checked at each tick; the
#: cgroup counts every process, but its count can trail the kernel's check a little).
CPU_KILL_SHARE = 0.8
#: Most stderr chunks read at once under the log's lock (1 MiB).
STDERR_READS_AT_ONCE = 16
#: Longest wait of a capture for the stderr a bot wrote before it answered to be read.
STDERR_SETTLE_S = 0.05
#: Set to 1 by an operator to run untrusted bots on a host without a usable cgroup.
ALLOW_NO_CGROUP_ENV = "CARDROOM_SANDBOX_ALLOW_NO_CGROUP"


class _StderrTail:
    """Drain a pipe on a daemon thread, keeping only its last ``cap`` bytes.

    Between :meth:`capture_begin` and :meth:`capture_end` it also keeps the first
    bytes written meanwhile (one decision's stderr). Every read of the pipe happens
    under the lock and without blocking, so a capture that ends reads first what the
    bot wrote before it answered: nothing is left in flight on the draining thread.
    """

    def __init__(self, pipe, cap: int) -> None:
        self._fd = pipe.fileno()
        self._pipe = pipe
        self._cap = cap
        self._data = bytearray()
        self._capture: bytearray | None = None
        self._capture_cap = 0
        self._capture_cut = False
        self._closed = False
        self._lock = threading.Lock()
        self._drained = threading.Condition(self._lock)
        self._pending = select.poll()
        self._pending.register(self._fd, select.POLLIN)
        os.set_blocking(self._fd, False)
        self._thread = threading.Thread(target=self._drain, name="bot-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        ready = select.poll()
        ready.register(self._fd, select.POLLIN)
        while True:
            try:
                ready.poll()
            except OSError:
                return
            with self._lock:
                more = self._read_available()
                self._drained.notify_all()
                if not more:
                    return

    def _read_available(self) -> bool:
        """Read what the pipe holds now (lock held), at most :data:`STDERR_READS_AT_ONCE`
        chunks (a bot that writes without end cannot keep the lock); False at its end."""
        for _ in range(STDERR_READS_AT_ONCE):
            if self._closed:  # a closed pipe's number may be another file's now
                return False
            try:
                chunk = os.read(self._fd, READ_CHUNK)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self._data += chunk
            if len(self._data) > self._cap:
                del self._data[: len(self._data) - self._cap]
            if self._capture is not None:
                room = self._capture_cap - len(self._capture)
                self._capture += chunk[: max(0, room)]
                self._capture_cut = self._capture_cut or len(chunk) > room
        return True

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", errors="replace")

    def _settled(self) -> None:
        """Wait (lock held) until the draining thread has read what the pipe holds now
        (at most :data:`STDERR_SETTLE_S`): the thread reads, this one never competes."""
        deadline = None
        while not self._closed and self._pending.poll(0):
            if deadline is None:
                deadline = time.monotonic() + STDERR_SETTLE_S
            left = deadline - time.monotonic()
            if left <= 0 or not self._thread.is_alive():
                return
            self._drained.wait(left)

    def capture_begin(self, cap: int) -> None:
        """Start keeping the first ``cap`` bytes written from now on."""
        with self._lock:
            self._settled()
            self._capture, self._capture_cap, self._capture_cut = bytearray(), cap, False

    def capture_end(self) -> tuple[bytes, bool]:
        """What was written since :meth:`capture_begin` (at most its ``cap`` bytes) and
        whether more was written; ``(b"", False)`` without a capture."""
        with self._lock:
            self._settled()
            captured, cut = bytes(self._capture or b""), self._capture_cut
            self._capture, self._capture_cut = None, False
            return captured, cut

    def close(self, timeout_s: float = 2.0) -> None:
        self._thread.join(timeout_s)
        if not self._thread.is_alive():
            with self._lock:
                self._closed = True
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
        group: BotGroup | None = None,
    ) -> None:
        self._popen = popen
        self._group = group
        self._memory_mb = limits.memory_mb
        self._limits = limits
        self._last_cpu_ns: int | None = None
        self._last_oom_kills = 0
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
        # readline also wakes up when the kernel signals an OOM in the bot's group.
        self._waiting = select.poll()
        self._waiting.register(self._stdout, select.POLLIN)
        self._memory_fd: int | None = None
        if group is not None:
            self._memory_fd, mask = group.memory_event()
            self._waiting.register(self._memory_fd, mask)
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

    @property
    def group(self) -> BotGroup | None:
        """The bot's cgroup, or None when it runs without one (or was killed)."""
        return self._group

    def cpu_time_ns(self) -> int | None:
        """CPU time the bot's whole process tree used so far (its cgroup's count).

        None when the bot has no cgroup. After ``kill`` it is the final count.
        """
        with self._kill_lock:  # not while kill() closes the group's files
            if self._group is not None:
                self._last_cpu_ns = self._group.cpu_time_ns()
        return self._last_cpu_ns

    def run_delays_ns(self) -> dict[int, int] | None:
        """Per thread of the bot, how long it has waited for a CPU (``BotGroup.run_delays_ns``).

        None without a cgroup, once killed, or where the kernel keeps no such count.
        """
        with self._kill_lock:
            if self._group is None:
                return None
            try:
                return self._group.run_delays_ns()
            except (OSError, ValueError, IndexError):
                return None

    def set_deciding(self, deciding: bool) -> None:
        """Tell the bot's cgroup whether it is the bot's turn (full CPU weight) or not.

        A bot starts deciding. Without a cgroup, or once killed, this does nothing.
        """
        with self._kill_lock:
            if self._group is not None:
                self._group.set_deciding(deciding)

    def oom_kills(self) -> int:
        """How many of the bot's processes the kernel killed for exceeding its memory limit."""
        with self._kill_lock:
            if self._group is not None:
                self._last_oom_kills = self._group.oom_kills()
        return self._last_oom_kills

    def _admit(self, block_fd: int) -> None:
        """Move the waiting sandbox into the bot's cgroup, then let it run the bot."""
        self._read_info()
        if not self._init_pid:
            code = self._popen.poll()
            raise CgroupError(
                f"bwrap did not start the sandbox (exit {code}): {self.stderr_tail()}"
            )
        self._group.add(self._popen.pid)
        self._group.add(self._init_pid)
        os.write(block_fd, b"1")

    def _oom_after_event(self) -> int:
        with self._kill_lock:
            return self._group.oom_kills_after_event() if self._group is not None else 0

    def _end_for_memory(self) -> None:
        """Kill the bot: the kernel killed part of it for memory. Raises ``MemoryExceeded``."""
        self.kill()
        raise self._gone("")

    def _gone(self, message: str) -> BotGone:
        """``BotGone``, or the ``LimitExceeded`` that says which limit killed the bot:
        ``MemoryExceeded`` if the kernel killed part of it for memory, ``CpuExceeded``
        if it died of ``SIGKILL`` (or ``SIGXCPU``) with its CPU seconds used up,
        ``FileSizeExceeded`` if it died of ``SIGXFSZ``."""
        if self.oom_kills():
            return MemoryExceeded(f"killed: over its memory limit of {self._memory_mb} MiB")
        killed_by = self._exit_signal()
        if killed_by in (signal.SIGKILL, signal.SIGXCPU) and self._cpu_used_up():
            seconds = self._limits.cpu_seconds
            return CpuExceeded(f"killed: over its CPU limit of {seconds} CPU seconds")
        if killed_by == signal.SIGXFSZ:
            size = self._limits.file_size_mb
            return FileSizeExceeded(f"killed: over its file size limit of {size} MiB")
        return BotGone(message)

    def _exit_signal(self) -> int | None:
        """The signal the bot's process died of (bwrap reports it as 128 + signal), or
        None if it exited normally or still runs after :data:`EXIT_WAIT_S`."""
        if self._killed:
            return None  # we killed it
        try:
            code = self._popen.wait(EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            return None
        if code < 0:
            return -code
        return code - 128 if code > 128 else None

    def _cpu_used_up(self) -> bool:
        used_ns = self.cpu_time_ns()
        return used_ns is not None and used_ns >= CPU_KILL_SHARE * self._limits.cpu_seconds * 1e9

    def send(self, data: bytes, timeout_s: float = DEFAULT_SEND_TIMEOUT_S) -> None:
        """Write ``data`` to the bot's stdin.

        Raises ``BotGone`` if the bot closed its input or was killed, and
        ``WriteTimeout`` (a ``ReadTimeout``) if it stopped reading for ``timeout_s``.
        """
        if self._killed:
            raise self._gone("bot was killed")
        view = memoryview(data)
        deadline = None
        while view:
            try:
                view = view[os.write(self._stdin, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError as error:  # EPIPE: nobody reads the bot's stdin any more
                raise self._gone(f"bot closed its input ({error.strerror})") from None
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
        ``MemoryExceeded`` (a ``BotGone``) as soon as the kernel signals that it
        killed a process of the bot for its memory limit (even one the bot does
        not wait for): the bot is killed then.
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
                raise self._gone("bot was killed")
            ready = [fd for fd, _ in self._waiting.poll(math.ceil(remaining * 1000))]
            if self._memory_fd in ready and self._oom_after_event():
                self._end_for_memory()  # before reading: an answer with an OOM kill is void
            if self._stdout in ready:
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
            raise self._gone(
                "bot closed its output" + (f" (exit {code})" if code is not None else "")
            )
        self._buffer += chunk

    def pending(self) -> bool:
        """Whether the bot has written output nobody asked for yet (out of turn).

        A closed stdout is not output: a bot that exited after its last answer is found
        out (a crash) when it is next asked, however soon it exited."""
        if self._buffer:
            return True
        return any(events & select.POLLIN for _, events in self._readable.poll(0))

    def stderr_tail(self) -> str:
        """The bot's log so far: its last ``Limits.stderr_bytes`` bytes of stderr."""
        return self._stderr.text()

    def stderr_capture_begin(self, cap: int) -> None:
        """Keep the first ``cap`` bytes of stderr from now on (one decision's)."""
        self._stderr.capture_begin(cap)

    def stderr_capture_end(self) -> tuple[bytes, bool]:
        """The stderr kept since :meth:`stderr_capture_begin`, and whether more was
        written than it kept."""
        return self._stderr.capture_end()

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
            self._remove_group()

    def _remove_group(self) -> None:
        group, self._group = self._group, None
        if group is None:
            return
        self._last_cpu_ns = group.cpu_time_ns()
        self._last_oom_kills = group.oom_kills()
        try:
            group.remove()
        except CgroupError as error:
            logger.error("bot cgroup left behind: %s", error)

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
    command: list[str],
    *,
    bot_dir: Path,
    limits: Limits = DEFAULT_LIMITS,
    sandboxed: bool = True,
    cgroup: bool = True,
    seccomp: bool = True,
    landlock: bool = True,
) -> BotProcess:
    """Start a bot program; ``command`` is as run inside the sandbox (see ``resolve``).

    ``bot_dir`` is the bot's directory, or its single program file, mounted at
    ``/bot``. A sandboxed bot runs in a cgroup of its own (``cgroup.py``) that
    caps its memory, processes and CPU and counts its CPU time; ``cgroup=False``
    skips it (to measure its cost; with a warning), ``seccomp=False`` leaves
    out the system-call filter (``seccomp.py``; likewise) and ``landlock=False`` the
    limits on what it reads under ``/proc`` (``landlock.py``; likewise). ``sandboxed=False`` runs a
    plain subprocess for trusted bots in development (with a warning). Raises
    ``SandboxUnavailable`` if sandboxing was asked for and does not work here,
    or if the host has no usable cgroup and the operator did not set
    ``CARDROOM_SANDBOX_ALLOW_NO_CGROUP=1``: never falls back silently.
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
    group = _create_group(limits) if cgroup else None
    if not cgroup:
        logger.warning("running bot %s without a cgroup (asked by the caller)", bot_path)
    if not seccomp:
        logger.warning("running bot %s without a seccomp filter (asked by the caller)", bot_path)
    if not landlock:
        logger.warning("running bot %s without its Landlock reads (asked by the caller)", bot_path)
    uid = isolation.host_uid()
    try:
        staging = isolation.stage(bot_path, uid=uid)
    except BaseException:
        _remove_quietly(group)
        raise
    read_end, write_end = os.pipe()
    # With a group, bwrap's init waits on block_read until we have moved it in.
    block_read, block_write = os.pipe() if group is not None else (None, None)
    pass_fds = [fd for fd in (write_end, block_read) if fd is not None]
    try:
        argv = isolation.bwrap_argv(
            command,
            staging=staging,
            limits=limits,
            info_fd=write_end,
            block_fd=block_read,
            seccomp=seccomp,
            landlock_reads=landlock,
        )
        popen = subprocess.Popen(
            argv,
            **isolation.popen_identity(uid),
            pass_fds=[*pass_fds, *staging.fds],  # the files bwrap copies into the sandbox
            env={"PATH": isolation.SANDBOX_PATH},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except BaseException:
        for fd in (read_end, block_write):
            if fd is not None:
                os.close(fd)
        staging.remove()
        _remove_quietly(group)
        raise
    finally:
        staging.close_fds()
        for fd in (write_end, block_read):
            if fd is not None:
                os.close(fd)
    bot = BotProcess(popen, limits=limits, staging=staging, info_fd=read_end, group=group)
    if group is not None:
        try:
            bot._admit(block_write)
        except BaseException as error:
            bot.kill()  # before block_write closes: EOF would let the sandbox run on
            if isinstance(error, OSError):
                raise SandboxUnavailable(f"cannot start the bot in its cgroup: {error}") from error
            raise
        finally:
            os.close(block_write)
    return bot


def _create_group(limits: Limits) -> BotGroup | None:
    """The bot's cgroup; None only if the host has none and the operator allows that."""
    found = cgroup_host()
    if found.usable:
        try:
            return create_group(limits, found)
        except CgroupError as error:
            raise SandboxUnavailable(f"cannot create the bot's cgroup: {error}") from error
    if os.environ.get(ALLOW_NO_CGROUP_ENV) == "1":
        logger.warning(
            "RUNNING AN UNTRUSTED BOT WITHOUT A CGROUP (%s=1): its memory, processes and "
            "CPU are capped per process only, so it can use many times its memory limit "
            "and slow other bots down. No usable cgroup: %s",
            ALLOW_NO_CGROUP_ENV,
            found.reason,
        )
        return None
    raise SandboxUnavailable(
        f"cannot cap the bot's memory and CPU on this host: {found.reason}. "
        f"Set {ALLOW_NO_CGROUP_ENV}=1 to run untrusted bots with per-process limits only"
    )


def _remove_quietly(group: BotGroup | None) -> None:
    if group is not None:
        with contextlib.suppress(CgroupError):
            group.remove()


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
            env=isolation.environment(home=str(scratch), sdk=str(isolation.packages())),
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
