"""Standings arithmetic: points, wins, games, head-to-head."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.ratings import TableResult, head_to_head, ranks_from_scores, table_points, tally


def test_points_are_pairwise():
    result = TableResult(("a", "b", "c", "d"), (1, 2, 2, 4))
    assert table_points(result) == {"a": 3.0, "b": 1.5, "c": 1.5, "d": 0.0}


def test_partners_are_not_opponents():
    result = TableResult(("a1", "b1", "a2", "b2"), (1, 2, 1, 2), teams=((0, 2), (1, 3)))
    assert table_points(result) == {"a1": 2.0, "b1": 0.0, "a2": 2.0, "b2": 0.0}
    h2h = head_to_head([result])
    assert h2h.get("a1", "a2").games == 0 and h2h.get("a1", "b2").ahead == 1


@given(
    st.lists(
        st.tuples(
            st.permutations(list(range(5))),
            st.integers(2, 5),
            st.lists(st.integers(1, 5), min_size=5, max_size=5),
        ),
        max_size=20,
    )
)
def test_tally_and_head_to_head_are_consistent(games):
    results = [TableResult(tuple(p[:k]), tuple(ranks_from_scores(r[:k]))) for p, k, r in games]
    rows = tally(results, range(5))
    assert sum(r.games for r in rows.values()) == sum(len(x.table) for x in results)
    total = sum(len(x.table) * (len(x.table) - 1) / 2 for x in results)
    assert sum(r.points for r in rows.values()) == total
    h2h = head_to_head(results)
    for (a, b), rec in h2h.pairs.items():
        other = h2h.get(b, a)
        assert rec.games == other.games == rec.ahead + rec.behind + rec.level
        assert (rec.ahead, rec.level) == (other.behind, other.level)
    assert sum(r.wins + r.shared_wins for r in rows.values()) <= len(results) * 5


def test_wins_and_shared_wins():
    rows = tally([TableResult((1, 2), (1, 2)), TableResult((1, 2), (1, 1))])
    assert (rows[1].wins, rows[1].shared_wins, rows[2].wins, rows[2].shared_wins) == (1, 1, 0, 1)


def test_ranks_from_scores_standard_competition():
    assert ranks_from_scores([10, 30, 30, 5]) == [3, 1, 1, 4]


@pytest.mark.parametrize(
    ("table", "ranks", "message"),
    [((1, 2), (1,), "ranks"), ((1, 2), (0, 1), ">= 1"), ((1,), (1,), "at least 2")],
)
def test_bad_results_raise_value_error(table, ranks, message):
    with pytest.raises(ValueError, match=message):
        TableResult(table, ranks)
