"""bench.lanes: each bench worker and its bots in a cgroup of the deployed units' weight."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from bench.lanes import COMPETITIONS_WEIGHT, USERS_WEIGHT, lane_groups


@pytest.fixture
def groups():
    made, reason = lane_groups(f"cardroom-bench-test-{uuid.uuid4().hex[:8]}")
    if made is None:
        pytest.skip(f"no weighted cgroups on this host: {reason}")
    yield made
    made.remove()


def weight(group: Path) -> int:
    """The group's weight on the ``CPUWeight=`` scale (v1 ``cpu.shares`` 1024 is 100)."""
    if (group / "cpu.weight").exists():
        return int((group / "cpu.weight").read_text())
    return round(int((group / "cpu.shares").read_text()) * 100 / 1024)


def test_a_process_started_in_a_lane_runs_there_with_the_lanes_weight(groups):
    competitions = groups.lane("competitions-0", COMPETITIONS_WEIGHT)
    users = groups.lane("users-0", USERS_WEIGHT)
    assert weight(competitions.procs.parent.parent) == COMPETITIONS_WEIGHT
    assert weight(users.procs.parent.parent) in (USERS_WEIGHT, 2)  # v1's floor is 2 shares

    command = ["sh", "-c", 'echo $$ > "$0" && exec sleep 30', str(users.procs)]
    process = subprocess.Popen(command)
    try:
        for _ in range(100):
            if str(process.pid) in users.procs.read_text().split():
                break
            subprocess.run(["sleep", "0.05"])
        assert str(process.pid) in users.procs.read_text().split()
        joined = Path(f"/proc/{process.pid}/cgroup").read_text()
        assert f"/{groups.run}/users-0/worker" in joined
    finally:
        process.kill()
        process.wait()


def test_the_lanes_bots_are_made_under_it_and_everything_is_removed_after(groups):
    from bots.sandbox import cgroup
    from bots.sandbox.limits import Limits

    lane = groups.lane("users-0", USERS_WEIGHT)
    found = cgroup._detect(lane.env["CARDROOM_CGROUP"])  # as the lane's worker sees it
    assert found.usable, found.reason
    bots = lane.procs.parent.parent / "bots"
    bot = cgroup.create(Limits(), found)
    try:
        assert found.bases["cpu"] == bots and len(list(bots.glob("bot-*"))) == 1
    finally:
        bot.remove()
    cgroup._detect.cache_clear()

    groups.remove()
    left = [p for root in Path("/sys/fs/cgroup").glob("**/") if (p := root / groups.run).exists()]
    assert left == [] and not (groups.cpu_root / groups.run).exists()


def test_an_ordinary_user_gets_no_groups_and_is_told_why(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert lane_groups("cardroom-bench-never") == (None, "not root")
