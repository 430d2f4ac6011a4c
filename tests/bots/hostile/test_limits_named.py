"""Every limit named: a bot that one of its limits stopped is told which, and its value
(``killed: over its <limit> of <value>``), never a bare crash or a wall-clock timeout.

Real hostile bots (files beside this one) in the real sandbox, most in a real match
against built-ins: memory in one process (``MemoryError``) and over many processes (the
cgroup), the file size limit (``EFBIG``, which Python and node get instead of
``SIGXFSZ``), and a spinning bot stopped once its CPU time passes its move and bank,
long before the decision's wall-clock ceiling.
"""

from __future__ import annotations

import shutil
import time

import pytest

from bots.builtin import make
from bots.referee import InProcessPlayer, ProcessPlayer, TimeControl, play_match
from bots.referee.players import over_clock_reason
from bots.sandbox import (
    CpuBudgetExceeded,
    FileSizeExceeded,
    Limits,
    MemoryExceeded,
    cgroup,
    resolve,
    spawn,
)

from ..sandbox.driver import HOSTILE, hello, send_act

needs_cgroup = pytest.mark.skipif(
    not cgroup.host().usable,
    reason=f"no usable cgroup on this host ({cgroup.host().reason}): memory over many "
    "processes is capped only by a bot's cgroup",
)
#: A clock that leaves the bots of these tests all the time they need to die of a limit.
ROOMY = TimeControl(move_ms=20_000, bank_ms=20_000, start_ms=10_000)


def match_against_builtins(bot: ProcessPlayer, time_control: TimeControl = ROOMY):
    """One game of manni-basic: ``bot`` at seat 0, two random built-ins."""
    players = [
        bot,
        InProcessPlayer(make("random", seed=1)),
        InProcessPlayer(make("random", seed=2)),
    ]
    return play_match("manni-basic", players, games_count=1, seed=5, time_control=time_control)


def bot_traces(result) -> list[dict]:
    return [t for t in result.games[0].record["traces"] if t["seat"] == 0]


# --- memory ------------------------------------------------------------------------------


def test_a_bot_dying_of_a_memory_error_is_killed_over_its_memory_limit():
    """One process allocating until ``RLIMIT_AS`` refuses: its uncaught ``MemoryError``
    is its memory limit, not a crash "(exit 1)"."""
    bot = ProcessPlayer.from_path(HOSTILE / "memory_error.py", limits=Limits(memory_mb=256))

    result = match_against_builtins(bot)

    assert result.games[0].statuses[0] == {
        "status": "memory",
        "reason": "killed: over its memory limit of 256 MiB",
    }
    assert result.logs[0].rstrip().endswith("MemoryError")  # what told it


def test_the_sandbox_raises_memory_exceeded_for_a_memory_error():
    command, bot_dir = resolve(HOSTILE / "memory_error.py")
    with spawn(command, bot_dir=bot_dir, limits=Limits(memory_mb=256)) as bot:
        hello(bot)
        send_act(bot)

        with pytest.raises(MemoryExceeded, match="^killed: over its memory limit of 256 MiB$"):
            bot.readline(timeout_s=30)
        assert bot.oom_kills() == 0  # the address-space limit, not the group's OOM killer


@needs_cgroup
def test_children_together_over_the_memory_limit_are_killed_over_it():
    """Eight children of 40 MiB each, every one within its own address-space limit: the
    group's OOM kill names the bot's memory limit."""
    bot = ProcessPlayer.from_path(
        HOSTILE / "memory_children.py", limits=Limits(memory_mb=128, processes=32)
    )

    result = match_against_builtins(bot)

    assert result.games[0].statuses[0] == {
        "status": "memory",
        "reason": "killed: over its memory limit of 128 MiB",
    }


# --- file size ---------------------------------------------------------------------------


def test_a_python_bot_writing_past_its_file_size_limit_is_killed_over_it():
    bot = ProcessPlayer.from_path(HOSTILE / "big_file.py", limits=Limits(file_size_mb=1))

    result = match_against_builtins(bot)

    assert result.games[0].statuses[0] == {
        "status": "crash",
        "reason": "killed: over its file size limit of 1 MiB",
    }
    assert "File too large" in result.logs[0]


@pytest.mark.skipif(shutil.which("node", path="/usr/bin") is None, reason="no /usr/bin/node")
def test_a_node_bot_writing_past_its_file_size_limit_is_killed_over_it():
    command, bot_dir = resolve(HOSTILE / "big_file.js")
    with spawn(command, bot_dir=bot_dir, limits=Limits(file_size_mb=1)) as bot:
        hello(bot)
        send_act(bot)

        with pytest.raises(FileSizeExceeded, match="^killed: over its file size limit of 1 MiB$"):
            bot.readline(timeout_s=30)
        assert "EFBIG" in bot.stderr_tail()


# --- CPU time against the clock -----------------------------------------------------------


@pytest.mark.serial
def test_a_spinning_bot_is_stopped_when_its_cpu_time_passes_its_move_and_bank():
    """0.5 s a move and a 1.5 s bank: the decision's wall-clock ceiling is 4 x 2 s + 1 s =
    9 s, but the spinning bot is stopped once it has used its 2 s of CPU time."""
    clock = TimeControl(move_ms=500, bank_ms=1_500, start_ms=10_000)
    bot = ProcessPlayer.from_path(HOSTILE / "cpu_loop.py")

    result = match_against_builtins(bot, clock)

    assert result.games[0].statuses[0] == {
        "status": "timeout",
        "reason": "killed: over its time of 0.5 s move + 1.5 s bank",
    }
    [trace] = bot_traces(result)
    assert 2_000 <= trace["cpu_ms"] < 2_600  # its budget, and a few looks at its CPU time
    assert trace["charged_ms"] < 2_600 and trace["bank_ms"] == 0
    # Stopped by its CPU time, not at the ceiling: on a loaded machine its wall time is
    # longer than its CPU time (it waits for a CPU), which is not charged.
    assert trace["wall_ms"] < clock.wall_ceiling_ms(2_000)


class SpinsAtItsThirdDecision(ProcessPlayer):
    """``close_call`` (it spends 85 % of the move it is told) told a move of 1 s at its
    first two decisions (0.85 s against the referee's 0.5 s: it draws on its bank), then
    a move of a minute."""

    def act(self, message, timeout_s):
        self.decisions = getattr(self, "decisions", 0) + 1
        told_ms = 60_000 if self.decisions >= 3 else 1_000
        return super().act({**message, "move_limit_ms": told_ms}, timeout_s)


@pytest.mark.serial
def test_the_reason_names_the_bank_left_at_that_decision():
    """A bot that thinks 0.85 s a move (over its 0.5 s move) draws on its bank; once it
    spins, the reason says the bank it had left, not the one it started with."""
    clock = TimeControl(move_ms=500, bank_ms=1_500, start_ms=10_000)
    bot = SpinsAtItsThirdDecision.from_path(HOSTILE / "close_call.py")

    result = match_against_builtins(bot, clock)

    traces = bot_traces(result)
    left = traces[-2]["bank_ms"]
    assert 0 < left < 1_500
    assert result.games[0].statuses[0] == {
        "status": "timeout",
        "reason": over_clock_reason(500, left),  # "... 0.5 s move + 0.79 s bank"
    }
    assert left + 500 <= traces[-1]["cpu_ms"] < left + 500 + 600


@pytest.mark.serial
def test_a_read_stops_once_the_bot_has_used_the_cpu_time_it_was_given():
    command, bot_dir = resolve(HOSTILE / "cpu_loop.py")
    with spawn(command, bot_dir=bot_dir) as bot:
        hello(bot)
        until_ns = bot.cpu_time_ns() + 1_000_000_000
        send_act(bot)
        started = time.monotonic()

        with pytest.raises(CpuBudgetExceeded) as stopped:
            bot.readline(timeout_s=30, cpu_until_ns=until_ns)

        assert until_ns <= stopped.value.used_ns < until_ns + 300_000_000
        assert time.monotonic() - started < 10
        assert bot.alive()  # stopped waiting for it; the caller kills it
