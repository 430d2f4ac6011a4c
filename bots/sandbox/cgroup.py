"""One control group per bot: a memory, process and CPU cap on its whole process tree.

A bot's processes (every fork, ``setsid`` child and thread) run in a group of
their own, created by :func:`create` before the bot runs anything and removed
when it is killed. The group caps the memory of the whole bot (anonymous
memory, ``memfd``, tmpfs pages and every child alike), the number of its
processes and its CPU bandwidth, and it counts the bot's CPU time, which the
referee charges to the bot's clock.

Two kinds of host:

- **cgroup v2**: a ``cgroup2`` mount at ``/sys/fs/cgroup`` whose ``memory``,
  ``pids`` and ``cpu`` controllers can be enabled in a subtree we may write.
  As root that is ``/sys/fs/cgroup/cardroom``; otherwise ``CARDROOM_CGROUP``
  (an absolute path) or, when it is unset, our own group if it is delegated
  to us (systemd's ``Delegate=yes``). Each bot gets ``memory.max``,
  ``memory.swap.max = 0``, ``memory.oom.group = 1``, ``pids.max`` and
  ``cpu.max``.

  v2 lets only a group without processes enable controllers for its children
  (``EBUSY`` otherwise). A delegated group, or a container's root group, that
  holds our own process is first emptied: its processes move into the leaf
  ``<group>/platform`` and bot groups become its siblings.
- **cgroup v1**: separate ``memory``, ``pids``, ``cpu`` and ``cpuacct``
  hierarchies we may write (root). Each bot gets ``cardroom/bot-...`` in each
  (``CARDROOM_CGROUP``, a relative path, renames ``cardroom``), with
  ``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes``, ``pids.max``
  and ``cpu.cfs_quota_us``.

:func:`host` says which one this host has, or why neither is usable; a bot's own group
(:class:`BotGroup`) is ``botgroup.py``'s, and importable from here. Pure Python, no
framework.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from .botgroup import CPU_PERIOD_US as CPU_PERIOD_US
from .botgroup import (
    GROUP_PREFIX,
    V1,
    V2,
    BotGroup,
    CgroupError,
    new_group,
)
from .botgroup import WEIGHTS as WEIGHTS
from .limits import Limits

logger = logging.getLogger(__name__)

ROOT = Path("/sys/fs/cgroup")
MOUNTINFO = Path("/proc/self/mountinfo")
SELF_CGROUP = Path("/proc/self/cgroup")
#: Where bot groups are made: v2 an absolute directory, v1 a path under each hierarchy.
BASE_ENV = "CARDROOM_CGROUP"
DEFAULT_NAME = "cardroom"
#: The leaf a group's own processes move into so that it may enable controllers.
LEAF_NAME = "platform"
#: Rounds of moving processes out of a group before giving up (they keep forking).
VACATE_ROUNDS = 20
V2_CONTROLLERS = ("memory", "pids", "cpu")
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
#: Sets :data:`DEFAULT_BASE_WEIGHT` (a whole number from 1 to 10000).
BASE_WEIGHT_ENV = "CARDROOM_SANDBOX_CPU_WEIGHT"
#: CPU weight of the group that holds every bot (``cardroom``), against the machine's
#: other work at the default 100 (v2 ``cpu.weight``; v1 ``cpu.shares``, 1024 for 100):
#: when the CPUs are short, the web tier, the database and the referees run before the
#: bots, so pages and live pushes stay quick while workers play. Bots lose wall time
#: only, never clock: the time a bot waited for a CPU is not charged. Between bots
#: nothing changes (they share the group by their own weights above).
DEFAULT_BASE_WEIGHT = 20


def base_weight() -> int:
    """The bots' group CPU weight (:data:`BASE_WEIGHT_ENV`, default
    :data:`DEFAULT_BASE_WEIGHT`); ``ValueError`` naming the setting if it is not 1..10000."""
    raw = os.environ.get(BASE_WEIGHT_ENV, "").strip()
    if not raw:
        return DEFAULT_BASE_WEIGHT
    if not raw.isdigit() or not 1 <= int(raw) <= 10_000:
        raise ValueError(f"{BASE_WEIGHT_ENV} must be a whole number from 1 to 10000, got {raw!r}")
    return int(raw)


def _weigh_base(version: str, cpu_base: Path) -> None:
    """Give the group holding every bot its CPU weight (:func:`base_weight`); a host that
    refuses it keeps the default weight (logged: bots then compete as equals)."""
    weight = base_weight()
    if version == V2:
        path, value = cpu_base / "cpu.weight", str(weight)
    else:
        path, value = cpu_base / "cpu.shares", str(max(2, weight * 1024 // 100))
    try:
        path.write_text(value)
    except OSError as error:
        logger.warning("cannot set the bots' CPU weight (%s=%s): %s", path, value, error)


@dataclass(frozen=True)
class Host:
    """The cgroup setup of this host: a version and base directories, or why there is none.

    ``bases`` maps each controller to the directory bot groups are created in
    (v2: the same directory for all).
    """

    version: str | None
    bases: dict[str, Path] = field(default_factory=dict)
    reason: str = ""

    @property
    def usable(self) -> bool:
        return self.version is not None

    def describe(self) -> dict:
        return {
            "version": self.version,
            "base": sorted({str(path) for path in self.bases.values()}),
            "reason": self.reason,
            # Whether a decision's waits for a CPU are measured (the referee's charge).
            "run_queue_waits": os.path.exists("/proc/thread-self/schedstat"),
            # The bots' group's CPU weight as the kernel holds it (v1: cpu.shares).
            "cpu_weight": self.cpu_weight(),
        }

    def cpu_weight(self) -> int | None:
        """The CPU weight of the group holding the bots (v1: its ``cpu.shares``), or
        None where there is none or it cannot be read."""
        if not self.usable:
            return None
        name = "cpu.weight" if self.version == V2 else "cpu.shares"
        try:
            return int((self.bases["cpu"] / name).read_text())
        except (OSError, ValueError):
            return None


def host() -> Host:
    """Detect (once per value of ``CARDROOM_CGROUP``) where bot groups can be made here."""
    return _detect(os.environ.get(BASE_ENV) or None)


@functools.cache
def _detect(base: str | None) -> Host:
    found = _try_v2(base)
    if not found.usable and not (base and os.path.isabs(base)):
        v1 = _try_v1(base or DEFAULT_NAME)
        if v1.usable or not found.reason:
            found = v1
        else:
            found = Host(None, reason=f"{found.reason}; {v1.reason}")
    if found.usable:
        _sweep(found)
    return found


def _mounts() -> list[tuple[str, Path, set[str]]]:
    """(type, mount point, super options) of every cgroup mount, from mountinfo."""
    mounts = []
    try:
        lines = MOUNTINFO.read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        left, _, right = line.partition(" - ")
        fs_type, _, options = [*right.split(), "", "", ""][:3]
        if fs_type in ("cgroup", "cgroup2"):
            mounts.append((fs_type, Path(left.split()[4]), set(options.split(","))))
    return mounts


def _try_v2(base: str | None) -> Host:
    if base and os.path.isabs(base):
        directory = Path(base)
        if not (directory / "cgroup.controllers").exists():
            return Host(None, reason=f"{BASE_ENV}={base} is not a cgroup2 directory")
        return _prepare_v2(directory, enable_in=())
    if not any(kind == "cgroup2" and point == ROOT for kind, point, _ in _mounts()):
        return Host(None, reason=f"no cgroup2 mount at {ROOT}")
    if os.geteuid() != 0:
        own = _own_group()
        if own is None or not _delegated_to_us(own):
            return Host(
                None,
                reason=(
                    f"not root and our cgroup {own or '(unknown)'} is not delegated to us: "
                    f"run under systemd with Delegate=yes, or set {BASE_ENV} to a cgroup2 "
                    "directory delegated to us"
                ),
            )
        return _prepare_v2(own, enable_in=())
    found = _prepare_v2(ROOT / DEFAULT_NAME, enable_in=(ROOT,))
    if found.usable:  # our own group: its weight is its parent's (systemd's CPUWeight=)
        _weigh_base(V2, found.bases["cpu"])
    return found


def _own_group() -> Path | None:
    """The v2 group we run in, under ``ROOT``; its parent if we are in its ``platform`` leaf.

    The leaf is where :func:`_vacate` moved us (or a sibling before we were
    forked), or where systemd's ``DelegateSubgroup=platform`` started us.
    """
    try:
        lines = SELF_CGROUP.read_text().splitlines()
    except OSError:
        return None
    relative = next((line[3:] for line in lines if line.startswith("0::")), None)
    if relative is None or not relative.startswith("/") or "/.." in relative:
        return None  # no v2 line, or a group outside our cgroup namespace
    group = ROOT / relative.lstrip("/")
    if group.name == LEAF_NAME and group != ROOT and _delegated_to_us(group.parent):
        return group.parent
    return group


def _delegated_to_us(group: Path) -> bool:
    """Whether we may make child groups in ``group`` and move processes within it."""
    files = [group, group / "cgroup.procs", group / "cgroup.subtree_control"]
    return all(os.access(path, os.W_OK) for path in files)


def _prepare_v2(base: Path, *, enable_in: tuple[Path, ...]) -> Host:
    """Make ``base`` a parent whose children get memory, pids and cpu controllers.

    A group in ``enable_in`` or ``base`` itself that holds our own process is
    emptied into its ``platform`` leaf first (:func:`_enable_vacating`).
    """
    moved: list[Path] = []
    try:
        for parent in enable_in:
            moved += _enable_vacating(parent)
        base.mkdir(exist_ok=True)
        moved += _enable_vacating(base)
    except OSError as error:
        if error.errno == errno.EBUSY:
            return Host(
                None,
                reason=(
                    f"cannot enable controllers under {error.filename or base}: it has "
                    "processes of its own, and ours is not among them (cgroup v2 lets only "
                    "the root or a group without processes have child groups with "
                    f"controllers); point {BASE_ENV} at an empty delegated group or at ours"
                ),
            )
        return Host(None, reason=f"cgroup v2 at {base} is not usable: {error}")
    where = f"cgroup v2 at {base}"
    if moved:
        where += f" (our processes moved to {', '.join(str(leaf) for leaf in moved)})"
    return _checked(Host(V2, {name: base for name in V2_CONTROLLERS}, where))


def _enable_vacating(group: Path) -> list[Path]:
    """``_enable(group)``; if it holds our own process (``EBUSY``), empty it into a leaf first.

    Returns ``[leaf]`` if processes were moved, else ``[]``. Re-raises ``EBUSY``
    when the processes in ``group`` are not ours (we are not among them).
    """
    try:
        _enable(group)
        return []
    except OSError as error:
        if error.errno != errno.EBUSY or os.getpid() not in _procs(group):
            raise
    leaf = _vacate(group)
    _enable(group)
    return [leaf]


def _vacate(group: Path) -> Path:
    """Move every process of ``group`` into ``group/platform``; returns that leaf.

    Every process, not only ours: a Celery worker's parent and its other
    children are in the group too, and one process left behind keeps the
    group from enabling controllers. Safe to run in several of our processes
    at once: the leaf may already exist, a process may already be in it
    (moving it again changes nothing) or be gone (``ESRCH``), and children
    forked meanwhile are caught by the next round. Moving needs write access
    to ``cgroup.procs`` of the group itself, the common ancestor of the
    group and its leaf, which delegation gives us.
    """
    leaf = group / LEAF_NAME
    leaf.mkdir(exist_ok=True)
    for _ in range(VACATE_ROUNDS):
        pids = _procs(group)
        if not pids:
            return leaf
        for pid in pids:
            try:
                _move(pid, leaf)
            except ProcessLookupError:
                continue  # exited since we listed it
            except OSError as error:
                message = f"cannot move pid {pid}: {error.strerror}"
                raise OSError(error.errno, message, str(leaf)) from None
    raise OSError(errno.EAGAIN, f"processes keep appearing in {group}", str(group))


def _move(pid: int, group: Path) -> None:
    """Move process ``pid`` (all its threads) into ``group``."""
    (group / "cgroup.procs").write_text(str(pid))


def _procs(group: Path) -> list[int]:
    """Pids in ``group``'s ``cgroup.procs`` (none if it cannot be read)."""
    try:
        return [int(pid) for pid in (group / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _enable(directory: Path) -> None:
    offered = (directory / "cgroup.controllers").read_text().split()
    missing = [name for name in V2_CONTROLLERS if name not in offered]
    if missing:
        raise OSError(errno.ENOTSUP, f"controllers {missing} not offered", str(directory))
    enabled = (directory / "cgroup.subtree_control").read_text().split()
    wanted = " ".join(f"+{name}" for name in V2_CONTROLLERS if name not in enabled)
    if wanted:
        try:
            (directory / "cgroup.subtree_control").write_text(wanted)
        except OSError as error:
            raise OSError(error.errno, error.strerror, str(directory)) from None


def _try_v1(name: str) -> Host:
    points = {}
    for kind, point, options in _mounts():
        for controller in V1_CONTROLLERS:
            if kind == "cgroup" and controller in options:
                points.setdefault(controller, point)
    missing = [controller for controller in V1_CONTROLLERS if controller not in points]
    if missing:
        return Host(None, reason=f"no cgroup v1 hierarchy for {', '.join(missing)}")
    bases = {controller: point / name for controller, point in points.items()}
    try:
        for base in set(bases.values()):
            base.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return Host(None, reason=f"cgroup v1 hierarchies are not writable: {error}")
    where = ", ".join(str(bases[controller]) for controller in V1_CONTROLLERS)
    found = _checked(Host(V1, bases, f"cgroup v1 at {where}"))
    if found.usable:
        _weigh_base(V1, bases["cpu"])
    return found


def _checked(found: Host) -> Host:
    """``found`` if a group with every limit can actually be made there, else why not."""
    try:
        create(Limits(), found).remove()
    except OSError as error:
        return Host(None, reason=f"{found.reason} refuses a bot group: {error}")
    return found


def _sweep(found: Host) -> None:
    """Remove empty bot groups whose creating process is gone (left by a crash)."""
    for base in set(found.bases.values()):
        with contextlib.suppress(OSError):
            for entry in base.iterdir():
                owner = entry.name.removeprefix(GROUP_PREFIX).split("-")[0]
                mine = entry.name.startswith(GROUP_PREFIX) and owner.isdigit()
                if mine and not _alive(int(owner)):
                    with contextlib.suppress(OSError):
                        entry.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def create(limits: Limits, found: Host | None = None) -> BotGroup:
    """A fresh, empty group capped by ``limits``, on ``found`` (default: this host).

    ``memory_mb`` caps the whole bot's memory, ``processes`` its processes and
    threads, ``cpu_cores`` its CPU bandwidth. Raises ``CgroupError`` if the host
    has no usable cgroup or the group cannot be set up.
    """
    found = found or host()
    if not found.usable:
        raise CgroupError(errno.ENOTSUP, f"no usable cgroup: {found.reason}")
    return new_group(limits, version=found.version, bases=found.bases)
