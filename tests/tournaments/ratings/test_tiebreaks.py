"""Tie-breaks: a chain of steps orders the table, says which step separated two rows, and
shares a rank that nothing separates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.ratings import TableResult, ranks_from_scores, table_points
from tournaments.ratings.tiebreaks import (
    ROUND_ROBIN,
    ROUND_ROBIN_DUPLICATE,
    SWISS,
    chain_for,
    describe_chain,
    order,
    sonneborn_berger,
)


def win(a: str, b: str) -> TableResult:
    return TableResult((a, b), (1, 2))


def draw(a: str, b: str) -> TableResult:
    return TableResult((a, b), (1, 1))


def points_of(results: list[TableResult], entries: str) -> dict[str, float]:
    points = dict.fromkeys(entries, 0.0)
    for result in results:
        for e, p in table_points(result).items():
            points[e] += p
    return points


def ordered(entries, results, chain=ROUND_ROBIN, rating=None):
    points = points_of(results, entries)
    values = {
        "points": points,
        "sonneborn_berger": sonneborn_berger(results, points),
        "rating": rating or dict.fromkeys(entries, 0.0),
    }
    return order(list(entries), chain, values, results)


def test_level_on_points_the_winner_of_their_game_is_above_on_head_to_head():
    # a and b finish level on 2 points and a beat b; d and c on 1 and d beat c.
    results = [win("a", "b"), win("c", "a"), win("a", "d"), win("b", "c"), win("b", "d")]
    results.append(win("d", "c"))
    rows = ordered("bacd", results)  # given b first: the order is the chain's, not the input's

    assert [r.entry for r in rows] == ["a", "b", "d", "c"]
    assert rows[1].separated_by == "head_to_head" and rows[1].rank == 2
    assert not rows[1].shared and rows[0].separated_by is None
    assert rows[0].head_to_head == 1.0 and rows[1].head_to_head == 0.0
    assert rows[2].separated_by == "points"  # 2 points, then 1
    assert rows[3].separated_by == "head_to_head"  # d and c on 1: d beat c


def test_a_tie_nothing_separates_is_shared():
    # a and b drew and did the same against everyone else; same rating.
    results = [draw("a", "b"), win("a", "c"), win("b", "c")]
    rows = ordered("cba", results)

    assert [(r.entry, r.rank, r.shared) for r in rows] == [
        ("b", 1, True),
        ("a", 1, True),
        ("c", 3, False),
    ]
    assert rows[1].separated_by is None and rows[2].separated_by == "points"


def test_a_cycle_among_the_tied_falls_to_sonneborn_berger_then_rating():
    # a, b, c beat each other in a cycle (1 each among them) and all beat d: level on
    # points, head-to-head and Sonneborn-Berger; the rating decides.
    results = [win("a", "b"), win("b", "c"), win("c", "a")]
    results += [win("a", "d"), win("b", "d"), win("c", "d")]
    rows = ordered("abcd", results, rating={"a": 1.0, "b": 3.0, "c": 2.0, "d": 0.0})

    assert [r.entry for r in rows[:3]] == ["b", "c", "a"]
    assert [r.separated_by for r in rows[:3]] == [None, "rating", "rating"]
    assert all(r.head_to_head == 1.0 for r in rows[:3])


def test_sonneborn_berger_counts_the_points_of_those_beaten():
    # a and b drew and are level on 1.5: a beat c (2 points), b beat d (none).
    results = [draw("a", "b"), win("a", "c"), win("c", "d"), win("c", "e"), win("b", "d")]
    rows = ordered("bacde", results)
    sb = sonneborn_berger(results, points_of(results, "abcde"))

    assert (sb["a"], sb["b"]) == (0.5 * 1.5 + 2.0, 0.5 * 1.5)
    assert [r.entry for r in rows[:3]] == ["c", "a", "b"]
    assert rows[2].separated_by == "sonneborn_berger"
    # d and e: no points, never met, nothing to tell them apart.
    assert [(r.rank, r.shared) for r in rows[3:]] == [(4, True), (4, True)]


def test_chains_per_format():
    assert chain_for("round-robin", duplicate=False) == ROUND_ROBIN
    assert chain_for("double-round-robin", duplicate=True) == ROUND_ROBIN_DUPLICATE
    assert "score" in ROUND_ROBIN_DUPLICATE and "sonneborn_berger" not in ROUND_ROBIN_DUPLICATE
    assert chain_for("swiss", duplicate=True) == SWISS
    assert chain_for("ladder", duplicate=False) == ("rating", "points")
    assert chain_for("single-elimination", duplicate=False) == ("placement",)
    assert describe_chain(("points", "head_to_head")) == (
        "points, then head-to-head among the tied"
    )
    with pytest.raises(ValueError, match="no tie-break chain for format 'bridge'"):
        chain_for("bridge", duplicate=False)


def test_a_step_without_values_is_an_error():
    with pytest.raises(ValueError, match="no values given for the tie-break step 'rating'"):
        order(["a"], ("points", "rating"), {"points": {}})
    with pytest.raises(ValueError, match="unknown tie-break step 'coin'"):
        order(["a"], ("coin",), {})


@given(
    st.lists(
        st.tuples(st.permutations(list(range(5))), st.integers(0, 4), st.booleans()),
        max_size=15,
    )
)
def test_the_order_is_by_points_and_ranks_are_standard(games):
    results = [
        TableResult((p[0], p[1]), tuple(ranks_from_scores([1, 1 if level else 0])))
        for p, _, level in games
    ]
    rows = ordered(range(5), results)
    points = points_of(results, range(5))

    assert [points[r.entry] for r in rows] == sorted(points.values(), reverse=True)
    for position, row in enumerate(rows, start=1):
        assert row.rank <= position
        assert row.shared == any(o.rank == row.rank for o in rows if o is not row)
        # A row sharing the rank above says no step; a row below it says one.
        above = rows[position - 2] if position > 1 else None
        assert (row.separated_by is None) == (above is None or above.rank == row.rank)
