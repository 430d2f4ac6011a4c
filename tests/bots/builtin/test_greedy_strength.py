"""``greedy`` clearly beats ``random`` in every registered variant.

Setup: one greedy bot and random bots in the other seats, greedy's seat
rotating from game to game (in ``maniglia-4-partners`` greedy holds both
seats of one team, the team alternating). Each game gives greedy a
*pairwise score* in [0, 1]: the share of its opponents it outranks, a tie
counting half (``arena.pairwise_score``). If greedy were no better than
random, the players would be exchangeable and the expected score exactly
1/2. The bound: for independent [0, 1] scores of mean 1/2, the
Chernoff-Hoeffding inequality P(mean >= m) <= exp(-N * KL(m || 1/2)) holds
(a [0, 1] variable is dominated by the Bernoulli of its mean), and each test
requires this bound to be below ``ALPHA`` = 1e-4. The games are seeded, so
the tests are deterministic.

Measured (600 games per variant, seeds 0..599; score = pairwise score,
win share = share of games where greedy ranks first, shared firsts split):

| variant | score | win share | random's share |
|---|---|---|---|
| laugavatnsmanni | 1.000 | 1.000 | 1/3 |
| manni-basic | 0.996 | 0.993 | 1/3 |
| manni-hornafjordur | 0.998 | 0.997 | 1/3 |
| maniglia-3 | 0.806 | 0.613 | 1/3 |
| maniglia-4 | 0.695 | 0.361 | 1/4 |
| maniglia-5 | 0.636 | 0.258 | 1/5 |
| maniglia-4-partners (team) | 0.842 | 0.842 | 1/2 |
| money-jordan | 0.632 | 0.632 | 1/2 |
| money-egypt | 1.000 | 1.000 | 1/2 |
| money-syria | 0.993 | 0.993 | 1/2 |
"""

from __future__ import annotations

import pytest

import games
from tests.bots.builtin.arena import chernoff_p_value, match

ALPHA = 1e-4

#: Games per variant (the whole file stays well under a minute). Each variant's bound is
#: well below ``ALPHA`` at these counts (the highest, maniglia-5 at 0.636 over 300 games:
#: 1.4e-5), so a thousand games a variant, as this file once also played, told nothing
#: more for two minutes of CI.
QUICK_GAMES = {"laugavatnsmanni": 150, "money-egypt": 200}
DEFAULT_QUICK_GAMES = 300


def assert_greedy_wins(variant: str, count: int) -> None:
    scores = match(variant, count)
    mean = sum(scores) / len(scores)
    p_value = chernoff_p_value(mean, len(scores))
    assert (
        p_value < ALPHA
    ), f"{variant}: greedy scores {mean:.3f} over {count} games (p <= {p_value:.2g})"


@pytest.mark.parametrize("variant", games.variants())
def test_greedy_beats_random(variant):
    assert_greedy_wins(variant, QUICK_GAMES.get(variant, DEFAULT_QUICK_GAMES))


def test_the_bound_accepts_a_clear_edge_and_rejects_chance():
    assert chernoff_p_value(0.65, 300) < ALPHA
    assert chernoff_p_value(0.55, 300) > ALPHA
    assert chernoff_p_value(0.40, 300) == 1.0
