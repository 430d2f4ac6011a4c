"""The validation report says how close a bot came to each of its time budgets (its
slowest decision against the move, the bank, its decisions' wall clock against the
match's budget) and warns of each it used beyond 80 % ("close to its limit"), in the
words ``manage.py validate`` and the bot's page show."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots import sandbox, validation
from bots.referee import GameResult, MatchResult, TimeControl

HOSTILE = Path(__file__).parent / "hostile"
EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "python"
CLOCK = TimeControl(move_ms=2_000, bank_ms=20_000, match_wall_ms=100_000)

needs_sandbox = pytest.mark.skipif(not sandbox.available(), reason="no sandbox on this host")


def trace(seat: int, ply: int, charged_ms: int, wall_ms: int, bank_ms: int) -> dict:
    return {"seat": seat, "ply": ply, "charged_ms": charged_ms, "wall_ms": wall_ms,
            "cpu_ms": charged_ms, "bank_ms": bank_ms}  # fmt: skip


def game(index: int, seats: list[int], traces: list[dict]) -> GameResult:
    players = len(seats)
    ok = [{"status": "ok", "reason": ""}] * players
    return GameResult(index, 0, seats, [0] * players, [1] * players, ok, {"traces": traces})


def match(*games_played: GameResult) -> MatchResult:
    return MatchResult("maniglia-3", {}, 0, True, {}, ["a", "b", "c"], list(games_played))


def test_budget_use_follows_the_bot_round_the_table():
    """Player 1 sits at seat 1, then seat 0 (a duplicate rotation): only its decisions
    count, its slowest is the most charged, its bank is the lowest it fell to."""
    result = match(
        game(0, [0, 1, 2], [trace(0, 0, 9_000, 9_000, 13_000), trace(1, 1, 1_500, 1_600, 20_000)]),
        game(1, [1, 2, 0], [trace(0, 0, 2_300, 2_400, 19_700), trace(0, 3, 400, 500, 19_700)]),
    )

    used = validation.budget_use(result, CLOCK, player=1)

    assert used["slowest"] == {"game": 2, "move": 1, "charged_ms": 2_300}
    assert used["move"] == {"used_ms": 2_300, "limit_ms": 2_000, "share": 1.15}
    assert used["bank"] == {"used_ms": 300, "limit_ms": 20_000, "share": 0.015}
    assert used["match_wall"] == {"used_ms": 4_500, "limit_ms": 100_000, "share": 0.045}
    assert used["close"] == ["move"]


def test_without_a_match_wall_budget_there_is_none_to_report():
    result = match(game(0, [0, 1, 2], [trace(0, 0, 100, 100, 20_000)]))

    used = validation.budget_use(result, TimeControl(), player=0)

    assert "match_wall" not in used and used["close"] == []


def report_with(budget: dict) -> dict:
    found = {"ok": True, "games": 1, "opponents": ["builtin:random"], "duration_s": 1.0,
             "reasons": [], "budget": budget}  # fmt: skip
    return {"ok": True, "variants": {"manni-basic": found}}


def budget(move: float, bank: float, wall: float) -> dict:
    def used(share: float, limit: int) -> dict:
        return {"used_ms": round(share * limit), "limit_ms": limit, "share": share}

    shares = {"move": move, "bank": bank, "match_wall": wall}
    return {
        "slowest": {"game": 2, "move": 14, "charged_ms": round(move * 2_000)},
        "move": used(move, 2_000),
        "bank": used(bank, 20_000),
        "match_wall": used(wall, 450_000),
        "close": [name for name, share in shares.items() if share > 0.8],
    }


def test_the_report_says_how_close_it_came_and_warns_above_80_percent():
    report = report_with(budget(move=0.95, bank=0.3, wall=0.94))

    lines = validation.report_lines(report)

    assert lines[0].startswith("manni-basic: passed")
    assert lines[1] == (
        "manni-basic: slowest decision 1,900 ms (game 2, move 14), 95 % of the 2,000 ms "
        "move; bank 6,000 of 20,000 ms used (30 %); decisions 423.0 s of its 450 s of "
        "wall clock (94 %)."
    )
    assert lines[2] == (
        "manni-basic: close to its limit: its slowest decision used 95 % of the move, its "
        "decisions used 94 % of the match's wall-clock budget."
    )
    assert validation.report_warnings(report) == [lines[2]]


def test_a_bot_at_80_percent_or_less_of_every_budget_is_not_warned():
    report = report_with(budget(move=0.8, bank=0.8, wall=0.5))

    lines = validation.report_lines(report)

    assert not any("close to its limit" in line for line in lines)
    assert validation.report_warnings(report) == []
    assert "80 % of the 2,000 ms move" in lines[1]


def test_a_report_from_before_the_budgets_reads_as_it_did():
    report = report_with(budget(move=0.95, bank=0.3, wall=0.94))
    del report["variants"]["manni-basic"]["budget"]

    assert len(validation.report_lines(report)) == 1
    assert validation.report_warnings(report) == []


# --- a real validation -------------------------------------------------------------------


@needs_sandbox
@pytest.mark.serial
def test_a_bot_thinking_85_percent_of_its_move_passes_with_a_warning():
    """``close_call`` spends 85 % of its move at every decision (CPU time): it passes,
    and the report says its slowest decision came close to the move."""
    clock = TimeControl(move_ms=300, bank_ms=3_000, start_ms=10_000, match_wall_ms=120_000)

    report = validation.validate_program(
        str(HOSTILE / "close_call.py"),
        variants=["maniglia-3"],
        match_time_limit_s=600,
        games_count=1,
        time_control=clock,
    )

    found = report["variants"]["maniglia-3"]
    assert found["ok"], found["reasons"]
    assert found["budget"]["close"] == ["move"]
    assert 0.85 <= found["budget"]["move"]["share"] < 1.0
    [warning] = validation.report_warnings(report)
    assert warning.startswith("maniglia-3: close to its limit: its slowest decision used ")
    assert warning in validation.report_lines(report)


@needs_sandbox
def test_a_quick_bot_passes_without_a_warning():
    report = validation.validate_program(
        str(EXAMPLE), variants=["maniglia-3"], match_time_limit_s=600, games_count=1
    )

    found = report["variants"]["maniglia-3"]
    assert found["ok"], found["reasons"]
    assert found["budget"]["close"] == [] and found["budget"]["move"]["share"] < 0.5
    assert validation.report_warnings(report) == []
