"""The collusion report's statistics, on simulated tables (no database)."""

from __future__ import annotations

import random

import pytest

from tournaments.ratings.collusion import SeatedTable, collusion_report, holm


def _field(n_tables: int, seed: int, *, strength=None, colluders=(), boost=0.0, entries=6):
    """Tables of three from ``entries`` players who each beat an opponent with a
    probability from their strengths; ``colluders`` seated together take ``boost``
    more of their games against the third seat."""
    rng = random.Random(seed)
    strength = strength or [0.0] * entries
    tables = []
    for _ in range(n_tables):
        seated = rng.sample(range(entries), 3)
        games = 6
        points = [0.0, 0.0, 0.0]
        together = all(c in seated for c in colluders) and colluders
        for _ in range(games):
            for i in range(3):
                for j in range(i + 1, 3):
                    a, b = seated[i], seated[j]
                    p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 4))
                    if together and a in colluders and b not in colluders:
                        p = min(1.0, p + boost)
                    if together and b in colluders and a not in colluders:
                        p = max(0.0, p - boost)
                    if rng.random() < p:
                        points[i] += 1
                    else:
                        points[j] += 1
        tables.append(SeatedTable(tuple(seated), tuple(points), games))
    return tables


def test_holm_steps_down_and_stays_monotone():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]


def test_honest_players_of_different_strength_are_not_flagged():
    strength = [2.0, 1.0, 0.0, 0.0, -1.0, -2.0]
    flagged = 0
    for seed in range(10):
        report = collusion_report(_field(400, seed, strength=strength))
        assert len(report) == 15
        flagged += sum(r.flagged for r in report)
    assert flagged == 0


def test_a_pair_that_plays_for_each_other_is_flagged_and_ranked_first():
    report = collusion_report(_field(300, 7, colluders=(0, 1), boost=0.15))
    top = report[0]
    assert {top.a, top.b} == {0, 1}
    assert top.flagged and top.p_adjusted <= 0.01
    assert top.effect > 0.1
    assert top.others_together < top.others_elsewhere  # the third seat paid for it
    assert not any(r.flagged for r in report[1:])


def test_pairs_that_met_too_rarely_are_not_tested():
    report = collusion_report(_field(20, 1), min_tables=50)
    assert report == []


def test_two_seat_tables_are_left_out():
    tables = [SeatedTable((0, 1), (3.0, 3.0), 6)] * 30
    assert collusion_report(tables) == []
