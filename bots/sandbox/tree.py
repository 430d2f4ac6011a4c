"""Every process of one bot program, found and killed.

Sandboxed, a bot's processes are those of its PID namespace: bwrap names the
namespace's init on its ``--info-fd``, and killing that init makes the kernel kill
every process in it, daemons and orphans included. Unsandboxed, they are the
processes of the session it was started in (a daemon that starts its own session
escapes). Read from ``/proc``; no cgroup, no pipes (``process.BotProcess`` keeps those).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import subprocess
import time

logger = logging.getLogger(__name__)


class ProcessTree:
    """The processes of one bot: the one we started (``popen``: ``bwrap`` when
    sandboxed) and, sandboxed, its sandbox's init and PID namespace, learnt from
    bwrap's ``--info-fd`` (``info_fd``; None unsandboxed).

    Not thread-safe: its owner serialises :meth:`kill` with everything else.
    """

    def __init__(self, popen: subprocess.Popen, info_fd: int | None) -> None:
        self._popen = popen
        self.sandboxed = info_fd is not None
        self._info_fd = info_fd
        self._init_pid: int | None = None
        self._pid_namespace: str | None = None
        #: An open descriptor of the bot's PID namespace, held while this object lives:
        #: the kernel frees a namespace's inode number (its identity in
        #: ``/proc/<pid>/ns/pid``) once nothing refers to it, and gives it to the next
        #: namespace made; held, no other sandbox's processes can be taken for this
        #: bot's survivors (and killed with them) after it died.
        self._ns_fd: int | None = None

    def init_pid(self) -> int | None:
        """Host pid of the sandbox's init, None unsandboxed or if bwrap never named it
        (waits for bwrap to name it, up to 5 s, the first time)."""
        self._read_info()
        return self._init_pid

    def kill(self) -> None:
        """Kill every process of the bot and reap the one we started.

        Sandboxed, the PID namespace's init is killed, so the kernel kills every
        process in it; then any process still found in the namespace is killed.
        """
        if self.sandboxed:
            self._kill_sandbox()
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._popen.pid, signal.SIGKILL)
            self._popen.wait()
        self._kill_survivors()

    def survivors(self) -> list[int]:
        """Host pids of the bot's processes still running (empty after :meth:`kill`).

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
                path = f"/proc/{self._init_pid}/ns/pid"
                self._ns_fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                self._pid_namespace = os.readlink(path)
                if self._pid_namespace != os.readlink(f"/proc/self/fd/{self._ns_fd}"):
                    self._pid_namespace = None  # the init died between the two: none held

    def __del__(self) -> None:
        fd, self._ns_fd = getattr(self, "_ns_fd", None), None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


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
