"""Elimination brackets: seeding, byes, advancing, double elimination."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import TableResult, double_elimination, layout, single_elimination


def _luck(*parts):
    return hashlib.sha256(repr(parts).encode()).digest()


def _run(bracket, outcome_seed):
    """Play every ready table with a seeded outcome until nothing is left; results."""
    results = {}
    while True:
        ready = bracket.ready(results)
        if not ready:
            return results
        for node_id, table in ready:
            order = sorted(table, key=lambda e: _luck(outcome_seed, node_id, e))
            results[node_id] = TableResult(table, tuple(order.index(e) + 1 for e in table))


def test_standard_two_seat_seeding():
    assert layout(8) == [[1, 8], [4, 5], [2, 7], [3, 6]]
    assert layout(6) == [[1, None], [4, 5], [2, None], [3, 6]]  # top seeds get the byes


@settings(max_examples=40, deadline=None)
@given(
    shape=st.sampled_from([(2, 1), (3, 1), (4, 1), (4, 2), (5, 1)]),
    n=st.integers(2, 40),
    outcome=st.integers(0, 10**6),
)
def test_single_elimination_rounds_take_exactly_the_previous_advancers(shape, n, outcome):
    k, a = shape
    try:
        bracket = single_elimination(list(range(n)), k, advance=a)
    except ValueError as exc:
        assert "cannot seat" in str(exc) or "fewer than" in str(exc)
        return
    results = _run(bracket, outcome)
    assert bracket.champion(results) in range(n)
    advancers = set(range(n))
    for number in range(1, bracket.rounds + 1):
        rnd = bracket.round(number, results)
        entrants = {e for t in rnd.tables for e in t} | set(rnd.byes)
        assert entrants == advancers
        assert all(len(t) == k for t in rnd.tables)
        assert len(rnd.byes) == 0 or number == 1
        node_ids = [nd.id for nd in bracket.nodes if nd.round == number]
        advancers = set(rnd.byes) | {
            e
            for nid in node_ids
            if nid in results
            for e in sorted(results[nid].table, key=results[nid].entry_rank)[:a]
        }
    assert advancers == {bracket.champion(results)} or k > 2


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 33), outcome=st.integers(0, 10**6))
def test_double_elimination_out_after_two_losses(n, outcome):
    bracket = double_elimination([f"e{i}" for i in range(n)])
    results = _run(bracket, outcome)
    champion = bracket.champion(results)
    assert champion is not None
    losses = Counter()
    schedule = sorted(results, key=lambda nid: bracket.by_id[nid].round)
    for node_id in schedule:
        result = results[node_id]
        assert all(losses[e] < 2 for e in result.table), f"{node_id} seats an eliminated entry"
        loser = max(result.table, key=result.entry_rank)
        losses[loser] += 1
    assert losses[champion] <= 1
    assert all(losses[e] == 2 for e in bracket.seeds if e != champion)


def test_double_elimination_reset_final_only_after_upset():
    bracket = double_elimination(["a", "b", "c", "d"])
    results = _run(bracket, 1)
    gf = results["GF"]
    wb_champion = gf.table[0]
    played_reset = "GF2" in results
    assert played_reset == (gf.entry_rank(wb_champion) == 2)


def test_ratings_seed_the_bracket():
    bracket = single_elimination(
        ["low", "high", "mid", "top"], ratings={"low": 1, "high": 3, "mid": 2, "top": 4}
    )
    assert bracket.round(1, {}).tables == (("top", "low"), ("high", "mid"))


def test_results_must_match_the_table():
    bracket = single_elimination([1, 2, 3, 4])
    with pytest.raises(ValueError, match="expected"):
        bracket.states({"R1-0": TableResult((1, 3), (1, 2))})
    with pytest.raises(ValueError, match="before its participants"):
        bracket.states({"R2-0": TableResult((1, 2), (1, 2))})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: single_elimination([1]), "fewer than"),
        (lambda: single_elimination([1, 2, 3, 4], 3), "cannot seat 4 entries"),
        (lambda: single_elimination(list(range(9)), 3, advance=2), "advance must"),
        (lambda: single_elimination([1, 2], ratings={1: 5}), "no rating"),
    ],
)
def test_bad_requests_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_bracket_is_deterministic():
    bracket = single_elimination(list(range(11)))
    assert _run(bracket, 3) == _run(single_elimination(list(range(11))), 3)
