"""Each bot's cgroup against hostile bots, in the real sandbox.

One bot's CPU load must not make another forfeit (the referee charges each
decision the bot's own CPU time); memory that the address-space limit does
not see (``memfd``, tmpfs, many processes) ends the bot as a memory fault;
``pids.max`` holds; every process of a bot is in its group and the group is
gone after the kill; without a usable cgroup, untrusted bots are refused
unless the operator allows it.
"""

from __future__ import annotations

import errno
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bots.builtin import make
from bots.referee import InProcessPlayer, ProcessPlayer, TimeControl, play_match
from bots.sandbox import (
    Limits,
    MemoryExceeded,
    SandboxUnavailable,
    cgroup,
    describe,
    resolve,
    spawn,
)
from bots.sandbox.launch import ALLOW_NO_CGROUP_ENV

from ..sandbox.driver import ECHO_BOT, HOSTILE, act, hello, send_act

#: Measures time or CPU shares: run alone, after the parallel part (`make test`).
pytestmark = pytest.mark.serial

#: The review's clock: 400 ms a move, a 4 s bank.
REVIEW_CLOCK = TimeControl(move_ms=400, bank_ms=4_000, start_ms=10_000)


def start(name: str, limits: Limits | None = None, **options):
    command, bot_dir = resolve(HOSTILE / f"{name}.py")
    bot = spawn(command, bot_dir=bot_dir, limits=limits or Limits())
    hello(bot, options)
    return bot


def group_of(pid: int) -> dict[str, str]:
    """``/proc/<pid>/cgroup`` as controller -> path (v2: key ``""``)."""
    lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    found = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") or [""]:
            found[controller] = path
    return found


def test_host_has_a_usable_cgroup_and_describe_says_which():
    host = cgroup.host()

    assert host.usable, host.reason
    assert host.version in ("v1", "v2")
    assert describe()["cgroup"]["version"] == host.version
    assert describe()["cgroup"]["base"]
    assert describe()["cgroup"]["run_queue_waits"] is True  # the charge in force here


# --- CPU ---------------------------------------------------------------------


class Timed(ProcessPlayer):
    """A process player that also notes each decision's wall time and its final CPU time."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.walls_ms: list[float] = []
        self.final_cpu_ns: int | None = None

    def act(self, message, timeout_s):
        started = time.perf_counter()
        try:
            return super().act(message, timeout_s)
        finally:
            self.walls_ms.append((time.perf_counter() - started) * 1000)

    def close(self) -> None:
        if self.process is not None:
            self.final_cpu_ns = self.process.cpu_time_ns()
        super().close()


#: The victim's match: three one-deal games of maniglia-3, some 45 decisions of the
#: victim (a game of manni-basic is some 220: the same medians, for five times the time).
VICTIM_VARIANT, VICTIM_GAMES = "maniglia-3", 3


def victim_match(opponent: ProcessPlayer | None):
    """A match of the fixed-work victim, ``opponent`` (or a built-in) and a built-in."""
    victim = Timed.from_path(HOSTILE / "fixed_work.py")
    second = opponent or InProcessPlayer(make("random", seed=1))
    players = [victim, second, InProcessPlayer(make("random", seed=2))]
    result = play_match(
        VICTIM_VARIANT, players, games_count=VICTIM_GAMES, seed=5, time_control=REVIEW_CLOCK
    )
    return victim, result


def victim_statuses(result) -> list[str]:
    """The victim's status in each game of its match (the players change seats)."""
    return [g.statuses[g.seats.index(0)]["status"] for g in result.games]


@pytest.mark.slow
def test_cpu_hog_does_not_make_its_opponent_forfeit():
    """60 busy children in their own sessions: the other bot keeps its pace and its games."""
    alone, alone_result = victim_match(None)
    hog = Timed.from_path(HOSTILE / "cpu_hog.py")
    started = time.perf_counter()
    loaded, loaded_result = victim_match(hog)
    hog_wall_s = time.perf_counter() - started

    assert victim_statuses(loaded_result) == ["ok"] * VICTIM_GAMES, loaded_result.games
    assert victim_statuses(alone_result) == ["ok"] * VICTIM_GAMES
    charged_alone = statistics.median(alone.charged_ms)
    charged_loaded = statistics.median(loaded.charged_ms)
    wall_alone = statistics.median(alone.walls_ms)
    wall_loaded = statistics.median(loaded.walls_ms)
    print(
        f"victim per decision, median: alone {wall_alone:.1f} ms wall, {charged_alone:.1f} ms "
        f"charged; beside the hog {wall_loaded:.1f} ms wall, {charged_loaded:.1f} ms charged "
        f"({len(alone.walls_ms)} and {len(loaded.walls_ms)} decisions)"
    )
    assert charged_loaded < 2 * charged_alone
    assert wall_loaded < 2 * wall_alone
    # Charged is the bot's CPU time: never more than its wall time, plus a little for the clock.
    assert all(c <= w + 5 for c, w in zip(loaded.charged_ms, loaded.walls_ms, strict=True))
    # The hog's 60 spinning processes got at most its one-core quota over the whole match.
    assert hog.final_cpu_ns is not None
    assert hog.final_cpu_ns / 1e9 < 1.0 * hog_wall_s * 1.1 + 0.5


def test_a_bot_that_sleeps_pays_for_its_sleep():
    """A bot that sleeps 600 ms a move (over ``move_ms``) is charged its wall time, not
    the little CPU time it used: its bank runs out. (Charged by CPU time with a quarter
    of the wall time as floor, as before, it kept its whole bank and went on.)"""
    bot = Timed.from_path(HOSTILE / "napper.py")
    players = [
        bot,
        InProcessPlayer(make("random", seed=1)),
        InProcessPlayer(make("random", seed=2)),
    ]
    clock = TimeControl(move_ms=400, bank_ms=500, start_ms=10_000)  # 3 to 4 naps

    result = play_match("manni-basic", players, games_count=1, seed=5, time_control=clock)

    status = result.games[0].statuses[0]
    assert status["status"] == "timeout" and "time bank exhausted" in status["reason"], status
    assert len(bot.charged_ms) >= 3
    assert all(c >= 500 for c in bot.charged_ms), bot.charged_ms  # 600 ms slept, less slack


def test_a_loaded_machine_costs_a_bot_nothing():
    """Eight other bots deciding at the same time (spinning, at a deciding bot's full CPU
    weight) keep a bot of fixed work from its CPU: it waits on the run queue, and that
    wait is not charged. Its decisions take far longer than their CPU time, and are
    charged about their CPU time."""
    spinners = [start("cpu_loop") for _ in range(8)]
    try:
        for spinner in spinners:
            spinner.set_deciding(True)
            send_act(spinner)
        time.sleep(0.3)  # all of them spinning
        victim, result = victim_match(None)
    finally:
        for spinner in spinners:
            spinner.kill()

    assert victim_statuses(result) == ["ok"] * VICTIM_GAMES
    wall = statistics.median(victim.walls_ms)
    charged = statistics.median(victim.charged_ms)
    cpu_per_decision = victim.final_cpu_ns / 1e6 / len(victim.walls_ms)
    print(f"median decision: {wall:.1f} ms wall, {charged:.1f} ms charged; "
          f"{cpu_per_decision:.1f} ms CPU on average")  # fmt: skip
    assert wall > 1.5 * cpu_per_decision  # the machine was loaded
    assert charged < 0.75 * wall  # the wait was not charged
    assert charged < 1.5 * cpu_per_decision + TimeControl.WAIT_SLACK_MS


SPIN_SECONDS = 1.5
#: A stand-in for the web tier: spins for SPIN_SECONDS of wall time, prints its CPU share.
WEB_TIER = (
    "import os, time\n"
    f"end = time.monotonic() + {SPIN_SECONDS}\n"
    "while time.monotonic() < end: pass\n"
    "t = os.times(); print((t.user + t.system) / " + str(SPIN_SECONDS) + ")\n"
)


def web_tier_beside_spinning_bots() -> float:
    """How many times the CPU time of two bots spinning at a deciding bot's full weight a
    process outside the bots' group gets, all pinned to one CPU (the bots' group and the
    process compete there, whatever else runs)."""
    cpu = min(os.sched_getaffinity(0))
    kept = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})  # the bots and the stand-in inherit it
    try:
        spinners = [start("cpu_loop") for _ in range(2)]
        try:
            for spinner in spinners:
                spinner.set_deciding(True)
                send_act(spinner)
            time.sleep(0.3)
            before = sum(spinner.cpu_time_ns() for spinner in spinners)
            out = subprocess.run(
                [sys.executable, "-c", WEB_TIER], capture_output=True, text=True, check=True
            )
            bots_s = (sum(spinner.cpu_time_ns() for spinner in spinners) - before) / 1e9
        finally:
            for spinner in spinners:
                spinner.kill()
    finally:
        os.sched_setaffinity(0, kept)
    return float(out.stdout) * SPIN_SECONDS / bots_s


@pytest.fixture
def base_weight(monkeypatch):
    """Set the bots' group weight as a worker starting with ``CARDROOM_SANDBOX_CPU_WEIGHT``
    would (``None``: unset); the host's weight is put back afterwards."""
    host = cgroup.host()
    kept = host.cpu_weight()

    def set_weight(value: str | None) -> int | None:
        if value is None:
            monkeypatch.delenv(cgroup.BASE_WEIGHT_ENV, raising=False)
        else:
            monkeypatch.setenv(cgroup.BASE_WEIGHT_ENV, value)
        cgroup._weigh_base(host.version, host.bases["cpu"])
        return host.cpu_weight()

    yield set_weight
    name = "cpu.weight" if host.version == "v2" else "cpu.shares"
    (host.bases["cpu"] / name).write_text(str(kept))


def test_the_web_tier_runs_before_the_bots_when_the_cpus_are_short(base_weight):
    """The group holding every bot weighs 20 against the rest of the machine's 100 by
    default, so a page or a live push waiting for a CPU beside busy bots gets most of it;
    at an equal weight (100) it gets only as much as the bots' group."""
    default = base_weight(None)
    favoured = web_tier_beside_spinning_bots()
    equal = base_weight("100")
    even = web_tier_beside_spinning_bots()

    print(f"web tier beside two spinning bots: {favoured:.2f} times their CPU time at the "
          f"bots' weight {default}, {even:.2f} times at {equal}")  # fmt: skip
    assert default == (20 if cgroup.host().version == "v2" else 204)
    assert favoured > 3  # 100 / 20 in theory
    assert even < 1.6  # 100 / 100
    assert describe()["cgroup"]["cpu_weight"] == equal


def test_a_bots_weight_out_of_range_is_refused_naming_the_setting(monkeypatch):
    for bad in ("0", "10001", "-5", "heavy"):
        monkeypatch.setenv(cgroup.BASE_WEIGHT_ENV, bad)
        with pytest.raises(ValueError, match="CARDROOM_SANDBOX_CPU_WEIGHT must be a whole"):
            cgroup.base_weight()
    env = {**os.environ, cgroup.BASE_WEIGHT_ENV: "0"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], env=env, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "CARDROOM_SANDBOX_CPU_WEIGHT must be a whole number from 1 to 10000, got '0'" in (
        done.stderr
    )


def test_a_bot_that_blocks_past_the_wall_ceiling_times_out():
    """The ceiling of a CPU-charged move: 4 x (move + bank) + 1 s, here 1.8 s."""
    bot = Timed.from_path(HOSTILE / "sleeper.py")
    players = [
        bot,
        InProcessPlayer(make("random", seed=1)),
        InProcessPlayer(make("random", seed=2)),
    ]
    clock = TimeControl(move_ms=100, bank_ms=100, start_ms=10_000)

    result = play_match("manni-basic", players, games_count=1, seed=5, time_control=clock)

    assert result.games[0].statuses[0] == {
        "status": "timeout",
        "reason": "no answer within 1.800 s",
    }
    assert 1_800 <= bot.walls_ms[0] < 2_500


# --- memory ------------------------------------------------------------------


MEMORY_CASES = [
    # (how the bot fills memory, limits, hello options)
    ("memfd", Limits(memory_mb=128), {"mb": 400}),
    ("tmp", Limits(memory_mb=128, scratch_mb=512), {"mb": 400}),
    ("fork", Limits(memory_mb=128, processes=32), {"mb": 60, "children": 8}),
]


@pytest.mark.parametrize(
    ("how", "limits", "options"), MEMORY_CASES, ids=[c[0] for c in MEMORY_CASES]
)
def test_memory_beyond_the_limit_kills_the_bot(how, limits, options):
    bot = start("memory_fill", limits, how=how, **options)
    group = bot.group
    try:
        with pytest.raises(MemoryExceeded, match="over its memory limit of 128 MiB"):
            act(bot, timeout_s=30)

        assert not bot.alive()
        assert bot.oom_kills() >= 1
        assert bot.survivors() == []
        assert not group.path.exists()
    finally:
        bot.kill()


def test_dev_shm_is_no_way_around_the_memory_limit():
    """``/dev/shm`` is either read-only (bwrap's minimal /dev) or counted like /tmp."""
    bot = start("memory_fill", Limits(memory_mb=128), how="shm", mb=400)
    try:
        try:
            report = act(bot, timeout_s=30)["report"]
        except MemoryExceeded:
            return
        assert report["filled_mb"] is None
        assert "Read-only file system" in report["error"] or "No such file" in report["error"]
    finally:
        bot.kill()


def test_memory_fault_in_a_match_is_status_memory():
    bot = ProcessPlayer.from_path(HOSTILE / "memory_fill.py", limits=Limits(memory_mb=128))
    players = [
        bot,
        InProcessPlayer(make("random", seed=1)),
        InProcessPlayer(make("random", seed=2)),
    ]

    result = play_match("manni-basic", players, games_count=2, seed=3, time_control=REVIEW_CLOCK)

    statuses = [g.statuses[0] for g in result.games]
    assert statuses[0] == {"status": "memory", "reason": "killed: over its memory limit of 128 MiB"}
    assert statuses[1]["status"] == "memory"
    assert result.standings()[0]["statuses"] == {"memory": 2}


def test_single_process_allocation_still_gets_a_clean_memory_error():
    """The common case stays gentle: RLIMIT_AS refuses before the group's OOM killer."""
    bot = start("memory_hog", Limits(memory_mb=256))
    try:
        report = act(bot, timeout_s=30)["report"]

        assert report["refused"] is True
        assert bot.alive() and bot.oom_kills() == 0
    finally:
        bot.kill()


# --- processes and membership --------------------------------------------------


def test_pids_max_holds_for_the_whole_bot():
    bot = start("fork_bomb", Limits(processes=24))
    try:
        report = act(bot, timeout_s=30)["report"]
        pids = bot.group.pids()

        assert report["error"] and report["forked"] < 24
        assert len(pids) <= 24
        pids_dir = bot.group.directories["pids"]
        assert (pids_dir / "pids.max").read_text().strip() == "24"
        assert int((pids_dir / "pids.current").read_text()) <= 24
        # The group's limit refused the fork (bwrap's two processes count there, not
        # for RLIMIT_NPROC, so pids.max is reached first).
        assert (pids_dir / "pids.events").read_text().split() == ["max", "1"]
    finally:
        bot.kill()


def test_every_process_and_thread_of_the_bot_is_in_its_group():
    bot = start("spreader")
    try:
        act(bot)
        expected = bot.group.path.name
        in_namespace = bot.survivors()  # every process in the bot's PID namespace
        tasks = [int(task) for pid in in_namespace for task in os.listdir(f"/proc/{pid}/task")]

        assert len(in_namespace) >= 4  # init, the bot, its child, the daemon
        assert len(tasks) >= len(in_namespace) + 3  # the bot's three threads
        for task in tasks:
            groups = group_of(task)
            for controller in ("memory", "pids", "cpu", "cpuacct") if "memory" in groups else [""]:
                assert groups[controller].endswith("/" + expected), (task, groups)
        assert set(in_namespace) <= set(bot.group.pids())
    finally:
        bot.kill()


def test_the_group_is_removed_when_the_bot_is_killed():
    bot = start("spreader")
    act(bot)
    directories = set(bot.group.directories.values())
    assert all(d.exists() for d in directories)

    bot.kill()

    assert bot.group is None
    assert not any(d.exists() for d in directories)
    assert bot.cpu_time_ns() > 0  # the last count is kept


def test_startup_sweep_removes_empty_groups_of_dead_processes():
    host = cgroup.host()
    gone = cgroup.create(Limits())
    for directory in set(gone.directories.values()):  # as if made by a process now dead
        os.rename(directory, directory.with_name(f"{cgroup.GROUP_PREFIX}999999999-stale"))
    gone.directories = {
        k: d.with_name(f"{cgroup.GROUP_PREFIX}999999999-stale") for k, d in gone.directories.items()
    }
    live = cgroup.create(Limits())
    try:
        cgroup._sweep(host)

        assert not any(d.exists() for d in gone.directories.values())
        assert all(d.exists() for d in live.directories.values())  # ours: kept
    finally:
        live.remove()
        gone.remove()


# --- refusal -------------------------------------------------------------------


def test_without_a_usable_cgroup_untrusted_bots_are_refused(monkeypatch, tmp_path):
    monkeypatch.setenv(cgroup.BASE_ENV, str(tmp_path))  # a plain directory: no cgroup2 there
    monkeypatch.delenv(ALLOW_NO_CGROUP_ENV, raising=False)
    command, bot_dir = resolve(ECHO_BOT)

    assert not cgroup.host().usable
    with pytest.raises(SandboxUnavailable, match=f"not a cgroup2 directory.*{ALLOW_NO_CGROUP_ENV}"):
        spawn(command, bot_dir=bot_dir)
    assert describe()["cgroup"]["reason"].endswith("is not a cgroup2 directory")


def test_the_operator_may_allow_bots_without_a_cgroup(monkeypatch, tmp_path, caplog):
    monkeypatch.setenv(cgroup.BASE_ENV, str(tmp_path))
    monkeypatch.setenv(ALLOW_NO_CGROUP_ENV, "1")
    command, bot_dir = resolve(ECHO_BOT)

    with spawn(command, bot_dir=bot_dir) as bot:
        assert hello(bot) is True
        assert bot.group is None and bot.cpu_time_ns() is None
    assert "WITHOUT A CGROUP" in caplog.text


def test_a_fake_cgroup2_directory_is_detected_as_unusable(monkeypatch, tmp_path):
    """It looks like a delegated v2 group, but the kernel is not behind it."""
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    monkeypatch.setenv(cgroup.BASE_ENV, str(tmp_path))

    found = cgroup.host()

    assert not found.usable
    assert "refuses a bot group" in found.reason
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"


def test_a_v2_group_with_processes_of_its_own_is_refused_with_the_reason(monkeypatch, tmp_path):
    """v2's no-internal-processes rule (EBUSY) is explained, not reported as a bare errno."""

    def busy(directory):
        raise OSError(errno.EBUSY, "Device or resource busy", str(directory))

    monkeypatch.setattr(cgroup, "_enable", busy)

    found = cgroup._prepare_v2(tmp_path, enable_in=())

    assert not found.usable
    assert "has processes of its own" in found.reason and cgroup.BASE_ENV in found.reason


def test_charge_is_wall_time_less_the_waits_never_under_cpu_time():
    clock = TimeControl(move_ms=400, bank_ms=4_000)

    assert clock.charge_ms(wall_ms=5_000.0, cpu_ms=10.0, waited_ms=0.0) == 4_980.0  # it slept
    assert clock.charge_ms(wall_ms=5_000.0, cpu_ms=10.0, waited_ms=4_000.0) == 980.0  # kept out
    assert clock.charge_ms(wall_ms=5_000.0, cpu_ms=3_000.0, waited_ms=4_000.0) == 3_000.0
    assert clock.charge_ms(wall_ms=5_000.0, cpu_ms=10.0) == 2_000.0  # unmeasured: (5000-1000)/2
    assert clock.charge_ms(wall_ms=250.0, cpu_ms=None) == 250.0  # no CPU count: wall time
    assert clock.wall_ceiling_ms(4_400) == 18_600


def test_the_waits_of_a_sandboxed_bot_are_measured_here():
    """The kernel counts each thread's run-queue wait here, so the charge above is the
    one in force (not the fallback), for the bot's threads and the referee's."""
    bot = ProcessPlayer.from_path(HOSTILE / "napper.py")
    bot.start({"type": "hello", "variant": "manni-basic", "seat": 0, "options": {}}, 10)
    try:
        snapshot = bot.wait_snapshot()
        assert snapshot is not None and snapshot[0], snapshot
        assert bot.waited_ms(snapshot) is not None
    finally:
        bot.close()
