"""Ladder matchmaking: who meets whom, how the field mixes and how the order converges."""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats.common import derive_seed, pair_counts
from tournaments.formats.ladder import LadderEntry, LadderParams, ladder_tables
from tournaments.ratings import Rating, rate_game

SETTLED = 1.0  # a sigma after many games


def play_ladder(strengths: list[float], table_size: int, matches: int, seed: int = 1):
    """Batches of ``ladder_tables`` until ``matches`` tables were played.

    The stronger entry always wins (the harshest case for mixing: ratings separate
    fast and stay apart). Returns the tables in order and the final ratings.
    """
    ratings = {e: Rating() for e in range(len(strengths))}
    games = Counter()
    tables: list[tuple[int, ...]] = []
    for number in itertools.count(1):
        candidates = [
            LadderEntry(e, recent_games=games[e], sigma=r.sigma, mu=r.mu)
            for e, r in ratings.items()
        ]
        batch = ladder_tables(
            candidates,
            table_size,
            seed=derive_seed(seed, f"ladder/{number}"),
            recent=tables[-12 * len(strengths) :],
        )
        for table in batch[: matches - len(tables)]:
            ranks = [1 + sum(strengths[o] > strengths[e] for o in table) for e in table]
            ratings.update(rate_game(ratings, table, ranks))
            games.update(table)
            tables.append(table)
        if len(tables) == matches:
            return tables, ratings


@pytest.mark.parametrize("table_size", [2, 3])
def test_nine_entries_meet_every_pair_and_no_pair_far_more_than_the_mean(table_size):
    tables, _ = play_ladder([float(s) for s in range(9)], table_size, matches=150)

    meetings = pair_counts(tables)
    assert len(meetings) == 36  # every pair of the 9 met
    mean = statistics.fmean(meetings.values())
    assert max(meetings.values()) <= 3 * mean


def test_the_strongest_entries_take_the_top_places():
    strengths = [(e * 7) % 12 for e in range(12)]  # a shuffled 0..11
    _, ratings = play_ladder([float(s) for s in strengths], 2, matches=300)

    by_rating = sorted(ratings, key=lambda e: -ratings[e].display)
    by_strength = sorted(ratings, key=lambda e: -strengths[e])
    assert by_rating[:3] == by_strength[:3]


def test_the_ladder_pairs_near_ratings_when_it_does_not_explore():
    quiet = LadderParams(explore=0.0, temperature=0.0)
    cands = [
        LadderEntry(n, sigma=SETTLED, mu=mu)
        for n, mu in [("a", 10), ("b", 40), ("c", 11), ("d", 41)]
    ]

    for seed in range(20):
        tables = ladder_tables(cands, 2, seed=seed, params=quiet)
        assert {frozenset(t) for t in tables} == {frozenset("ac"), frozenset("bd")}


def test_a_recent_rematch_is_avoided_and_forgiven_with_time():
    quiet = LadderParams(explore=0.0, temperature=0.0)
    cands = [
        LadderEntry(n, sigma=SETTLED, mu=mu)
        for n, mu in [("a", 20), ("b", 20), ("c", 21), ("d", 21)]
    ]

    fresh = ladder_tables(cands, 2, recent=[("a", "b"), ("c", "d")], params=quiet)
    assert frozenset("ab") not in {frozenset(t) for t in fresh}
    # Long ago (both played many other tables since), a rematch costs next to nothing.
    others = [("a", f"x{i}") for i in range(30)] + [("b", f"y{i}") for i in range(30)]
    old = ladder_tables(cands, 2, recent=[("a", "b"), *others], params=quiet)
    assert frozenset("ab") in {frozenset(t) for t in old}


def test_exploration_lets_the_strongest_meet_the_weakest():
    cands = [LadderEntry(e, sigma=SETTLED, mu=5.0 * e) for e in range(10)]
    quiet = LadderParams(explore=0.0)

    far = [{frozenset(t) for t in ladder_tables(cands, 2, seed=s)} for s in range(200)]
    never = [
        {frozenset(t) for t in ladder_tables(cands, 2, seed=s, params=quiet)} for s in range(50)
    ]

    assert any(frozenset((0, 9)) in tables for tables in far)
    assert not any(frozenset((0, 9)) in tables for tables in never)


def test_an_exploring_anchor_takes_an_opponent_it_never_met():
    always = LadderParams(explore=1.0)
    cands = [LadderEntry(e, sigma=SETTLED, mu=20.0 + e) for e in range(6)]
    recent = list(itertools.combinations(range(5), 2))  # 5 is the only one new to all

    for seed in range(20):
        first, *_ = ladder_tables(cands, 2, seed=seed, recent=recent, params=always)
        assert 5 in first  # the first anchor met everyone else already (or is 5)


def test_newcomers_and_uncertain_entries_play_first_when_tables_are_few():
    cands = [
        LadderEntry("veteran", recent_games=40, sigma=SETTLED, mu=30),
        LadderEntry("steady", recent_games=8, sigma=2.0, mu=26),
        LadderEntry("unsure", recent_games=8, sigma=6.0, mu=20),
        LadderEntry("new", recent_games=0, sigma=25 / 3, mu=25),
    ]

    (table,) = ladder_tables(cands, 2, max_tables=1)

    assert set(table) == {"new", "unsure"}


ladder_fields = st.lists(
    st.builds(
        LadderEntry,
        entry=st.integers(0, 80),
        recent_games=st.integers(0, 30),
        sigma=st.floats(0.0, 9.0),
        busy=st.booleans(),
        mu=st.floats(-20.0, 70.0),
    ),
    unique_by=lambda c: c.entry,
    max_size=30,
)


@given(
    cands=ladder_fields,
    table_size=st.integers(2, 5),
    partners=st.booleans(),
    seed=st.integers(0, 2**40),
    max_tables=st.none() | st.integers(0, 8),
    recent=st.lists(st.lists(st.integers(0, 80), min_size=2, max_size=5).map(tuple), max_size=40),
)
def test_tables_are_valid_for_any_field(cands, table_size, partners, seed, max_tables, recent):
    partners = partners and table_size == 4
    sides = 2 if partners else table_size
    tables = ladder_tables(
        cands, table_size, seed=seed, max_tables=max_tables, partners=partners, recent=recent
    )

    seated = [e for t in tables for e in dict.fromkeys(t)]
    assert len(seated) == len(set(seated))  # nobody at two tables, nobody twice at one
    assert not {c.entry for c in cands if c.busy} & set(seated)
    free = sum(not c.busy for c in cands)
    assert len(tables) == min(free // sides, math.inf if max_tables is None else max_tables)
    for table in tables:
        assert len(table) == table_size
        if partners:
            a, b, a2, b2 = table
            assert a == a2 and b == b2 and a != b
        else:
            assert len(set(table)) == table_size
    assert tables == ladder_tables(
        cands, table_size, seed=seed, max_tables=max_tables, partners=partners, recent=recent
    )


def test_the_seed_decides_among_equals_and_the_same_seed_repeats():
    cands = [LadderEntry(e, sigma=SETTLED) for e in range(12)]

    draws = {tuple(ladder_tables(cands, 3, seed=s)) for s in range(8)}

    assert len(draws) > 1
    assert ladder_tables(cands, 3, seed=5) == ladder_tables(cands, 3, seed=5)


@pytest.mark.parametrize(
    ("cands", "kwargs", "message"),
    [
        ([LadderEntry(1), LadderEntry(1)], {}, "duplicate entries: \\[1\\]"),
        ([LadderEntry("x", recent_games=-1)], {}, "recent_games must be >= 0 for \\['x'\\]"),
        ([LadderEntry("x", sigma=-0.5)], {}, "sigma must be a finite number >= 0 for \\['x'\\]"),
        ([LadderEntry("x", mu=math.nan)], {}, "mu must be a finite number for \\['x'\\]"),
        ([LadderEntry("x")], {"max_tables": -1}, "max_tables must be >= 0, got -1"),
        ([LadderEntry("x")], {"table_size": 6}, "table_size must be an integer from 2 to 5"),
        ([LadderEntry("x")], {"table_size": 3, "partners": True}, "partners=True needs"),
        ([LadderEntry("x")], {"recent": [5]}, "recent must be tables"),
    ],
)
def test_bad_input_is_refused_with_its_name(cands, kwargs, message):
    with pytest.raises(ValueError, match=message):
        ladder_tables(cands, **kwargs)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"window": 0}, "window must be an integer >= 1, got 0"),
        ({"explore": 1.5}, "explore must be a probability in \\[0, 1\\], got 1.5"),
        ({"temperature": -1.0}, "temperature must be a finite number >= 0, got -1.0"),
        ({"rematch_weight": math.inf}, "rematch_weight must be a finite number >= 0"),
        ({"proximity_weight": -2.0}, "proximity_weight must be a finite number >= 0"),
        ({"rematch_half_life": 0.0}, "rematch_half_life must be a finite number > 0, got 0.0"),
        ({"beta": -4.0}, "beta must be a finite number > 0, got -4.0"),
    ],
)
def test_bad_parameters_are_refused_with_their_name(params, message):
    with pytest.raises(ValueError, match=message):
        LadderParams(**params)
