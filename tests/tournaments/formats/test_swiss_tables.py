"""Swiss at tables of 2-5 seats: no repeated table while the field allows one, fair byes."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import TableResult, swiss_pair
from tournaments.formats.common import pair_counts


def _ranks(table, outcome, r, i):
    order = sorted(
        dict.fromkeys(table),
        key=lambda e: hashlib.sha256(repr((outcome, r, i, e)).encode()).digest(),
    )
    return tuple(order.index(e) + 1 for e in table)


def _partitions(players, k):
    """Every split of ``players`` into tables of ``k`` (as sets)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for others in itertools.combinations(rest, k - 1):
        table = frozenset((head, *others))
        remaining = [e for e in rest if e not in table]
        for tail in _partitions(remaining, k):
            yield [table, *tail]


def _sides(k, partners):
    return 2 if partners else k


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(2, 5),
    extra=st.integers(0, 6),
    rounds=st.integers(1, 6),
    partners=st.booleans(),
    outcome=st.integers(0, 10**6),
)
def test_swiss_never_repeats_a_table_when_a_pairing_without_one_exists(
    k, extra, rounds, partners, outcome
):
    partners = partners and k == 4
    sides = _sides(k, partners)
    n = sides + extra
    entries, results, byes, played = list(range(n)), [], [], set()
    for r in range(rounds):
        rnd = swiss_pair(entries, k, results, byes=byes, partners=partners)
        seated = [e for t in rnd.tables for e in dict.fromkeys(t)]
        assert len(seated) == len(set(seated)) and not set(seated) & set(rnd.byes)
        assert set(seated) | set(rnd.byes) == set(entries)
        assert len(rnd.byes) == n % sides
        tables = [frozenset(t) for t in rnd.tables]
        assert all(len(t) == sides for t in tables), "no entry twice at one table"
        players = sorted(seated)
        possible = any(
            not set(split) & played for split in itertools.islice(_partitions(players, sides), 5000)
        )
        if possible:
            assert not set(tables) & played, f"round {r + 1} repeats a table: {rnd.tables}"
        played.update(tables)
        byes.extend(rnd.byes)
        bye_counts = Counter(byes)
        assert (
            max(bye_counts.values(), default=0) - min((bye_counts[e] for e in entries), default=0)
            <= 1
        ), "byes rotate: nobody gets a second bye before everybody has one"
        for i, t in enumerate(rnd.tables):
            teams = ((0, 2), (1, 3)) if partners else None
            results.append(TableResult(t, _ranks(t, outcome, r, i), teams))


def test_nine_entries_at_three_seats_play_four_rounds_without_a_repeated_pair():
    entries, results = list(range(9)), []
    for _ in range(4):
        rnd = swiss_pair(entries, 3, results)
        results += [TableResult(t, (1, 2, 3)) for t in rnd.tables]
    assert max(pair_counts(r.table for r in results).values()) == 1


def test_six_entries_at_three_seats_avoid_the_tables_already_played():
    # Round 1 {0,1,2} {3,4,5}; the adjacent choice would seat the leaders together again.
    results = [TableResult((0, 1, 2), (1, 2, 3)), TableResult((3, 4, 5), (1, 2, 3))]
    second = swiss_pair(list(range(6)), 3, results)
    assert not {frozenset(t) for t in second.tables} & {frozenset((0, 1, 2)), frozenset((3, 4, 5))}
    results += [TableResult(t, (1, 2, 3)) for t in second.tables]
    third = swiss_pair(list(range(6)), 3, results)
    played = {frozenset(r.table) for r in results}
    assert not {frozenset(t) for t in third.tables} & played


def test_swiss_repeats_a_table_only_when_every_pairing_does():
    # Three entries at three seats: the one table is all there is, round after round.
    results = [TableResult((0, 1, 2), (1, 2, 3))]
    again = swiss_pair([0, 1, 2], 3, results)
    assert [frozenset(t) for t in again.tables] == [frozenset((0, 1, 2))]
