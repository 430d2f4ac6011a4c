"""Round robin schedules: games, byes, meetings and seats."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import round_robin
from tournaments.formats.common import pair_counts, seat_counts


def _check_rounds(rounds, entries, k):
    for r in rounds:
        seated = [e for t in r.tables for e in dict.fromkeys(t)]
        assert len(seated) == len(set(seated)), f"double-booked in {r}"
        assert set(seated) | set(r.byes) == set(entries)
        assert not set(seated) & set(r.byes)
        assert all(len(t) == k for t in r.tables)


def _games(rounds):
    return Counter(e for r in rounds for t in r.tables for e in dict.fromkeys(t))


@given(n=st.integers(2, 14), legs=st.integers(1, 2), seed=st.integers(0, 2**32))
def test_two_seat_round_robin_meets_everyone_exactly_legs_times(n, legs, seed):
    entries = [f"bot{i}" for i in range(n)]
    rounds = round_robin(entries, 2, legs=legs, seed=seed)
    _check_rounds(rounds, entries, 2)
    assert len(rounds) == legs * (n - 1 + n % 2)
    counts = pair_counts(t for r in rounds for t in r.tables)
    assert all(counts[frozenset(p)] == legs for p in itertools.combinations(entries, 2))
    assert set(_games(rounds).values()) == {legs * (n - 1)}
    for seats in seat_counts((t for r in rounds for t in r.tables), 2).values():
        assert abs(seats[0] - seats[1]) <= (1 if legs == 1 else 0)


@given(n=st.integers(2, 12), seed=st.integers(0, 2**32))
def test_two_seat_byes_are_spread_evenly(n, seed):
    rounds = round_robin(list(range(n)), 2, seed=seed)
    byes = Counter(e for r in rounds for e in r.byes)
    assert set(byes.values()) <= {1} and (len(byes) == n if n % 2 else not byes)


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(3, 5), extra=st.integers(0, 8), legs=st.integers(1, 2), seed=st.integers(0, 99)
)
def test_multi_seat_games_and_byes_differ_by_at_most_one(k, extra, legs, seed):
    n = k + extra
    rounds = round_robin(list(range(n)), k, legs=legs, seed=seed, steps=4000)
    _check_rounds(rounds, range(n), k)
    games = _games(rounds)
    assert len(games) == n
    assert max(games.values()) - min(games.values()) <= 1
    assert min(games.values()) * (k - 1) >= legs * (n - 1)  # enough seats to meet everyone
    byes = Counter({e: 0 for e in range(n)}) + Counter(e for r in rounds for e in r.byes)
    byes.update({e: 0 for e in range(n)})
    assert max(byes.values()) - min(byes.values()) <= 1


@pytest.mark.parametrize(("n", "k"), [(3, 3), (4, 4), (5, 5), (9, 3), (16, 4)])
def test_multi_seat_pair_meetings_balanced_where_a_design_exists(n, k):
    rounds = round_robin(list(range(n)), k, seed=7)
    counts = pair_counts(t for r in rounds for t in r.tables)
    values = [counts[frozenset(p)] for p in itertools.combinations(range(n), 2)]
    assert max(values) - min(values) <= 1 and min(values) >= 1


@pytest.mark.parametrize(("n", "k"), [(6, 3), (8, 4), (10, 5), (12, 3), (7, 3)])
def test_multi_seat_seat_positions_are_balanced(n, k):
    rounds = round_robin(list(range(n)), k, legs=2, seed=3)
    for entry, seats in seat_counts((t for r in rounds for t in r.tables), k).items():
        assert max(seats) - min(seats) <= 2, (entry, seats)


def test_partners_put_teams_on_opposite_seat_pairs():
    teams = ["north", "east", "south", "west", "centre"]
    rounds = round_robin(teams, 4, partners=True, seed=1)
    assert len(rounds) == 5
    meetings = Counter()
    for r in rounds:
        for t in r.tables:
            assert t[0] == t[2] and t[1] == t[3] and t[0] != t[1]
            meetings[frozenset(t)] += 1
        assert len(r.byes) == 1
    assert set(meetings.values()) == {1} and len(meetings) == 10


def test_a_remembered_design_is_the_same_and_callers_cannot_spoil_it():
    first = round_robin(list(range(13)), 3, seed=5)
    first.clear()  # a caller's list is its own
    again = round_robin(list(range(13)), 3, seed=5)
    assert len(again) >= 6 and again == round_robin(list(range(13)), 3, seed=5)


def test_a_large_multi_seat_design_keeps_every_entry_playing_evenly():
    """300 entries at tables of 3 (the search keeps its best state as a journal of swaps)."""
    rounds = round_robin(list(range(300)), 3, seed=1)
    games = Counter(x for r in rounds for table in r.tables for x in table)
    assert len(rounds) == 150 and set(games.values()) == {150}
    pairs = pair_counts(t for r in rounds for t in r.tables)
    # Every entry meets most of the field; the fixed search budget leaves some repeats.
    opponents = Counter(x for pair in pairs for x in pair)
    assert min(opponents.values()) >= 150 and max(pairs.values()) <= 5


def test_same_seed_same_schedule_other_seed_other_schedule():
    a = round_robin(list(range(8)), 2, seed=1)
    assert a == round_robin(list(range(8)), 2, seed=1)
    assert a != round_robin(list(range(8)), 2, seed=2)
    b = round_robin(list(range(7)), 3, seed=1, steps=2000)
    assert b == round_robin(list(range(7)), 3, seed=1, steps=2000)
    assert b != round_robin(list(range(7)), 3, seed=2, steps=2000)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"entries": [1, 2], "table_size": 3}, "fewer than"),
        ({"entries": [1, 2, 3], "table_size": 6}, "table_size"),
        ({"entries": [1, 1, 2], "table_size": 2}, "duplicate"),
        ({"entries": [1, 2], "table_size": 2, "legs": 0}, "legs"),
        ({"entries": [1, 2], "table_size": 2, "partners": True}, "partners=True needs"),
    ],
)
def test_bad_requests_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        round_robin(**kwargs)
