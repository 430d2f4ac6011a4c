"""Ladder: continuous scheduling of the next tables, by rating with exploration.

A ladder never ends: whenever entries are free it seats some of them. Each
candidate carries its rating (``mu``, ``sigma``), how many games it played
and whether it is busy (at a table right now); the caller also passes the
competition's recent tables (``recent``, oldest first). The scheduler
(docs/ladder.md has the reasoning, the parameters and their measured effect):

1. **Who plays.** The free candidates are ranked by fewest recent games,
   then highest sigma, then a seeded tie-break (SHA-256 of the seed and the
   entry's position, via :func:`games.rng.shuffled`); the first
   ``tables * sides`` of them play, so newcomers and uncertain entries are
   never the ones left out. Nobody busy is picked, nobody twice.
2. **Anchors down the rating order.** The players are sorted by ``mu``; the
   seed picks top-down or bottom-up, and each player not yet seated in turn
   anchors a table and picks its table-mates one by one. Going along the
   order leaves no entry stranded at the far end with nobody near it.
3. **Near in rating, not a rematch.** Normally an anchor looks at the
   :attr:`LadderParams.window` nearest unseated players by ``mu`` on each
   side and takes the one of least cost, the cost of a pair being

   * proximity: ``proximity_weight * (1 - q)`` with ``q = exp(-(mu_a -
     mu_b)**2 / (2 * (2 * beta**2 + sigma_a**2 + sigma_b**2)))``, the
     exponential factor of TrueSkill's and openskill's two-player match
     quality: 0 for equal ratings, ``proximity_weight`` for the farthest,
     and small for uncertain entries against anyone;
   * rematch: ``rematch_weight`` times, for each of the pair's meetings in
     ``recent``, ``0.5 ** ((age - 1) / rematch_half_life)``, where ``age`` is
     1 if it was the latest table of one of the two, 2 the one before...;
   * minus ``temperature`` times the pair's own seeded Gumbel draw, so that
     among near-equal choices the pick is a seeded draw (a softmin) rather
     than always the same neighbour.

   At a table of more than two sides a newcomer's cost is summed over the
   members already chosen.
4. **Exploration keeps the field connected.** With the seeded chance
   :attr:`LadderParams.explore` an anchor ignores ratings: it takes, from
   every unseated player, one it met least often in ``recent`` (a uniform
   draw among those). So every pair can meet, the strong and the weak
   included, and the ratings of distant parts of the field stay comparable.
5. **Improvement.** Players then swap between rated tables (exploring ones
   are kept as drawn) with their window's neighbours while that lowers the
   total cost, for at most a few passes.
6. **Seats.** Each table's seat order is shuffled by the seed; with
   ``partners=True`` candidates are teams and a table is ``(a, b, a, b)``.

Everything is a function of the arguments and the seed (:mod:`games.rng`
streams); no clock, no global random state. Cost: ``O(players * window *
seats**2)`` for the rated picks and the improvement, ``O(players)`` per
exploring anchor, ``O(recent tables * seats**2)`` to count meetings.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from games.rng import Stream, draw, shuffled
from tournaments.formats.apart import separate
from tournaments.formats.common import (
    Entry,
    Table,
    check_entries,
    check_partners,
    check_table_size,
    partner_table,
)
from tournaments.ratings.skill import INITIAL_MU, INITIAL_SIGMA

#: openskill's default beta (half the initial sigma): the spread of one game's performance.
BETA = INITIAL_SIGMA / 2
#: How much history a caller should pass as ``recent``: about this many tables per entry.
RECENT_TABLES_PER_ENTRY = 12

_WORD = 1 << 32
_IMPROVE_PASSES = 3


@dataclass(frozen=True)
class LadderParams:
    """The scheduler's knobs (module docstring, docs/ladder.md); the defaults are tuned
    with ``python -m bench.ladder``."""

    #: Nearest unseated players by mu, on each side of the anchor, it chooses among.
    window: int = 6
    #: Seeded chance that an anchor explores: least-met opponent from the whole field.
    explore: float = 0.15
    #: Cost of the farthest opponent (match quality 0); a perfect match costs 0.
    proximity_weight: float = 4.0
    #: Scale of the seeded Gumbel noise subtracted from each cost (0: strict minimum).
    temperature: float = 0.1
    #: Cost of a rematch at age 1 (the pair's latest table).
    rematch_weight: float = 2.0
    #: Age, in tables, over which a meeting's rematch cost halves.
    rematch_half_life: float = 3.0
    #: Performance spread of one game in mu units (match quality).
    beta: float = BETA

    def __post_init__(self) -> None:
        if not isinstance(self.window, int) or self.window < 1:
            raise ValueError(f"window must be an integer >= 1, got {self.window!r}")
        if not 0.0 <= self.explore <= 1.0:
            raise ValueError(f"explore must be a probability in [0, 1], got {self.explore!r}")
        for name in ("proximity_weight", "temperature", "rematch_weight"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        for name in ("rematch_half_life", "beta"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


@dataclass(frozen=True)
class LadderEntry:
    """A ladder candidate: recent games played, rating sigma, busy flag, rating mu."""

    entry: Entry
    recent_games: int = 0
    sigma: float = 0.0
    busy: bool = False
    mu: float = INITIAL_MU


def ladder_tables(
    candidates: Sequence[LadderEntry],
    table_size: int = 2,
    *,
    seed: int = 0,
    max_tables: int | None = None,
    partners: bool = False,
    recent: Iterable[Table] = (),
    params: LadderParams | None = None,
    apart: Collection[frozenset] = (),
    teams: Sequence[Sequence[int]] | None = None,
) -> list[Table]:
    """The next tables to start (module docstring), the most deserving anchors first.

    Returns at most ``max_tables`` tables (as many as the free candidates fill
    when None); with ``partners=True`` candidates are teams and tables are
    ``(a, b, a, b)``. ``recent`` is the competition's latest tables, oldest
    first (about :data:`RECENT_TABLES_PER_ENTRY` per entry is enough; entries
    not among the candidates are ignored). Raises ``ValueError`` for duplicate
    entries, a bad table size, a negative ``recent_games``, ``sigma`` or
    ``max_tables``, a non-finite ``mu`` or ``sigma``, or bad ``recent``. No table
    seats a pair of ``apart`` (unless ``teams`` makes them partners): tables that
    no swap can fix are left out of this batch (``apart.separate``).
    """
    check_table_size(table_size)
    sides = check_partners(table_size, partners)
    _check_candidates(candidates, max_tables)
    params = params or LadderParams()
    players = _players(candidates, sides, seed, max_tables)
    costs = _Costs(candidates, _meetings(candidates, recent, params), params, seed)
    field = _Field(candidates, players, costs, params, seed)
    anchors = field.by_mu if draw(2, seed, "ladder/direction") else field.by_mu[::-1]
    groups = [field.table_for(anchor, sides) for anchor in anchors if not field.is_seated(anchor)]
    _improve(groups, field.by_mu, costs, params.window)
    tables: list[Table] = []
    for group in groups:
        members = [candidates[i].entry for i in group.members]
        seated = tuple(shuffled(members, seed, f"ladder/seats/{len(tables)}"))
        tables.append(partner_table(*seated) if partners else seated)
    return separate(tables, apart, teams=teams, strict=False)


def _check_candidates(candidates: Sequence[LadderEntry], max_tables: int | None) -> None:
    check_entries((c.entry for c in candidates), minimum=0)
    if max_tables is not None and max_tables < 0:
        raise ValueError(f"max_tables must be >= 0, got {max_tables}")
    bad = [c.entry for c in candidates if c.recent_games < 0]
    if bad:
        raise ValueError(f"recent_games must be >= 0 for {bad}")
    bad = [c.entry for c in candidates if not (math.isfinite(c.sigma) and c.sigma >= 0)]
    if bad:
        raise ValueError(f"sigma must be a finite number >= 0 for {bad}")
    bad = [c.entry for c in candidates if not math.isfinite(c.mu)]
    if bad:
        raise ValueError(f"mu must be a finite number for {bad}")


def _players(
    candidates: Sequence[LadderEntry], sides: int, seed: int, max_tables: int | None
) -> list[int]:
    """Indices of the candidates who play, in priority order (step 1)."""
    tiebreak = {
        i: pos for pos, i in enumerate(shuffled(range(len(candidates)), seed, "ladder/tie"))
    }
    free = [i for i, c in enumerate(candidates) if not c.busy]
    free.sort(key=lambda i: (candidates[i].recent_games, -candidates[i].sigma, tiebreak[i]))
    count = len(free) // sides
    if max_tables is not None:
        count = min(count, max_tables)
    return free[: count * sides]


@dataclass
class _Meetings:
    """Per pair of candidate indices (low, high): meetings in ``recent`` and rematch cost."""

    count: dict[tuple[int, int], int]
    cost: dict[tuple[int, int], float]
    opponents: dict[int, set[int]]


def _meetings(
    candidates: Sequence[LadderEntry], recent: Iterable[Table], params: LadderParams
) -> _Meetings:
    index = {c.entry: i for i, c in enumerate(candidates)}
    try:
        tables = [[index.get(e) for e in dict.fromkeys(table)] for table in recent]
    except TypeError as exc:
        raise ValueError(f"recent must be tables (tuples of entry ids): {exc}") from None
    played: defaultdict[int, int] = defaultdict(int)  # tables seen so far, newest first
    count: defaultdict[tuple[int, int], int] = defaultdict(int)
    cost: defaultdict[tuple[int, int], float] = defaultdict(float)
    decay = 0.5 ** (1 / params.rematch_half_life)
    for table in reversed(tables):
        members = [i for i in table if i is not None]
        for i in members:
            played[i] += 1
        for x, a in enumerate(members):
            for b in members[x + 1 :]:
                pair = (a, b) if a < b else (b, a)
                count[pair] += 1
                cost[pair] += params.rematch_weight * decay ** (min(played[a], played[b]) - 1)
    opponents: defaultdict[int, set[int]] = defaultdict(set)
    for a, b in count:
        opponents[a].add(b)
        opponents[b].add(a)
    return _Meetings(dict(count), dict(cost), dict(opponents))


class _Costs:
    """The cost of seating two candidates together this time (step 3), remembered.

    Includes the pair's own seeded Gumbel draw, so that the greedy choice and the
    improvement pass minimise the same numbers.
    """

    def __init__(
        self,
        candidates: Sequence[LadderEntry],
        meetings: _Meetings,
        params: LadderParams,
        seed: int,
    ) -> None:
        self.candidates, self.meetings, self.params, self.seed = candidates, meetings, params, seed
        self.two_beta_sq = 2 * params.beta**2
        self.memo: dict[tuple[int, int], float] = {}

    def pair(self, a: int, b: int) -> float:
        key = (a, b) if a < b else (b, a)
        cost = self.memo.get(key)
        if cost is None:
            x, y = self.candidates[a], self.candidates[b]
            spread = 2 * (self.two_beta_sq + x.sigma**2 + y.sigma**2)
            quality = math.exp(-((x.mu - y.mu) ** 2) / spread)
            cost = self.params.proximity_weight * (1.0 - quality)
            cost += self.meetings.cost.get(key, 0.0)
            if self.params.temperature:
                cost -= self.params.temperature * _gumbel(self.seed, f"ladder/pair/{key}")
            self.memo[key] = cost
        return cost

    def join(self, members: Iterable[int], c: int) -> float:
        """The cost of adding ``c`` to a table of ``members``."""
        return sum(self.pair(m, c) for m in members)

    def met(self, members: Iterable[int], c: int) -> int:
        """How often ``c`` met the ``members`` in the recent tables."""
        count = self.meetings.count
        return sum(count.get((m, c) if m < c else (c, m), 0) for m in members)


def _gumbel(seed: int, purpose: str) -> float:
    """A standard Gumbel draw for ``purpose``: a softmin of costs minus these picks
    each option with probability proportional to ``exp(-cost / temperature)``."""
    u = (draw(_WORD, seed, purpose) + 0.5) / _WORD
    return -math.log(-math.log(u))


@dataclass
class _Group:
    """The candidate indices at one table; an exploring table is left as drawn."""

    members: list[int]
    exploring: bool


class _Field:
    """The players still to seat: by mu as a linked list, and as an array to draw from."""

    def __init__(
        self,
        candidates: Sequence[LadderEntry],
        players: list[int],
        costs: _Costs,
        params: LadderParams,
        seed: int,
    ) -> None:
        self.costs, self.params = costs, params
        rank = {i: r for r, i in enumerate(players)}
        self.by_mu = sorted(players, key=lambda i: (candidates[i].mu, rank[i]))
        by_mu = self.by_mu
        self.prev = {i: by_mu[p - 1] if p else None for p, i in enumerate(by_mu)}
        self.next = {i: by_mu[p + 1] if p + 1 < len(by_mu) else None for p, i in enumerate(by_mu)}
        self.free = list(players)
        self.slot = {i: p for p, i in enumerate(self.free)}
        self.draws = Stream(seed, "ladder/explore")

    def is_seated(self, i: int) -> bool:
        return i not in self.slot

    def seat(self, i: int) -> None:
        before, after = self.prev.pop(i), self.next.pop(i)
        if before is not None:
            self.next[before] = after
        if after is not None:
            self.prev[after] = before
        last, p = self.free.pop(), self.slot.pop(i)
        if last != i:
            self.free[p], self.slot[last] = last, p

    def table_for(self, anchor: int, sides: int) -> _Group:
        """Seat ``anchor`` and its table-mates (steps 2-4), anchor first."""
        exploring = self.draws.below(1_000_000) < self.params.explore * 1_000_000
        pool = [] if exploring else self.window(anchor, sides)
        self.seat(anchor)
        members = [anchor]
        for _ in range(sides - 1):
            if exploring:
                pick = self.least_met(members)
            else:
                pick = min(pool, key=lambda c: self.costs.join(members, c))
                pool.remove(pick)
            self.seat(pick)
            members.append(pick)
        return _Group(members, exploring)

    def window(self, anchor: int, sides: int) -> list[int]:
        """The ``window`` nearest unseated players by mu on each side of ``anchor``.

        At least ``sides - 1`` a side, so that the pool can always fill the table.
        """
        out = []
        for links in (self.prev, self.next):
            i = links[anchor]
            for _ in range(max(self.params.window, sides - 1)):
                if i is None:
                    break
                out.append(i)
                i = links[i]
        return out

    def least_met(self, members: list[int]) -> int:
        """An unseated player who met ``members`` least often in ``recent`` (step 4).

        A uniform draw among those who never met them when there are any (few
        tries in a large field), else the least met, the seed breaking ties.
        """
        opponents = self.costs.meetings.opponents
        met = {c for m in members for c in opponents.get(m, ())}
        if len(met & self.slot.keys()) < len(self.free):
            while True:
                pick = self.free[self.draws.below(len(self.free))]
                if pick not in met:
                    return pick
        tiebreak = {c: self.draws.below(_WORD) for c in self.free}
        return min(self.free, key=lambda c: (self.costs.met(members, c), tiebreak[c]))


def _improve(groups: list[_Group], by_mu: list[int], costs: _Costs, window: int) -> None:
    """Swap players between rated tables while that lowers the total cost (step 5).

    The greedy pass can leave the last anchors with whoever is left (often the
    two ends of the field); each player is offered the tables of its ``window``
    nearest players by mu on each side, until a pass changes nothing (at most
    a few passes). Exploring tables are kept as drawn.
    """
    table_of = {i: t for t, g in enumerate(groups) if not g.exploring for i in g.members}
    position = {i: p for p, i in enumerate(by_mu)}
    for _ in range(_IMPROVE_PASSES):
        changed = False
        for t, group in enumerate(groups):
            if group.exploring:
                continue
            for m in list(group.members):
                changed |= _offer(m, t, groups, table_of, by_mu, position[m], costs, window)
        if not changed:
            return


def _offer(
    m: int,
    t: int,
    groups: list[_Group],
    table_of: dict[int, int],
    by_mu: list[int],
    at: int,
    costs: _Costs,
    window: int,
) -> bool:
    """Swap ``m`` (at table ``t``) with the best nearby player at another rated table."""
    here = groups[t].members
    best, best_delta = None, -1e-9
    for y in by_mu[max(0, at - window) : at + window + 1]:
        u = table_of.get(y)
        if u is None or u == t:
            continue
        there = groups[u].members
        delta = sum(costs.pair(z, y) - costs.pair(z, m) for z in here if z != m) + sum(
            costs.pair(w, m) - costs.pair(w, y) for w in there if w != y
        )
        if delta < best_delta:
            best, best_delta = y, delta
    if best is None:
        return False
    u = table_of[best]
    there = groups[u].members
    here[here.index(m)], there[there.index(best)] = best, m
    table_of[m], table_of[best] = u, t
    return True
