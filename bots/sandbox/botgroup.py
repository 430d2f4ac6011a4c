"""The control group of one bot: made with its caps (memory, processes, CPU bandwidth),
joined by its processes, read for its CPU time, its waits for a CPU and its
out-of-memory kills, weighted while it decides, and removed with whatever still runs in
it. Where such groups may be made on this host is ``bots.sandbox.cgroup``'s, which
creates them (:func:`bots.sandbox.cgroup.create`). Pure Python, no framework.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import select
import signal
import time
from pathlib import Path

from .limits import MIB, Limits

V1, V2 = "v1", "v2"
CPU_PERIOD_US = 100_000
#: CPU weight of a bot that is deciding (the default) and of one that waits its turn.
WEIGHTS = {V1: (b"1024", b"2"), V2: (b"100", b"1")}
#: The name of a bot's group begins so (then its worker's pid and a random part).
GROUP_PREFIX = "bot-"


class CgroupError(OSError):
    """A bot's group could not be created, joined or removed."""


class BotGroup:
    """The group of one bot process tree: join it, read its CPU time and OOM kills, remove it."""

    def __init__(self, version: str, directories: dict[str, Path], limits: Limits) -> None:
        self.version = version
        self.directories = directories
        self.memory_mb = limits.memory_mb
        self._fds: dict[str, int] = {}
        #: Per thread of the group (tid as listed): its open ``/proc/<tid>/schedstat``.
        self._schedstat_fds: dict[bytes, int] = {}
        if self.version == V2:
            self._open("cpu", directories["cpu"] / "cpu.stat")
            self._open("threads", directories["cpu"] / "cgroup.threads")
            self._open("oom", directories["memory"] / "memory.events")
            self._open("weight", directories["cpu"] / "cpu.weight", os.O_WRONLY)
        else:
            self._open("cpu", directories["cpuacct"] / "cpuacct.usage")
            self._open("threads", directories["cpu"] / "tasks")
            self._open("oom", directories["memory"] / "memory.oom_control")
            self._open("failcnt", directories["memory"] / "memory.failcnt")
            self._open("weight", directories["cpu"] / "cpu.shares", os.O_WRONLY)
            # An eventfd the kernel signals when the group runs out of memory.
            self._fds["oom_event"] = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
            control = f"{self._fds['oom_event']} {self._fds['oom']}"
            (directories["memory"] / "cgroup.event_control").write_text(control)
        # Read or written around every decision: kept at hand (see cpu_time_ns, set_deciding).
        self._cpu_fd, self._weight_fd = self._fds["cpu"], self._fds["weight"]
        self._weights = WEIGHTS[self.version]

    def _open(self, key: str, path: Path, mode: int = os.O_RDONLY) -> None:
        self._fds[key] = os.open(path, mode | os.O_CLOEXEC)

    def _read(self, key: str) -> bytes:
        return os.pread(self._fds[key], 4096, 0)

    @property
    def path(self) -> Path:
        """The group's directory (v1: in the memory hierarchy)."""
        return self.directories["memory"]

    def add(self, pid: int) -> None:
        """Move process ``pid`` (all its threads) into the group, in every hierarchy."""
        for directory in set(self.directories.values()):
            try:
                (directory / "cgroup.procs").write_text(str(pid))
            except OSError as error:
                raise CgroupError(
                    error.errno, f"cannot move pid {pid} into {directory}: " f"{error.strerror}"
                ) from None

    def pids(self) -> list[int]:
        """Host pids of the processes in the group."""
        found: set[int] = set()
        for directory in set(self.directories.values()):
            with contextlib.suppress(OSError):
                found.update(int(pid) for pid in (directory / "cgroup.procs").read_text().split())
        return sorted(found)

    def cpu_time_ns(self) -> int:
        """CPU time used by every process the group ever held, in nanoseconds."""
        if not self._fds:
            raise CgroupError(errno.EBADF, "the group was removed")
        data = os.pread(self._cpu_fd, 4096, 0)
        if self.version == V2:
            return int(_field(data, b"usage_usec")) * 1000
        return int(data)

    def run_delays_ns(self) -> dict[int, int]:
        """Per thread of the group (host tid): the time it has waited on a run queue,
        runnable but kept from running, in nanoseconds (``/proc/<tid>/schedstat``).

        A thread that ends between the group's list and its own file is left out.
        Raises ``OSError`` where the kernel does not keep these counts.
        """
        if not self._fds:
            raise CgroupError(errno.EBADF, "the group was removed")
        delays = {}
        files = self._schedstat_fds
        tids = os.pread(self._fds["threads"], 65536, 0).split()
        for tid in tids:
            fd = files.get(tid)
            try:
                if fd is None:
                    path = b"/proc/%s/schedstat" % tid
                    fd = files[tid] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                delays[int(tid)] = int(os.pread(fd, 128, 0).split()[1])
            except FileNotFoundError:  # it ended since the list was read
                continue
            except ProcessLookupError:  # its file is of an ended thread of the same id
                os.close(files.pop(tid))
        if len(files) > len(tids):  # threads that ended: their files go
            for tid in set(files) - set(tids):
                os.close(files.pop(tid))
        return delays

    def set_deciding(self, deciding: bool) -> None:
        """Full CPU weight while the bot decides; almost none while it waits its turn.

        A bot's load between its turns (pondering, or a hog's spinning children)
        then only gets CPU time nobody else wants, and never slows the bot
        whose turn it is.
        """
        if not self._fds:
            raise CgroupError(errno.EBADF, "the group was removed")
        os.pwrite(self._weight_fd, self._weights[0 if deciding else 1], 0)

    def oom_kills(self) -> int:
        """How many processes of the group the kernel killed for exceeding its memory limit."""
        return int(_field(self._read("oom"), b"oom_kill") or 0)

    def memory_hits(self) -> int:
        """How many times the group reached its memory limit with nothing left to reclaim
        (v2: the ``oom`` count of ``memory.events``; v1: ``memory.failcnt``, the times
        its usage hit the limit)."""
        if self.version == V2:
            return int(_field(self._read("oom"), b"oom") or 0)
        return int(self._read("failcnt") or 0)

    def memory_event(self) -> tuple[int, int]:
        """``(fd, poll events)`` that become ready when the group may have had an OOM kill.

        v1: an eventfd (``POLLIN``; drained by :meth:`oom_kills_after_event`);
        v2: ``memory.events`` itself (``POLLPRI``, on any change of it).
        """
        if self.version == V2:
            return self._fds["oom"], select.POLLPRI | select.POLLERR
        return self._fds["oom_event"], select.POLLIN

    def oom_kills_after_event(self, settle_s: float = 0.1) -> int:
        """``oom_kills()`` once the kernel has acted on the event :meth:`memory_event` saw.

        v1 signals before the OOM killer has picked its victim: give it ``settle_s``.
        """
        if self.version == V2:
            return self.oom_kills()
        with contextlib.suppress(BlockingIOError):
            os.read(self._fds["oom_event"], 8)
        deadline = time.monotonic() + settle_s
        while not (kills := self.oom_kills()) and time.monotonic() < deadline:
            time.sleep(0.005)
        return kills

    def remove(self, timeout_s: float = 5.0) -> None:
        """Kill whatever is left in the group, then remove it (idempotent).

        Raises ``CgroupError`` if it still holds processes after ``timeout_s``.
        """
        for fd in [*self._fds.values(), *self._schedstat_fds.values()]:
            os.close(fd)
        self._fds.clear()
        self._schedstat_fds.clear()
        deadline = time.monotonic() + timeout_s
        for directory in set(self.directories.values()):
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as error:
                    if error.errno != errno.EBUSY or time.monotonic() > deadline:
                        raise CgroupError(
                            error.errno, f"cannot remove {directory}: " f"{error.strerror}"
                        ) from None
                for pid in self.pids():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.005)


def _field(data: bytes, name: bytes) -> bytes:
    """The value of ``name`` in a flat-keyed cgroup file (``key value`` lines)."""
    for line in data.splitlines():
        key, _, value = line.partition(b" ")
        if key == name:
            return value.strip()
    return b""


def new_group(limits: Limits, *, version: str, bases: dict[str, Path]) -> BotGroup:
    """A fresh, empty group capped by ``limits`` under ``bases`` (per controller, the
    directory bot groups are made in) of a cgroup ``version`` host
    (``bots.sandbox.cgroup.create`` finds them). Raises ``CgroupError`` if it cannot be
    set up."""
    name = f"{GROUP_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
    directories = {controller: base / name for controller, base in bases.items()}
    made: list[Path] = []
    try:
        for directory in dict.fromkeys(directories.values()):
            directory.mkdir()
            made.append(directory)
        _write_limits(version, directories, limits)
        return BotGroup(version, directories, limits)
    except OSError as error:
        for directory in reversed(made):
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise CgroupError(error.errno, f"cannot set up a bot group: {error}") from None


def _write_limits(version: str | None, directories: dict[str, Path], limits: Limits) -> None:
    memory = str(limits.memory_mb * MIB)
    quota = round(limits.cpu_cores * CPU_PERIOD_US)
    if version == V2:
        group = directories["memory"]
        settings = [
            ("memory.max", memory),
            ("memory.swap.max", "0"),
            ("memory.oom.group", "1"),
            ("pids.max", str(limits.processes)),
            ("cpu.max", f"{quota} {CPU_PERIOD_US}"),
        ]
        for name, value in settings:
            if name != "memory.swap.max" or (group / name).exists():
                (group / name).write_text(value)
        return
    memory_dir = directories["memory"]
    (memory_dir / "memory.limit_in_bytes").write_text(memory)
    if (memory_dir / "memory.memsw.limit_in_bytes").exists():  # swap accounting is on
        (memory_dir / "memory.memsw.limit_in_bytes").write_text(memory)
    (directories["pids"] / "pids.max").write_text(str(limits.processes))
    (directories["cpu"] / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
    (directories["cpu"] / "cpu.cfs_quota_us").write_text(str(quota))
