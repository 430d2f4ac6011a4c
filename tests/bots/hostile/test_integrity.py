"""Hostile bots against the information rules: no bot can rebuild a deal or remember one.

Real sandboxed processes in real matches. Each attack is first shown to work
where its precondition holds (a guessable seed; a process kept across the
rotations of a duplicate match), so the test that it fails where the platform
plays can fail too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bots.builtin import make
from bots.referee import InProcessPlayer, ProcessPlayer, TimeControl, play_match
from bots.referee.players import LOG_SEPARATOR
from tournaments.integrity.deals import match_seed_from_secret, new_secret

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
RELAXED = TimeControl(move_ms=10_000, bank_ms=120_000, start_ms=20_000)


def last_report(log: str) -> dict:
    """The last JSON report a hostile bot wrote on stderr."""
    lines = [line for line in log.splitlines() if line.startswith("{")]
    assert lines, f"the bot reported nothing; its log: {log[-2000:]!r}"
    return json.loads(lines[-1])


def reports(log: str) -> list[dict]:
    """The last report of each process of a player (duplicate matches restart it)."""
    return [last_report(part) for part in log.split(LOG_SEPARATOR)]


@pytest.fixture
def rebuilder(tmp_path: Path) -> Path:
    """The deck-rebuilding bot with its bundled copy of the public engines."""
    bot = tmp_path / "rebuilder"
    shutil.copytree(HERE / "rebuilder", bot)
    shutil.copytree(ROOT / "games", bot / "games", ignore=shutil.ignore_patterns("__pycache__"))
    return bot


def play_rebuilder(bot: Path, seed: int) -> dict:
    players = [
        ProcessPlayer.from_path(bot),
        *(InProcessPlayer(make("random", seed=i)) for i in (1, 2)),
    ]
    result = play_match("manni-basic", players, games_count=2, seed=seed, time_control=RELAXED)
    assert {g.statuses[0]["status"] for g in result.games} == {"ok"}
    return last_report(result.logs[0])


@pytest.mark.slow
def test_the_rebuilder_cracks_a_match_whose_seed_it_can_guess(rebuilder):
    """The attack works when the seed is guessable (a small seed an organiser chose)."""
    report = play_rebuilder(rebuilder, seed=1234)
    assert report["cracked"] == [0, 1]


@pytest.mark.slow
def test_no_bot_rebuilds_the_deal_of_a_match_seeded_from_the_secret(rebuilder):
    """Secret deals: with a match seed from a hidden 256-bit secret, nothing the bot
    receives (hello, observations, results) or finds in its environment yields a deal."""
    seed = match_seed_from_secret(new_secret(), competition_id=1, round_number=1, table=0)
    report = play_rebuilder(rebuilder, seed=seed)
    assert report["candidates"] > 2000  # it did look at what it received
    assert report["cracked"] == []


def play_rememberer(*, fresh_rotations: bool) -> list[dict]:
    players = [
        ProcessPlayer.from_path(HERE / "deal_memory.py"),
        *(InProcessPlayer(make("random", seed=i)) for i in (1, 2)),
    ]
    result = play_match(
        "manni-basic",
        players,
        games_count=6,
        seed=77,
        duplicate=True,
        time_control=RELAXED,
        fresh_rotations=fresh_rotations,
    )
    assert {g.statuses[g.seats.index(0)]["status"] for g in result.games} == {"ok"}
    return reports(result.logs[0])


def test_a_bot_kept_across_rotations_would_recognise_the_deals():
    """Precondition: one process playing every rotation meets each deal again."""
    (report,) = play_rememberer(fresh_rotations=False)
    assert report["games"] == [0, 1, 2, 3, 4, 5]
    assert report["repeats"] >= report["deals"] // 3  # the second and third meetings


def test_a_bot_that_remembers_deals_gains_nothing_in_duplicate_mode():
    """Duplicate without memory: each rotation is a fresh process with a fresh /tmp, so
    neither its memory nor a file it left behind shows it a deal it has played."""
    per_process = play_rememberer(fresh_rotations=True)
    assert [r["games"] for r in per_process] == [[0, 1], [2, 3], [4, 5]]
    assert all(r["deals"] > 0 for r in per_process)
    assert [r["repeats"] for r in per_process] == [0, 0, 0]
    assert [r["memory_found"] for r in per_process] == [False, False, False]
