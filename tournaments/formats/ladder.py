"""Ladder: continuous scheduling of the next tables.

Each candidate carries how many games it played recently, its rating
uncertainty (sigma) and whether it is busy (at a table right now). The
scheduler ranks the free candidates by fewest recent games first, then
highest sigma, then a seeded random tie-break (SHA-256 of seed and entry
position, via :func:`games.rng.shuffled`), and seats them in that order, a
table at a time, with each table's seat order shuffled by the seed. Nobody
busy is picked and nobody is picked twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.rng import shuffled
from tournaments.formats.common import (
    Entry,
    Table,
    check_entries,
    check_partners,
    check_table_size,
    partner_table,
)


@dataclass(frozen=True)
class LadderEntry:
    """A ladder candidate: recent games played, rating sigma, busy flag."""

    entry: Entry
    recent_games: int = 0
    sigma: float = 0.0
    busy: bool = False


def ladder_tables(
    candidates: Sequence[LadderEntry],
    table_size: int = 2,
    *,
    seed: int = 0,
    max_tables: int | None = None,
    partners: bool = False,
) -> list[Table]:
    """The next tables to start, most deserving candidates first (module docstring).

    Returns at most ``max_tables`` tables (as many as the free candidates
    fill when None); with ``partners=True`` candidates are teams and tables
    are ``(a, b, a, b)``. Raises ``ValueError`` for duplicate entries, a bad
    table size, negative ``recent_games`` or ``max_tables``.
    """
    check_table_size(table_size)
    sides = check_partners(table_size, partners)
    check_entries((c.entry for c in candidates), minimum=0)
    if max_tables is not None and max_tables < 0:
        raise ValueError(f"max_tables must be >= 0, got {max_tables}")
    bad = [c.entry for c in candidates if c.recent_games < 0]
    if bad:
        raise ValueError(f"recent_games must be >= 0 for {bad}")
    tiebreak = {
        i: pos for pos, i in enumerate(shuffled(range(len(candidates)), seed, "ladder/tie"))
    }
    free = [i for i, c in enumerate(candidates) if not c.busy]
    free.sort(key=lambda i: (candidates[i].recent_games, -candidates[i].sigma, tiebreak[i]))
    count = len(free) // sides
    if max_tables is not None:
        count = min(count, max_tables)
    tables: list[Table] = []
    for t in range(count):
        members = [candidates[i].entry for i in free[t * sides : (t + 1) * sides]]
        seated = tuple(shuffled(members, seed, f"ladder/seats/{t}"))
        tables.append(partner_table(*seated) if partners else seated)
    return tables
