"""Hostile bots in real matches: the referee records the right status and survives.

Each test plays a short manni-basic match between one hostile bot (a program
beside this file, run in the real sandbox) and two built-in random bots.
Afterwards no process of the bot survives, the project tree is unchanged,
and the next match with a well-behaved sandboxed bot runs normally.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from bots.builtin import make
from bots.referee import InProcessPlayer, ProcessPlayer, TimeControl, play_match
from bots.referee.players import BotFault
from bots.sandbox import Limits

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
GOOD = ROOT / "bots" / "examples" / "python"
FAST = TimeControl(move_ms=400, bank_ms=1_500, start_ms=5_000)


def tree_digest() -> str:
    """A digest of the project's source files, to prove nothing outside the sandbox changed."""
    digest = hashlib.sha256()
    paths = [
        *ROOT.glob("games/**/*.py"),
        *ROOT.glob("bots/referee/*.py"),
        *ROOT.glob("bots/sandbox/*.py"),
        *HERE.glob("*.py"),
    ]
    for path in sorted(paths):
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


#: Generous clocks for bots expected to finish their games; FAST for the ones that stall.
CALM = TimeControl(move_ms=3_000, bank_ms=10_000, start_ms=10_000)


def play(bot: ProcessPlayer, games: int = 2, time_control: TimeControl = CALM):
    players = [
        bot,
        InProcessPlayer(make("random", seed=1)),
        InProcessPlayer(make("random", seed=2)),
    ]
    return play_match("manni-basic", players, games_count=games, seed=3, time_control=time_control)


@pytest.fixture
def after_check():
    """Runs the checks every hostile match must pass once it is over."""
    before = tree_digest()
    players: list[ProcessPlayer] = []
    yield players.append
    for bot in players:
        # Over as a match ends it: closed. Before that, a bot that exited by itself can
        # leave its sandbox's init a moment longer (bwrap reports the bot's exit as
        # soon as the bot is gone, before the namespace's init has finished exiting).
        bot.close()
        assert bot.process is not None and bot.process.survivors() == [], "a bot process survived"
    assert tree_digest() == before, "the project tree changed"
    normal = ProcessPlayer.from_path(GOOD)
    result = play(normal, games=1)
    assert result.games[0].statuses[0]["status"] == "ok"
    assert normal.process.survivors() == []


CASES = [
    # (bot file, limits or None, expected status of the first game, later games)
    ("fork_bomb", Limits(processes=32), "ok", "ok"),
    ("memory_hog", Limits(memory_mb=256), "ok", "ok"),
    ("cpu_loop", Limits(cpu_seconds=1), None, None),
    ("sleeper", None, "timeout", "timeout"),
    ("stdout_flood", None, "flood", "flood"),
    ("stderr_flood", None, "ok", "ok"),
    ("garbage", None, "not-ready", "not-ready"),
    ("mute", None, "not-ready", "not-ready"),
    ("network", None, "ok", "ok"),
    ("snoop", None, "ok", "ok"),
    ("writer", Limits(file_size_mb=4, scratch_mb=8), "ok", "ok"),
    ("daemon", None, "ok", "ok"),
    ("parent_killer", None, "crash", "crash"),
    ("chatty", None, "out-of-turn", "out-of-turn"),
    ("illegal", None, "illegal", "illegal"),
    ("deep_json", None, "malformed", "malformed"),
]


@pytest.mark.parametrize(("name", "limits", "first", "later"), CASES, ids=[c[0] for c in CASES])
def test_hostile_bot_in_a_match(after_check, name, limits, first, later):
    """FORFEIT-1, FORFEIT-2, LIMIT-6: the fault is recorded and the match completes."""
    bot = ProcessPlayer.from_path(HERE / f"{name}.py", limits=limits)
    after_check(bot)
    result = play(bot, time_control=FAST if name in ("sleeper", "cpu_loop") else CALM)
    statuses = [g.statuses[0]["status"] for g in result.games]
    assert len(result.games) == 2
    if first is None:  # killed by its CPU limit: seen as a crash or, if slower, a timeout
        assert statuses[0] in ("crash", "timeout") and statuses[1] == statuses[0]
    else:
        assert statuses == [first, later], result.games[0].statuses[0]
    for g in result.games:
        if g.statuses[0]["status"] != "ok":
            assert g.ranking[0] == 3 and g.record["forfeit"]["seat"] == 0
            assert g.statuses[0]["reason"]


def test_a_bot_that_exited_after_its_answer_is_a_crash_when_next_asked(after_check, tmp_path):
    """However soon it exited, its closed stdout is not output out of turn."""
    program = tmp_path / "once.py"
    program.write_text(
        "import json, sys\n"
        "print(json.dumps({'ready': True}), flush=True)\n"
        "for line in sys.stdin:\n"
        "    if json.loads(line)['type'] == 'act':\n"
        "        print(json.dumps({'action': json.loads(line)['legal'][0]}), flush=True)\n"
        "        sys.exit(0)\n"
    )
    bot = ProcessPlayer.from_path(program)
    after_check(bot)
    bot.start({"type": "hello", "variant": "manni-basic", "seat": 0, "players": 3}, 10.0)
    act = {"type": "act", "legal": ["keep", "take"], "observation": {}}
    assert bot.act(act, 10.0) == "keep"
    deadline = time.monotonic() + 10
    while bot.process.alive():  # it has exited before it is asked again
        assert time.monotonic() < deadline
        time.sleep(0.01)

    with pytest.raises(BotFault) as fault:
        bot.act(act, 10.0)
    assert fault.value.status == "crash", fault.value


def test_stderr_flood_log_is_capped(after_check):
    bot = ProcessPlayer.from_path(HERE / "stderr_flood.py", limits=Limits(stderr_bytes=4096))
    after_check(bot)
    result = play(bot, games=1)
    assert 0 < len(bot.log().encode()) <= 4096
    assert result.logs[0] == bot.log() and result.logs[1:] == ["", ""]


def test_a_log_with_a_nul_byte_is_kept_without_it(after_check):
    """A NUL in a bot's stderr would make its match unrecordable on PostgreSQL."""
    bot = ProcessPlayer.from_path(HERE / "nul_log.py")
    after_check(bot)
    result = play(bot, games=1)
    assert result.games[0].statuses[0]["status"] == "ok"
    assert "\x00" not in result.logs[0] and "before\N{REPLACEMENT CHARACTER}after" in result.logs[0]


def test_a_bot_that_stops_reading_its_input_times_out_and_the_match_goes_on(after_check):
    """The referee's writes to a jammed pipe time out: a ``timeout`` fault of that bot
    (never an error of the match), and its processes are killed."""
    bot = ProcessPlayer.from_path(HERE / "jammer.py")
    after_check(bot)
    result = play(bot, games=2)
    statuses = [g.statuses[0] for g in result.games]
    assert len(result.games) == 2 and statuses[-1]["status"] == "timeout"
    assert any("stopped reading its input" in s["reason"] for s in statuses), statuses
    assert not bot.process.alive()


def test_a_bot_that_waits_under_every_ceiling_pays_for_it(after_check):
    """It sleeps just under each move's wall-clock ceiling: charged its sleep, it runs
    out of its bank at once, and the match goes on without it in seconds."""
    bot = ProcessPlayer.from_path(HERE / "staller.py")
    after_check(bot)
    control = TimeControl(move_ms=300, bank_ms=1_000, start_ms=5_000)
    started = time.monotonic()
    result = play(bot, games=2, time_control=control)
    assert time.monotonic() - started < 15
    statuses = [g.statuses[0] for g in result.games]
    assert [s["status"] for s in statuses] == ["timeout", "timeout"]
    assert "time bank exhausted" in statuses[0]["reason"]
    assert bot.charged_ms[0] > 1_900  # 4 x 300 ms + 1 s - 0.15 s slept


class KeptWaiting(ProcessPlayer):
    """As if a loaded machine had kept the bot from running for all of each decision."""

    def waited_ms(self, snapshot):
        return 1e9 if snapshot is not None else None


def test_a_bot_let_off_every_wait_still_runs_out_of_its_match_wall_budget(after_check):
    """Charged nothing of its wall time (all of it a wait for a CPU), it would drag a
    long match on for hours; its wall-clock budget for the match ends it in seconds,
    and the match is recorded."""
    bot = KeptWaiting.from_path(HERE / "staller.py")
    after_check(bot)
    control = TimeControl(move_ms=300, bank_ms=1_000, start_ms=5_000, match_wall_ms=2_500)
    started = time.monotonic()
    result = play(bot, games=2, time_control=control)
    assert time.monotonic() - started < 15
    statuses = [g.statuses[0] for g in result.games]
    assert [s["status"] for s in statuses] == ["timeout", "timeout"]
    assert "wall-clock budget" in statuses[0]["reason"]
    assert sum(getattr(bot, "charged_ms", [])) < 300 * len(bot.charged_ms)  # never charged out


def test_two_bots_cannot_pass_a_hand_through_who_maps_a_shared_page(after_check):
    """The mapcount channel: without Landlock the receiver decodes the sender's hand
    exactly, every move; with it, its own ``pagemap`` is unreadable."""
    sender, receiver = (ProcessPlayer.from_path(HERE / "mapcount.py") for _ in range(2))
    after_check(sender)
    after_check(receiver)
    players = [sender, receiver, InProcessPlayer(make("random", seed=2))]
    result = play_match("manni-basic", players, games_count=1, seed=3, time_control=CALM)
    sent, received = result.logs[0], result.logs[1]
    ok = {"status": "ok", "reason": ""}
    assert "sent " in sent and [g.statuses[:2] for g in result.games] == [[ok, ok]]
    assert "received" not in received and "no count: Permission denied" in received


def test_a_bot_reads_what_runtimes_need_of_proc_and_nothing_that_counts_others():
    bot = ProcessPlayer.from_path(HERE / "proc_reader.py")
    play(bot, games=1)
    readable = dict(line.split(": ", 1) for line in bot.log().splitlines() if ": " in line)
    for path in ("/proc/self/status", "/proc/self/maps", "/proc/meminfo", "/proc/stat"):
        assert readable[path] == "read", path
    for path in (
        "/proc/self/pagemap", "/proc/self/smaps", "/proc/self/smaps_rollup",
        "/proc/self/numa_maps", "/proc/self/cgroup", "/proc/cgroups", "/proc/net/sockstat",
        "/proc/self/mountinfo", "child /proc/self/pagemap", "child /proc/self/status",
    ):  # fmt: skip
        assert readable[path] == "Permission denied", path
