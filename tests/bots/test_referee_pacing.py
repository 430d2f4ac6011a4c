"""The referee's pacing: every ``act`` on the grid, plus a jitter drawn from the match's
secret seed, and what a bot thinking whole quanta can still tell its partner."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from bench.timing import quanta_channel
from bots.referee import OPEN_LADDER_PACE_MS, InProcessPlayer, TimeControl, pace_draws, play_match
from bots.sdk import Bot

#: Times decisions: run alone, after the parallel part (`make test`).
pytestmark = pytest.mark.serial

VARIANT = "manni-basic"


class Clocked(Bot):
    """Answers at once, noting when each ``act`` reached it (one shared list per table)."""

    name = "clocked"
    needs_observation = False

    def __init__(self, arrivals: list[float]) -> None:
        self.arrivals = arrivals

    def act(self, observation: Any, legal: list[str]) -> str:
        self.arrivals.append(time.perf_counter())
        return legal[0]


def paced_arrivals(*, seed: int, pace_ms: int, pace_jitter: int) -> list[float]:
    arrivals: list[float] = []
    players = [InProcessPlayer(Clocked(arrivals)) for _ in range(3)]
    clock = TimeControl(pace_ms=pace_ms, pace_jitter=pace_jitter)
    play_match(VARIANT, players, games_count=1, seed=seed, time_control=clock)
    return arrivals


def test_each_act_lands_a_quantum_and_the_seeds_jitter_after_the_one_before():
    quantum_ms, jitter = 20, 3
    arrivals = paced_arrivals(seed=7, pace_ms=quantum_ms, pace_jitter=jitter)[:60]
    draws = pace_draws(7, 0)
    expected = [1 + draws.randint(0, jitter) for _ in arrivals[1:]]

    gaps = [(b - a) * 1000 / quantum_ms for a, b in itertools.pairwise(arrivals)]

    # Answers take microseconds: each gap is one quantum plus that act's draw, whole quanta
    # of one grid (a late wake-up of a few ms is not carried over to the next).
    assert [round(g) for g in gaps] == expected
    assert max(abs(g - round(g)) for g in gaps) < 0.4
    assert len(set(expected)) == jitter + 1  # every draw from 0 to 3 extra quanta seen
    offsets = [(t - arrivals[0]) * 1000 / quantum_ms for t in arrivals]
    assert all(abs(o - round(o)) < 0.4 for o in offsets)


def test_the_jitter_follows_the_matchs_seed_and_differs_between_games_and_matches():
    def draws(seed: int, index: int) -> list[int]:
        rng = pace_draws(seed, index)
        return [rng.randint(0, 3) for _ in range(40)]

    assert draws(7, 0) == draws(7, 0)
    assert draws(7, 0) != draws(7, 1)
    assert draws(7, 0) != draws(8, 0)


def test_a_pacing_jitter_is_a_non_negative_whole_number():
    assert TimeControl().pace_jitter == 3
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="pace_jitter must be a non-negative integer"):
            TimeControl(pace_jitter=bad)


def test_a_bot_thinking_whole_quanta_tells_its_partner_less_under_the_ladders_pacing():
    quantum = OPEN_LADDER_PACE_MS
    unpaced = quanta_channel(games=1, pace_ms=0, pace_jitter=0, quantum_ms=quantum)
    on_the_grid = quanta_channel(games=1, pace_ms=quantum, pace_jitter=0)
    paced = quanta_channel(games=1, pace_ms=quantum, pace_jitter=TimeControl().pace_jitter)

    print(
        f"bits a decision: off {unpaced['bits']:.2f}, grid {on_the_grid['bits']:.2f},"
        f" jitter {paced['bits']:.2f}"
    )
    # On the grid alone, 4-bit symbols of whole quanta nearly all come through (unpaced
    # too on a quiet machine, about 3.5 bits; a busy one's scheduling blurs 5 ms quanta by
    # itself, 2.99 in one CI run, so that figure is printed, not held to).
    assert on_the_grid["bits"] > 2.8
    # The jitter's draws blur them: a bit less at the least (bench.timing, with more
    # samples for its receiver to fit, reads about a third of the unpaced bits).
    assert paced["bits"] < min(0.6 * on_the_grid["bits"], on_the_grid["bits"] - 1)
    assert paced["decoded"] < 0.8 * paced["samples"]
