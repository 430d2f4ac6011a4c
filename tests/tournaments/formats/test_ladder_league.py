"""Ladder scheduling and league seasons."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import (
    LadderEntry,
    ladder_tables,
    league_divisions,
    league_next_season,
    league_schedule,
)

candidates = st.lists(
    st.builds(
        LadderEntry,
        entry=st.integers(0, 60),
        recent_games=st.integers(0, 5),
        sigma=st.floats(0.5, 9),
        busy=st.booleans(),
    ),
    unique_by=lambda c: c.entry,
    max_size=25,
)


@given(
    cands=candidates,
    k=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    max_tables=st.none() | st.integers(0, 6),
)
def test_ladder_never_double_books_or_picks_busy(cands, k, seed, max_tables):
    tables = ladder_tables(cands, k, seed=seed, max_tables=max_tables)
    seated = [e for t in tables for e in t]
    assert len(seated) == len(set(seated))
    busy = {c.entry for c in cands if c.busy}
    assert not busy & set(seated)
    free = len(cands) - len(busy)
    assert len(tables) == min(free // k, max_tables if max_tables is not None else free)
    assert tables == ladder_tables(cands, k, seed=seed, max_tables=max_tables)


def test_ladder_prefers_few_recent_games_then_high_sigma():
    cands = [
        LadderEntry("busy-bee", 0, 9, busy=True),
        LadderEntry("veteran", 9, 9),
        LadderEntry("sure", 1, 1),
        LadderEntry("unsure", 1, 8),
        LadderEntry("new", 0, 2),
    ]
    (table,) = ladder_tables(cands, 2, max_tables=1)
    assert set(table) == {"new", "unsure"}


def test_ladder_seed_changes_ties():
    cands = [LadderEntry(i) for i in range(12)]
    picks = {tuple(ladder_tables(cands, 3, seed=s, max_tables=1)[0]) for s in range(6)}
    assert len(picks) > 1


def test_ladder_partners_and_bad_input():
    tables = ladder_tables([LadderEntry(t) for t in "abcde"], 4, partners=True)
    assert len(tables) == 2 and all(t[0] == t[2] for t in tables)
    with pytest.raises(ValueError, match="duplicate"):
        ladder_tables([LadderEntry(1), LadderEntry(1)])


@given(
    n=st.integers(2, 40),
    size=st.integers(2, 9),
    promote=st.integers(0, 2),
    seed=st.integers(0, 100),
)
def test_league_promotion_preserves_entries_and_sizes(n, size, promote, seed):
    ratings = {e: (e * 37 + seed) % 11 for e in range(n)}
    try:
        divisions = league_divisions(list(range(n)), size, ratings=ratings)
    except ValueError as exc:
        assert "leave one below 2" in str(exc)
        return
    sizes = [len(d) for d in divisions]
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= size
    assert sorted(e for d in divisions for e in d) == list(range(n))
    tops = [ratings[d[0]] for d in divisions]
    assert all(
        min(ratings[e] for e in a) >= max(ratings[e] for e in b)
        for a, b in itertools.pairwise(divisions)
    )
    assert tops == sorted(tops, reverse=True)
    last = len(divisions) - 1
    if any(promote * ((d > 0) + (d < last)) > sizes[d] for d in range(len(divisions))):
        with pytest.raises(ValueError):
            league_next_season(divisions, promote=promote)
        return
    nxt = league_next_season(divisions, promote=promote)
    assert [len(d) for d in nxt] == sizes
    assert Counter(e for d in nxt for e in d) == Counter(range(n))
    pairs = zip(itertools.pairwise(divisions), itertools.pairwise(nxt), strict=True)
    for (upper, lower), (new_upper, new_lower) in pairs:
        assert set(lower[:promote]) <= set(new_upper)
        assert set(upper[len(upper) - promote :]) <= set(new_lower)


def test_league_schedule_is_a_round_robin_per_division():
    divisions = league_divisions(list(range(10)), 5)
    schedule = league_schedule(divisions, 2, seed=4)
    assert len(schedule) == 2
    for div, rounds in zip(divisions, schedule, strict=False):
        assert {e for r in rounds for t in r.tables for e in t} == set(div)
    assert schedule == league_schedule(divisions, 2, seed=4)
    assert schedule != league_schedule(divisions, 2, seed=5)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: league_divisions([1, 2, 3], 1), "division_size"),
        (lambda: league_divisions([1, 2, 3, 4], 3, table_size=3), "leave one below 3"),
        (lambda: league_next_season([[1, 2], [3, 4]], promote=1, relegate=2), "must be equal"),
        (lambda: league_next_season([[1, 2], [3, 4]], promote=3), "fewer than"),
    ],
)
def test_league_bad_requests_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
