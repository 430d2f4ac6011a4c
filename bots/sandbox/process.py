"""One running bot program: line I/O over its pipes, its log, its cgroup's counts, why it
died, and killing its whole tree.

Started by ``launch.spawn``; its processes are found and killed by ``tree.ProcessTree``,
its stderr is drained by ``stderr_tail.StderrTail``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import signal
import subprocess
import threading
import time
from dataclasses import replace

from . import isolation
from .cgroup import BotGroup, CgroupError
from .deaths import CPU, FILE_SIZE, MEMORY, Death, limit_that_killed
from .errors import (
    BotGone,
    CpuBudgetExceeded,
    CpuExceeded,
    FileSizeExceeded,
    LineTooLong,
    MemoryExceeded,
    ReadTimeout,
    WriteTimeout,
)
from .limits import Limits
from .stderr_archive import StderrArchive
from .stderr_tail import READ_CHUNK, StderrTail
from .tree import ProcessTree

logger = logging.getLogger(__name__)

DEFAULT_SEND_TIMEOUT_S = 10.0
#: How long a bot whose output closed is given to exit, so that its exit status can
#: tell which limit killed it.
EXIT_WAIT_S = 0.5
#: Share of ``Limits.cpu_seconds`` the bot's cgroup must have used for a SIGKILL to be
#: put down to the CPU limit (the rlimit is per process and checked at each tick; the
#: cgroup counts every process, but its count can trail the kernel's check a little).
CPU_KILL_SHARE = 0.8
#: Shortest wait between two looks at a deciding bot's CPU time (``readline``'s
#: ``cpu_until_ns``): a bot far from its limit is looked at only when it could reach it.
CPU_POLL_MIN_S = 0.01
#: How much of the end of a dead bot's stderr is read for the limit it died of.
LAST_WORDS_CHARS = 4096


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
        stderr_archive: StderrArchive | None = None,
    ) -> None:
        self._popen = popen
        self._group = group
        self._memory_mb = limits.memory_mb
        self._limits = limits
        self._last_cpu_ns: int | None = None
        self._last_oom_kills = 0
        self._last_memory_hits = 0
        self._staging = staging
        self._tree = ProcessTree(popen, info_fd)
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
        self._stderr = StderrTail(popen.stderr, limits.stderr_bytes, stderr_archive)
        self._kill_lock = threading.Lock()
        self._killed = False

    @property
    def pid(self) -> int:
        """Host pid of the process we started (``bwrap`` when sandboxed)."""
        return self._popen.pid

    @property
    def sandboxed(self) -> bool:
        return self._tree.sandboxed

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

    def memory_hits(self) -> int:
        """How many times the bot's cgroup reached its memory limit (``BotGroup.memory_hits``)."""
        with self._kill_lock:
            if self._group is not None:
                self._last_memory_hits = self._group.memory_hits()
        return self._last_memory_hits

    def admit(self, block_fd: int) -> None:
        """Move the waiting sandbox into the bot's cgroup, then let it run the bot (by a
        write to ``block_fd``, the pipe its init waits on). Called once, by ``spawn``."""
        init_pid = self._tree.init_pid()
        if not init_pid:
            code = self._popen.poll()
            raise CgroupError(
                f"bwrap did not start the sandbox (exit {code}): {self.stderr_tail()}"
            )
        self._group.add(self._popen.pid)
        self._group.add(init_pid)
        os.write(block_fd, b"1")

    def _oom_after_event(self) -> int:
        with self._kill_lock:
            return self._group.oom_kills_after_event() if self._group is not None else 0

    def _end_for_memory(self) -> None:
        """Kill the bot: the kernel killed part of it for memory. Raises ``MemoryExceeded``."""
        self.kill()
        raise self._gone("")

    def _gone(self, message: str, *, with_exit: bool = False) -> BotGone:
        """``BotGone``, or the ``LimitExceeded`` that says which limit killed the bot
        (``bots.sandbox.deaths``): ``MemoryExceeded``, ``CpuExceeded`` or
        ``FileSizeExceeded``, each ``killed: over its <limit> of <value>``.
        ``with_exit``: ``message`` is followed by `` (exit N)`` when the status is known
        (the process is waited for up to :data:`EXIT_WAIT_S`)."""
        death = self._death()
        limit = limit_that_killed(death)
        if limit == MEMORY:
            return MemoryExceeded(f"killed: over its memory limit of {self._memory_mb} MiB")
        if limit == CPU:
            seconds = self._limits.cpu_seconds
            return CpuExceeded(f"killed: over its CPU limit of {seconds} CPU seconds")
        if limit == FILE_SIZE:
            size = self._limits.file_size_mb
            return FileSizeExceeded(f"killed: over its file size limit of {size} MiB")
        if with_exit and death.status is not None:
            message += f" (exit {death.status})"
        return BotGone(message)

    def _death(self) -> Death:
        """What is known of how the bot ended (its end of stderr only if it failed)."""
        oom_kills = self.oom_kills()
        status = None if oom_kills else self._exit_status()
        if not status:
            return Death(status, oom_kills)
        self._stderr.settle()  # its last words may still be in the pipe
        last_words = self._stderr.text()[-LAST_WORDS_CHARS:]
        death = Death(status, memory_hits=self.memory_hits(), stderr=last_words)
        if death.signal in (signal.SIGKILL, signal.SIGXCPU) and self._cpu_used_up():
            death = replace(death, cpu_used_up=True)
        return death

    def _exit_status(self) -> int | None:
        """The exit status of the process we started (bwrap reports a signal as 128 +
        signal), or None if we killed it or it still runs after :data:`EXIT_WAIT_S`."""
        if self._killed:
            return None  # we killed it
        try:
            return self._popen.wait(EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            return None

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

    def readline(
        self, timeout_s: float, max_bytes: int = 64 * 1024, *, cpu_until_ns: int | None = None
    ) -> bytes:
        """The bot's next stdout line, without the newline.

        Raises ``ReadTimeout`` if no full line came within ``timeout_s`` (what
        came so far is kept for the next call), ``LineTooLong`` if the line
        exceeds ``max_bytes`` (the buffer is dropped: kill the bot), and
        ``BotGone`` at end of output (a partial last line is dropped).
        ``MemoryExceeded`` (a ``BotGone``) as soon as the kernel signals that it
        killed a process of the bot for its memory limit (even one the bot does
        not wait for): the bot is killed then.

        With ``cpu_until_ns``, the bot's CPU time (:meth:`cpu_time_ns`, every process
        of it) is watched while it runs: once it reaches that count without a full
        line, ``CpuBudgetExceeded`` (a ``ReadTimeout``; the bot still runs). It is
        looked at when the bot could have reached it at its ``cpu_cores``, at most
        every :data:`CPU_POLL_MIN_S`. Ignored for a bot without a cgroup.
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
            if cpu_until_ns is not None:
                cpu_wait_s = self._cpu_wait_s(cpu_until_ns)
                if cpu_wait_s is None:  # no CPU count: nothing to watch
                    cpu_until_ns = None
                else:
                    remaining = min(remaining, cpu_wait_s)
            ready = [fd for fd, _ in self._waiting.poll(math.ceil(remaining * 1000))]
            if self._memory_fd in ready and self._oom_after_event():
                self._end_for_memory()  # before reading: an answer with an OOM kill is void
            if self._stdout in ready:
                self._read_chunk()
        buffer.clear()
        self._scanned = 0
        raise LineTooLong(f"bot wrote a line longer than {max_bytes} bytes")

    def _cpu_wait_s(self, cpu_until_ns: int) -> float | None:
        """How long the bot can run before its CPU time could reach ``cpu_until_ns`` (at
        least :data:`CPU_POLL_MIN_S`), None without a CPU count; raises
        ``CpuBudgetExceeded`` if it has."""
        used_ns = self.cpu_time_ns()
        if used_ns is None:
            return None
        if used_ns >= cpu_until_ns:
            raise CpuBudgetExceeded(
                f"the bot used its CPU time (count {used_ns / 1e9:.3f} s, "
                f"stop at {cpu_until_ns / 1e9:.3f} s) without answering",
                used_ns=used_ns,
            )
        return max(CPU_POLL_MIN_S, (cpu_until_ns - used_ns) / 1e9 / self._limits.cpu_cores)

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
            raise self._gone("bot closed its output", with_exit=True)
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
            self._tree.kill()
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

    def survivors(self) -> list[int]:
        """Host pids of the bot's processes still running (empty after ``kill``).

        Sandboxed: every process in the bot's PID namespace. Unsandboxed: every
        process in its session (a daemon that starts its own session escapes).
        """
        return self._tree.survivors()

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.kill()
