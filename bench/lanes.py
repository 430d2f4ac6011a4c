"""The deployed CPU weights for a bench's workers: each worker in a control group of its own.

The systemd units weigh each worker's cgroup, which holds the worker and its bots
(``CPUWeight=20`` per competitions' worker, ``2`` for the users' lane, against 100 for
the web tier, the database and the rest; compose's ``cpu_shares`` 205 and 20 against
1024). A bench that starts its workers as plain processes can tell them apart by
niceness only, whose weights are much closer (110 at niceness 10, 15 at 19), and the
bots of every worker then share one group (``cardroom``). :class:`LaneGroups` gives
each worker the deployed layout instead: a group ``<run>/<lane>`` of the lane's
weight, holding the worker (in its leaf ``worker``) and its bots (``bots``, as
``CARDROOM_CGROUP``). It needs root and a writable ``cpu`` controller (cgroup v1's
``cpu`` hierarchy, or v2's root); :func:`lane_groups` says why not where there is none,
and the bench then runs its workers as plain processes. The groups are removed when
the workers are gone.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox import cgroup

#: The deployed units' weights (deploy/systemd): per competitions' worker and for the
#: users' lane, against 100 for everything else.
COMPETITIONS_WEIGHT = 20
USERS_WEIGHT = 2


@dataclass(frozen=True)
class Lane:
    """One worker's group: the file its process joins and the environment for its bots."""

    procs: Path
    env: dict[str, str]


class LaneGroups:
    """The groups of one bench run, under ``<run>`` in the host's ``cpu`` controller."""

    def __init__(self, version: str, cpu_root: Path, run: str) -> None:
        self.version = version
        self.cpu_root = cpu_root
        self.run = run

    def lane(self, name: str, weight: int) -> Lane:
        """Make ``<run>/<name>`` of CPU ``weight`` (1 to 10000, as ``CPUWeight=``)."""
        group = self.cpu_root / self.run / name
        (group / "worker").mkdir(parents=True, exist_ok=True)
        if self.version == "v2":
            for parent in (group.parent, group):
                cgroup._enable(parent)  # memory, pids and cpu for the children, as the sandbox
            (group / "cpu.weight").write_text(str(weight))
            bots = str(group / "bots")  # v2: an absolute directory
        else:
            (group / "cpu.shares").write_text(str(max(2, weight * 1024 // 100)))
            bots = f"{self.run}/{name}/bots"  # v1: a path under each hierarchy
        return Lane(group / "worker" / "cgroup.procs", {"CARDROOM_CGROUP": bots})

    def remove(self) -> None:
        """Remove every group of the run, the bots' bases in each hierarchy included, once
        their processes are gone (best effort: a group still holding one stays)."""
        roots = {self.cpu_root}
        if self.version == "v1":  # the bots' bases are in every hierarchy the sandbox uses
            roots |= {self.cpu_root.parent / name for name in cgroup.V1_CONTROLLERS}
        for root in roots:
            run = root / self.run
            if not run.is_dir():
                continue
            for directory in sorted(run.rglob("*"), key=lambda p: -len(p.parts)):
                if directory.is_dir():
                    with contextlib.suppress(OSError):
                        directory.rmdir()
            with contextlib.suppress(OSError):
                run.rmdir()


def lane_groups(run: str) -> tuple[LaneGroups | None, str]:
    """The run's groups and where they are, or None and why this host has none."""
    if os.geteuid() != 0:
        return None, "not root"
    found = cgroup.host()
    if not found.usable:
        return None, f"no usable cgroup: {found.reason}"
    if found.version == "v2":
        root = cgroup.ROOT
        if found.bases["cpu"].parent != root:
            return None, f"bot groups at {found.bases['cpu']}, not under {root}"
    else:
        root = found.bases["cpu"].parent  # the cpu hierarchy's mount point
    groups = LaneGroups(found.version, root, run)
    try:  # a first lane proves the host lets us make them
        groups.lane("probe", 100)
    except OSError as error:
        groups.remove()
        return None, f"cannot make a weighted group under {root}: {error}"
    groups.remove()
    return groups, f"cgroup {found.version} at {root / run}"
