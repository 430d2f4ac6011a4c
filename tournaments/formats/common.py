"""Shared vocabulary of the tournament formats.

An *entry* is any hashable id (int, str, tuple). A *table* is a tuple of
entries in seat order. A :class:`Round` is a tuple of tables plus the
entries that sit out (byes). Formats take their inputs explicitly (entries,
table size, earlier results, an integer seed) and return the same output for
the same input: randomness only comes from :mod:`games.rng` keyed by the seed
and a purpose string, never from clocks or global random state.

In partnership play (``partners=True``) an entry is a team; a four-seat
table holds two teams, the first at seats 0 and 2, the second at seats 1
and 3, so the table tuple is ``(a, b, a, b)``.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from tournaments.ratings.standings import TableResult

Entry = Hashable
Table = tuple[Entry, ...]

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 5
PARTNER_TABLE_SIZE = 4

__all__ = [
    "MAX_TABLE_SIZE",
    "MIN_TABLE_SIZE",
    "PARTNER_TABLE_SIZE",
    "Entry",
    "Round",
    "Table",
    "TableResult",
    "best_seating",
    "check_entries",
    "check_table_size",
    "derive_seed",
    "pair_counts",
    "partner_table",
    "seat_counts",
]


@dataclass(frozen=True)
class Round:
    """The tables of one round (each in seat order) and the entries with a bye."""

    tables: tuple[Table, ...]
    byes: tuple[Entry, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tables", tuple(tuple(t) for t in self.tables))
        object.__setattr__(self, "byes", tuple(self.byes))

    def entries(self) -> list[Entry]:
        """Every entry of the round once: seated ones in table order, then the byes."""
        seated = dict.fromkeys(e for table in self.tables for e in table)
        return [*seated, *self.byes]


def check_table_size(table_size: int) -> int:
    """``table_size`` if it is an int in 2..5, else ``ValueError``."""
    if not isinstance(table_size, int) or not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise ValueError(
            f"table_size must be an integer from {MIN_TABLE_SIZE} to {MAX_TABLE_SIZE}, "
            f"got {table_size!r}"
        )
    return table_size


def check_entries(entries: Iterable[Entry], *, minimum: int, what: str = "a table") -> list[Entry]:
    """The entries as a list; ``ValueError`` on duplicates, unhashables or too few."""
    out = list(entries)
    try:
        counts = Counter(out)
    except TypeError as exc:
        raise ValueError(f"entries must be hashable ids: {exc}") from None
    dupes = [e for e, c in counts.items() if c > 1]
    if dupes:
        raise ValueError(f"duplicate entries: {dupes}")
    if len(out) < minimum:
        raise ValueError(f"{len(out)} entries are fewer than {what} needs ({minimum})")
    return out


def check_partners(table_size: int, partners: bool) -> int:
    """The number of sides of a table: 2 for partnership play (which needs 4 seats)."""
    if partners:
        if table_size != PARTNER_TABLE_SIZE:
            raise ValueError(f"partners=True needs table_size 4, got {table_size}")
        return 2
    return table_size


def partner_table(team_a: Entry, team_b: Entry) -> Table:
    """The four-seat table of two teams: ``team_a`` at seats 0+2, ``team_b`` at 1+3."""
    return (team_a, team_b, team_a, team_b)


def derive_seed(seed: int, purpose: str) -> int:
    """A 64-bit seed derived from ``seed`` and ``purpose`` with SHA-256."""
    digest = hashlib.sha256(f"cardroom:formats:{seed}:{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def pair_counts(tables: Iterable[Table]) -> Counter[frozenset[Entry]]:
    """How often each unordered pair of distinct entries shared a table."""
    counts: Counter[frozenset[Entry]] = Counter()
    for table in tables:
        for a, b in itertools.combinations(dict.fromkeys(table), 2):
            counts[frozenset((a, b))] += 1
    return counts


def seat_counts(tables: Iterable[Table], seats: int) -> dict[Entry, list[int]]:
    """Per entry, how often it sat at each seat index (first seat for a team entry)."""
    counts: dict[Entry, list[int]] = {}
    for table in tables:
        for e in dict.fromkeys(table):
            counts.setdefault(e, [0] * seats)[table.index(e)] += 1
    return counts


def best_seating(members: Sequence[Entry], counts: dict[Entry, list[int]]) -> Table:
    """The seat order of ``members`` that best evens out their seat counts.

    Minimises the sum over members of the count already at the seat they get
    (so squares of the counts grow least); among equals the earliest
    permutation of ``members`` wins, so the result is deterministic.
    Does not update ``counts``.
    """
    k = len(members)
    best, best_cost = tuple(members), None
    for perm in itertools.permutations(members):
        cost = sum(counts.get(e, [0] * k)[s] for s, e in enumerate(perm))
        if best_cost is None or cost < best_cost:
            best, best_cost = perm, cost
    return best
