"""Swiss system: standings with tie-breaks, and pairing of the next round.

Standings order entries by points (pairwise, see
:mod:`tournaments.ratings.standings`; a bye scores ``bye_points``, by
default a win at a full table: ``table_size - 1``, or 1 for partnerships),
then by the chosen tie-breaks in order, then head-to-head among the entries
still level, then seed (the order of ``entries``).

- Buchholz: the sum of the current points of every opponent met, once per
  table (a bye adds nothing).
- Median-Buchholz: the same without the highest and the lowest value (when
  there are at least three).
- Sonneborn-Berger: the sum over opponents met of (pairwise points scored
  against that opponent at that table) times (the opponent's points).
- Head-to-head: pairwise points scored against the other level entries.

Pairing is the adjacent Swiss: byes go to the lowest-ranked entries without
a previous bye (fewest byes first); the others form tables from the top of
the standings down, so tables hold entries of similar score. A depth-first
search allows a total "repeat budget" of 0, 1, 2... pair meetings that
happened before and returns the first pairing within the smallest budget, so
with two seats no one meets an earlier opponent again when that can be
avoided (within ``max_nodes`` search steps per budget). With more seats each
table is chosen among the next ``window`` candidates, and a *repeated table*
(the same set of entries at one table again) is never formed while a
pairing without one is found: first within the window, then, for fields
small enough to search over all candidates (``EXHAUSTIVE_OPTIONS`` tables a
step: up to about 32 entries at 3 seats, 15 at 4, 13 at 5), over the whole
field, which settles whether such a pairing exists for the players of the
round (the byes are chosen first). Only when none exists are repeated tables
allowed. Seats are ordered to even out seat counts, the higher ranked entry
first on ties. No randomness is used.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from math import comb

from tournaments.formats.apart import separate_round
from tournaments.formats.common import (
    Entry,
    Round,
    Table,
    best_seating,
    check_entries,
    check_partners,
    check_table_size,
    partner_table,
    seat_counts,
)
from tournaments.ratings.standings import TableResult, head_to_head, pair_score, table_points

#: Candidate tables per step up to which a field is searched over all candidates.
EXHAUSTIVE_OPTIONS = 500
TIEBREAKS = ("buchholz", "median_buchholz", "sonneborn_berger")
DEFAULT_TIEBREAKS = ("buchholz", "sonneborn_berger")


@dataclass(frozen=True)
class StandingRow:
    """One line of the standings; ``rank`` is the position, 1 = top."""

    rank: int
    entry: Entry
    points: float
    games: int
    byes: int
    buchholz: float
    median_buchholz: float
    sonneborn_berger: float
    head_to_head: float


def _check_tiebreaks(tiebreaks: Sequence[str]) -> tuple[str, ...]:
    unknown = [t for t in tiebreaks if t not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tie-breaks {unknown}; choose from {list(TIEBREAKS)}")
    return tuple(tiebreaks)


def swiss_standings(
    entries: Sequence[Entry],
    results: Iterable[TableResult] = (),
    *,
    byes: Iterable[Entry] = (),
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    table_size: int = 2,
    partners: bool = False,
    bye_points: float | None = None,
) -> list[StandingRow]:
    """The standings table, best first (order described in the module docstring).

    ``byes`` lists the entries that had a bye, once per bye. Raises
    ``ValueError`` for unknown tie-breaks or results/byes naming unknown entries.
    """
    items = check_entries(entries, minimum=1, what="standings")
    tbs = _check_tiebreaks(tiebreaks)
    results = list(results)
    seed = {e: i for i, e in enumerate(items)}
    sides = check_partners(check_table_size(table_size), partners)
    bye_value = float(sides - 1) if bye_points is None else float(bye_points)
    points = dict.fromkeys(items, 0.0)
    games, bye_count = Counter[Entry](), Counter[Entry](byes)
    for e in bye_count:
        if e not in seed:
            raise ValueError(f"bye for unknown entry {e!r}")
        points[e] += bye_value * bye_count[e]
    for result in results:
        for e, p in table_points(result).items():
            if e not in seed:
                raise ValueError(f"result names unknown entry {e!r}: {result.table}")
            points[e] += p
            games[e] += 1
    opp_points: dict[Entry, list[float]] = {e: [] for e in items}
    sb = dict.fromkeys(items, 0.0)
    for result in results:
        for e in result.entries():
            for o in result.opponents(e):
                opp_points[e].append(points[o])
                sb[e] += pair_score(result, e, o) * points[o]
    buchholz = {e: sum(v) for e, v in opp_points.items()}
    median = {e: sum(sorted(v)[1:-1]) if len(v) >= 3 else sum(v) for e, v in opp_points.items()}
    values = {"buchholz": buchholz, "median_buchholz": median, "sonneborn_berger": sb}

    def key(e: Entry) -> tuple[float, ...]:
        return (-points[e], *(-values[t][e] for t in tbs))

    ordered = sorted(items, key=lambda e: (key(e), seed[e]))
    h2h = head_to_head(results)
    h2h_score = dict.fromkeys(items, 0.0)
    final: list[Entry] = []
    for _, group_iter in itertools.groupby(ordered, key=key):
        group = list(group_iter)
        for e in group:
            h2h_score[e] = float(sum(h2h.get(e, o).score for o in group if o != e))
        final.extend(sorted(group, key=lambda e: (-h2h_score[e], seed[e])))
    return [
        StandingRow(
            rank=i + 1,
            entry=e,
            points=points[e],
            games=games[e],
            byes=bye_count[e],
            buchholz=buchholz[e],
            median_buchholz=median[e],
            sonneborn_berger=sb[e],
            head_to_head=h2h_score[e],
        )
        for i, e in enumerate(final)
    ]


class _Pairer:
    """Depth-first search for tables of ``k`` with at most ``budget`` repeated meetings.

    With ``played`` given, a table whose set of entries already played
    together is never formed.
    """

    def __init__(
        self,
        met: Counter[frozenset[Entry]],
        k: int,
        window: int,
        max_nodes: int,
        played: frozenset[frozenset[Entry]] = frozenset(),
    ):
        self.met, self.k, self.window, self.max_nodes = met, k, window, max_nodes
        self.played = played
        self.nodes = 0

    def repeats(self, table: Sequence[Entry]) -> int:
        return sum(self.met[frozenset(p)] for p in itertools.combinations(table, 2))

    def search(self, ranked: list[Entry], budget: int) -> list[tuple[Entry, ...]] | None:
        if not ranked:
            return []
        self.nodes += 1
        if self.nodes > self.max_nodes:
            return None
        head, rest = ranked[0], ranked[1:]
        pool = rest if self.k == 2 else rest[: self.window]
        options = []
        for combo in itertools.combinations(range(len(pool)), self.k - 1):
            table = (head, *(pool[i] for i in combo))
            if self.played and frozenset(table) in self.played:
                continue
            cost = self.repeats(table)
            if cost <= budget:
                options.append((cost, sum(combo), table))
        options.sort(key=lambda o: (o[0], o[1]))
        for cost, _, table in options:
            remaining = [e for e in rest if e not in table]
            found = self.search(remaining, budget - cost)
            if found is not None:
                return [table, *found]
            if self.nodes > self.max_nodes:
                return None
        return None


def _pair_tables(
    playing: list[Entry],
    met: Counter[frozenset[Entry]],
    played: frozenset[frozenset[Entry]],
    k: int,
    window: int,
    max_nodes: int,
) -> list[tuple[Entry, ...]]:
    """Tables for ``playing`` (ranked): no repeated table if the search finds such a pairing.

    First the adjacent search (candidates within the window) without repeated
    tables; if it finds none and the field is small enough
    (``EXHAUSTIVE_OPTIONS``), the search over all candidates, which settles
    whether a pairing without a repeated table exists; only then are repeated
    tables allowed. Within the first of these that succeeds, the repeat budget
    grows from 0 and the first pairing within the smallest budget is kept.
    """
    unbounded = len(playing) * len(playing)
    windows = [max(window, k)]
    if k > 2 and comb(len(playing) - 1, k - 1) <= EXHAUSTIVE_OPTIONS:
        windows.append(len(playing))
    for forbidden in (played, frozenset()):
        for width in windows:
            pairer = _Pairer(met, k, width, max_nodes, forbidden)
            first = pairer.search(playing, unbounded)
            if first is None:
                continue
            bound = sum(pairer.repeats(t) for t in first)
            for budget in range(bound):
                pairer.nodes = 0
                tables = pairer.search(playing, budget)
                if tables is not None:
                    return tables
            return first
    return [tuple(playing[i : i + k]) for i in range(0, len(playing), k)]


def swiss_pair(
    entries: Sequence[Entry],
    table_size: int = 2,
    results: Iterable[TableResult] = (),
    *,
    byes: Iterable[Entry] = (),
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    partners: bool = False,
    bye_points: float | None = None,
    window: int = 8,
    max_nodes: int = 20_000,
    apart: Collection[frozenset] = (),
    teams: Sequence[Sequence[int]] | None = None,
) -> Round:
    """The next Swiss round from the results so far (see module docstring).

    ``entries`` is the seed order; ``byes`` the earlier byes. With
    ``partners=True`` entries are teams and each table is ``(a, b, a, b)``.
    Deterministic. Raises ``ValueError`` for fewer entries than a table, a bad
    table size, unknown tie-breaks or results naming unknown entries; ``apart``
    and ``teams`` as in :func:`tournaments.formats.apart.separate`.
    """
    check_table_size(table_size)
    sides = check_partners(table_size, partners)
    items = check_entries(entries, minimum=sides, what=f"a {sides}-sided table")
    results, byes = list(results), list(byes)
    rows = swiss_standings(
        items,
        results,
        byes=byes,
        tiebreaks=tiebreaks,
        table_size=table_size,
        partners=partners,
        bye_points=bye_points,
    )
    ranked = [row.entry for row in rows]
    bye_count = Counter(byes)
    n_byes = len(items) % sides
    by_need = sorted(range(len(ranked)), key=lambda i: (bye_count[ranked[i]], -i))
    out = {ranked[i] for i in by_need[:n_byes]}
    playing = [e for e in ranked if e not in out]
    met: Counter[frozenset[Entry]] = Counter()
    for result in results:
        for e in result.entries():
            for o in result.opponents(e):
                met[frozenset((e, o))] += 1
    met = Counter({p: c // 2 for p, c in met.items()})  # each pair was seen from both sides
    played = frozenset(frozenset(result.entries()) for result in results)
    tables = _pair_tables(playing, met, played, sides, window, max_nodes)
    counts = seat_counts((r.table for r in results), table_size)
    seated: list[Table] = [best_seating(t, counts) for t in tables]
    if partners:
        seated = [partner_table(a, b) for a, b in seated]
    byes = [e for e in reversed(ranked) if e in out]
    return separate_round(Round(tables=seated, byes=byes), apart, teams=teams)
