"""Keeping entries apart: no two entries of one relation at one table (fair play).

``apart`` is a collection of unordered pairs (``frozenset({a, b})``) of entries that
may not share a table: bots of one owner, of owners linked as one person, or a pair
an organiser excluded. The formats plan their tables as usual and then pass them
through :func:`separate`, which moves as few entries as it can so that no table
seats such a pair, unless the variant makes the two partners (``teams``: the seat
groups that share a result, and the pair sits in one of them).

Deterministic: the same tables and relation give the same answer.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence

from tournaments.formats.common import Entry, Round, Table

Teams = Sequence[Sequence[int]] | None


class CannotSeparate(ValueError):
    """No seating keeps every pair apart; the message names the pairs that clash."""


def clashes(table: Sequence[Entry], apart: Collection[frozenset], teams: Teams = None) -> list:
    """The pairs of ``apart`` seated at ``table`` other than as partners, in seat order."""
    team_of = {seat: t for t, group in enumerate(teams or ()) for seat in group}
    out = []
    for i, j in itertools.combinations(range(len(table)), 2):
        a, b = table[i], table[j]
        if a == b or frozenset((a, b)) not in apart:
            continue
        if i in team_of and team_of.get(i) == team_of.get(j):
            continue  # the variant makes them partners
        out.append((a, b))
    return out


def _arranged(members: Sequence[Entry], apart, teams: Teams) -> tuple | None:
    """``members`` in their own order if it is clash-free, else the first clash-free
    seat order (only partnerships can help), else None."""
    if not clashes(members, apart, teams):
        return tuple(members)
    if not teams:
        return None
    for perm in itertools.permutations(members):
        if not clashes(perm, apart, teams):
            return perm
    return None


def separate_round(round_: Round, apart: Collection[frozenset], *, teams: Teams = None) -> Round:
    """``round_`` with no table seating a pair of ``apart`` (:func:`separate`); an entry
    with a bye may change places with a seated one."""
    if not apart:
        return round_
    out = separate(round_.tables, apart, teams=teams, spare=round_.byes)
    seated = {e for table in out for e in table}
    byes = [e for e in (*round_.byes, *round_.entries()) if e not in seated]
    return Round(out, tuple(dict.fromkeys(byes)))


def separate(
    tables: Sequence[Table],
    apart: Collection[frozenset],
    *,
    teams: Teams = None,
    strict: bool = True,
    spare: Sequence[Entry] = (),
) -> list[Table]:
    """``tables`` with members swapped between tables until none seats a pair of
    ``apart`` (other than as partners); tables that already do are kept as they are.

    Raises :class:`CannotSeparate` naming a clashing pair when no swap helps and
    ``strict``; without ``strict`` the tables that still clash are left out (a
    ladder batch then seats those entries next time). ``spare`` entries (a round's
    byes) may take the place of a seated entry, which then sits out instead.
    """
    out = [tuple(t) for t in tables]
    if not apart:
        return out
    out.append(tuple(spare))  # the bench: never checked, swapped with like a table
    for _ in range(len(out) * 4 + 4):
        bad = next((i for i, t in enumerate(out[:-1]) if clashes(t, apart, teams)), None)
        if bad is None:
            return out[:-1]
        fixed = _arranged(out[bad], apart, teams)
        if fixed is not None:
            out[bad] = fixed
            continue
        if not _swap_one(out, bad, apart, teams):
            break
    out.pop()
    still = [t for t in out if clashes(t, apart, teams)]
    if strict:
        a, b = clashes(still[0], apart, teams)[0]
        raise CannotSeparate(
            f"entries {a} and {b} may not share a table, and no seating of this round "
            "keeps them apart (enter fewer bots of one owner, or more entries)"
        )
    return [t for t in out if not clashes(t, apart, teams)]


def _swap_one(out: list[Table], bad: int, apart, teams: Teams) -> bool:
    """Swap one clashing member of table ``bad`` with a member of another table (or of
    the bench, ``out[-1]``) so that table ``bad`` clashes less and the other table not
    at all; False if no such swap exists."""
    table = out[bad]
    before = len(clashes(table, apart, teams))
    culprits = dict.fromkeys(e for pair in clashes(table, apart, teams) for e in pair)
    bench = len(out) - 1
    for culprit in reversed(list(culprits)):  # the later seat moves; earlier ones stay
        i = table.index(culprit)
        # Nearest tables first (formats list similar tables side by side: a ladder by
        # rating, Swiss by score); sitting out last, as the format chose the byes.
        for t in [*sorted(range(bench), key=lambda t: (abs(t - bad), t)), bench]:
            other = out[t]
            if t == bad or culprit in other:
                continue
            for j, guest in enumerate(other):
                if guest in table:
                    continue
                mine = table[:i] + (guest,) + table[i + 1 :]
                theirs = other[:j] + (culprit,) + other[j + 1 :]
                b = theirs if t == bench else _arranged(theirs, apart, teams)
                if b is None:
                    continue
                a = _arranged(mine, apart, teams)
                if a is not None or len(clashes(mine, apart, teams)) < before:
                    out[bad], out[t] = (a if a is not None else mine), b
                    return True
    return False
