"""Standings arithmetic: points, wins, games and head-to-head from table results.

Pure functions over :class:`TableResult` (the entries of one finished table in
seat order and their ranks, 1 = best, ties share a rank). Points are pairwise:
at a table an entry scores 1 for every opponent it finished ahead of and 1/2
for every opponent it tied with, so a two-seat game gives 1 / 0 or 1/2 each,
and the winner of a four-seat table scores 3. Partners (seat groups given in
``TableResult.teams``) are not each other's opponents.

An entry may occupy several seats of one table (a team entry at seats 0 and
2 of a partnership table); it is counted once per table, with its best rank.
Every value here is a multiple of 1/2, so float sums are exact.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

Entry = Hashable


@dataclass(frozen=True)
class TableResult:
    """One finished table: ``table`` in seat order, ``ranks`` per seat (1 = best).

    ``teams`` optionally groups seat indices into partnerships, e.g.
    ``((0, 2), (1, 3))``; partners must share a rank. Raises ``ValueError`` on
    mismatched lengths, ranks below 1, or partners with different ranks.
    """

    table: tuple[Entry, ...]
    ranks: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", tuple(self.table))
        object.__setattr__(self, "ranks", tuple(self.ranks))
        if len(self.table) != len(self.ranks):
            raise ValueError(
                f"table has {len(self.table)} seats but {len(self.ranks)} ranks: {self.ranks}"
            )
        if len(self.table) < 2:
            raise ValueError(f"a table needs at least 2 seats, got {self.table}")
        if any(not isinstance(r, int) or r < 1 for r in self.ranks):
            raise ValueError(f"ranks must be integers >= 1, got {self.ranks}")
        for entry, rank in zip(self.table, self.ranks, strict=True):
            if self.entry_rank(entry) != rank:
                raise ValueError(f"entry {entry!r} has different ranks at one table: {self.ranks}")
        if self.teams is not None:
            teams = tuple(tuple(team) for team in self.teams)
            object.__setattr__(self, "teams", teams)
            seats = sorted(s for team in teams for s in team)
            if seats != list(range(len(self.table))):
                raise ValueError(f"teams {teams} must cover each seat exactly once")
            for team in teams:
                if len({self.ranks[s] for s in team}) != 1:
                    raise ValueError(f"partners at seats {team} have different ranks {self.ranks}")

    def entry_rank(self, entry: Entry) -> int:
        """The rank of ``entry`` at this table (its best seat)."""
        return min(r for e, r in zip(self.table, self.ranks, strict=True) if e == entry)

    def entries(self) -> list[Entry]:
        """Distinct entries in order of first seat."""
        return list(dict.fromkeys(self.table))

    def opponents(self, entry: Entry) -> list[Entry]:
        """Distinct entries at this table that are neither ``entry`` nor its partner."""
        mates = {entry}
        if self.teams is not None:
            for team in self.teams:
                if any(self.table[s] == entry for s in team):
                    mates.update(self.table[s] for s in team)
        return [e for e in self.entries() if e not in mates]


def pair_score(result: TableResult, entry: Entry, opponent: Entry) -> float:
    """1 if ``entry`` finished ahead of ``opponent`` at this table, 1/2 if level, else 0."""
    mine, theirs = result.entry_rank(entry), result.entry_rank(opponent)
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def table_points(result: TableResult) -> dict[Entry, float]:
    """Pairwise points of every entry at the table (see module docstring)."""
    return {e: sum(pair_score(result, e, o) for o in result.opponents(e)) for e in result.entries()}


@dataclass
class Tally:
    """Per-entry totals: tables played, points, outright wins, shared first places."""

    games: int = 0
    points: float = 0.0
    wins: int = 0
    shared_wins: int = 0
    rank_sum: int = 0


def tally(results: Iterable[TableResult], entries: Iterable[Entry] = ()) -> dict[Entry, Tally]:
    """Totals per entry over ``results``; every entry of ``entries`` gets a row, even unplayed.

    Keys are in order of ``entries`` first, then of first appearance.
    """
    out: dict[Entry, Tally] = {e: Tally() for e in entries}
    for result in results:
        points = table_points(result)
        for e in result.entries():
            row = out.setdefault(e, Tally())
            rank = result.entry_rank(e)
            row.games += 1
            row.points += points[e]
            row.rank_sum += rank
            if rank == 1:
                firsts = sum(1 for o in result.opponents(e) if result.entry_rank(o) == 1)
                if firsts:
                    row.shared_wins += 1
                else:
                    row.wins += 1
    return out


@dataclass
class HeadToHead:
    """One ordered pair ``(a, b)`` from ``a``'s side: tables together and their outcomes."""

    games: int = 0
    ahead: int = 0
    behind: int = 0
    level: int = 0

    @property
    def score(self) -> float:
        """``a``'s pairwise points against ``b``: ahead + level / 2."""
        return self.ahead + 0.5 * self.level


@dataclass
class HeadToHeadTable:
    """Head-to-head records, stored for both orders of every pair that met as opponents."""

    pairs: dict[tuple[Entry, Entry], HeadToHead] = field(default_factory=dict)

    def get(self, a: Entry, b: Entry) -> HeadToHead:
        """The record of ``a`` against ``b`` (all zero if they never met)."""
        return self.pairs.get((a, b), HeadToHead())


def head_to_head(results: Iterable[TableResult]) -> HeadToHeadTable:
    """For each pair of opponents: games together, how often each finished ahead."""
    table = HeadToHeadTable()
    for result in results:
        for a in result.entries():
            for b in result.opponents(a):
                rec = table.pairs.setdefault((a, b), HeadToHead())
                rec.games += 1
                score = pair_score(result, a, b)
                if score == 1.0:
                    rec.ahead += 1
                elif score == 0.0:
                    rec.behind += 1
                else:
                    rec.level += 1
    return table


def ranks_from_scores(scores: Sequence[float], *, higher_is_better: bool = True) -> list[int]:
    """Standard competition ranks (1, 2, 2, 4) from per-seat scores."""
    sign = -1 if higher_is_better else 1
    return [1 + sum(1 for o in scores if sign * o < sign * s) for s in scores]
