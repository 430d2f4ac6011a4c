"""Where a version test stands: its players, its SPRT, its counts and its result."""

from __future__ import annotations

import games
from tournaments.models import VersionTest
from tournaments.ratings.confidence import Sprt, SprtResult


def players_of(test: VersionTest) -> int:
    return games.load(test.variant, **test.options).num_players


def sprt_of(test: VersionTest) -> Sprt:
    return Sprt(test.elo0, test.elo1, test.alpha, test.beta)


def counts_of(test: VersionTest) -> dict[float, float]:
    """The stored counts on the full grid of trial scores (``1 / (2 * players)`` steps)."""
    steps = 2 * players_of(test)
    counts = {i / steps: 0.0 for i in range(steps + 1)}
    for score, count in test.counts.items():  # keys are fractions of the grid: "4/6"
        counts[int(score.partition("/")[0]) / steps] += count
    return counts


def result_of(test: VersionTest) -> SprtResult:
    """Where the test stands: LLR, bounds, decision, trials, mean score and its Elo."""
    return sprt_of(test).test(counts_of(test))
