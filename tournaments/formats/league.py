"""League seasons: divisions by rating, a round robin each, promotion and relegation.

Initial divisions: entries sorted by rating (highest first, ties keep the
given order) are cut into ``ceil(n / division_size)`` divisions whose sizes
differ by at most one, larger ones on top, none above ``division_size``.
Every division plays a round robin (:func:`round_robin`), with its own seed
derived from the season seed by SHA-256. After the season the bottom
``relegate`` of each division swap places with the top ``promote`` of the
division below; the two must be equal so that division sizes stay.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from tournaments.formats.common import (
    Entry,
    Round,
    check_entries,
    check_partners,
    check_table_size,
    derive_seed,
)
from tournaments.formats.round_robin import round_robin

Division = tuple[Entry, ...]


def league_divisions(
    entries: Sequence[Entry],
    division_size: int,
    *,
    ratings: Mapping[Entry, float] | None = None,
    table_size: int = 2,
    partners: bool = False,
) -> list[Division]:
    """Initial divisions, strongest first (module docstring).

    Raises ``ValueError`` for a division size below one table, missing
    ratings, or a division that would be smaller than a table.
    """
    sides = check_partners(check_table_size(table_size), partners)
    items = check_entries(entries, minimum=sides, what=f"a {sides}-sided table")
    if not isinstance(division_size, int) or division_size < sides:
        raise ValueError(f"division_size must be an integer >= {sides}, got {division_size!r}")
    if ratings is not None:
        missing = [e for e in items if e not in ratings]
        if missing:
            raise ValueError(f"no rating for entries {missing}")
        items = sorted(items, key=lambda e: -ratings[e])
    sizes = division_sizes(len(items), division_size)
    if sizes[-1] < sides:
        raise ValueError(f"{len(items)} entries in {len(sizes)} divisions leave one below {sides}")
    out, start = [], 0
    for size in sizes:
        out.append(tuple(items[start : start + size]))
        start += size
    return out


def league_shuffle(entries: Sequence[Entry], seed: int) -> list[Entry]:
    """``entries`` in a random order that follows from ``seed`` alone (a first season
    seeded at random): the same entries, given in the same order, with the same seed
    come out in the same order."""
    items = check_entries(entries, minimum=0)
    random.Random(derive_seed(seed, "league/seeding")).shuffle(items)
    return items


def division_sizes(entries: int, division_size: int) -> list[int]:
    """The sizes of the divisions ``entries`` entries are cut into: ``ceil(entries /
    division_size)`` of them, differing by at most one, larger ones on top."""
    count = max(1, -(-entries // division_size))
    base, extra = divmod(entries, count)
    return [base + (d < extra) for d in range(count)]


def league_schedule(
    divisions: Sequence[Sequence[Entry]],
    table_size: int = 2,
    *,
    legs: int = 1,
    seed: int = 0,
    partners: bool = False,
) -> list[list[Round]]:
    """The round robin of every division (``result[d]`` is division ``d``'s rounds)."""
    return [
        round_robin(
            list(div),
            table_size,
            legs=legs,
            partners=partners,
            seed=derive_seed(seed, f"league/division/{d}"),
        )
        for d, div in enumerate(divisions)
    ]


def league_next_season(
    final_orders: Sequence[Sequence[Entry]], *, promote: int, relegate: int | None = None
) -> list[Division]:
    """Next season's divisions from each division's final order (best first).

    The top ``promote`` of division ``d + 1`` go up, the bottom ``relegate``
    of division ``d`` go down; order within a division: those relegated
    into it, the stayers in finishing order, then those promoted into it. Raises
    ``ValueError`` if ``promote != relegate``, if an entry would be promoted
    and relegated at once, or if an entry appears twice.
    """
    relegate = promote if relegate is None else relegate
    if promote != relegate:
        raise ValueError(
            f"promote ({promote}) and relegate ({relegate}) must be equal to keep division sizes"
        )
    if promote < 0:
        raise ValueError(f"promote must be >= 0, got {promote}")
    divisions = [list(d) for d in final_orders]
    check_entries((e for d in divisions for e in d), minimum=0)
    for d, div in enumerate(divisions):
        moving = promote * ((d > 0) + (d < len(divisions) - 1))
        if moving > len(div):
            raise ValueError(f"division {d} has {len(div)} entries, fewer than the {moving} moving")
    out: list[list[Entry]] = []
    for d, div in enumerate(divisions):
        up = promote if d > 0 else 0
        down = promote if d < len(divisions) - 1 else 0
        out.append(div[up : len(div) - down])
    for d in range(len(divisions) - 1):
        upper, lower = divisions[d], divisions[d + 1]
        out[d + 1] = [*upper[len(upper) - promote :], *out[d + 1]] if promote else out[d + 1]
        out[d].extend(lower[:promote])
    return [tuple(d) for d in out]
