"""Round robin schedules for tables of 2 to 5 seats, all rounds up front.

Two seats: the circle method. Entries are shuffled by the seed, one stays
fixed and the others rotate; an odd count adds a phantom whose partner has
the bye. Seats follow the rotational rule: of two entries at positions
``i < j`` among an odd number ``m`` of positions, ``i`` takes seat 0 when
``j - i <= (m - 1) / 2``; an even count puts its last entry against the other
``m`` alternately. Every entry then has seat 0 and seat 1 within one of each
other; the second leg of a double round robin repeats the first with seats
swapped, which balances them exactly.

Three to five seats: a design found by seeded local search.

1. Games: every entry needs ``ceil(legs * (n - 1) / (k - 1))`` tables to be
   able to meet everybody ``legs`` times; with ``T = n // k`` tables a round,
   ``R = ceil(n * games / (T * k))`` rounds provide them.
2. Byes: the ``n % k`` byes of each round go around a seeded order of the
   entries, so bye counts (and games) differ by at most one.
3. Tables: start from a seeded random split, then swap two entries of one
   round (two tables, or a table and the byes paired with the opposite swap
   in another round so bye counts stay) when the sum of squared pair-meeting
   counts does not grow. The sum is smallest exactly when meeting counts are
   as even as possible; the search stops there or after a step budget.
4. Seats: each table's seat order is chosen to even out every entry's seat
   counts, then improved table by table until nothing changes.

The search reaches meeting counts within one of each other for some sizes
(one table, or when a resolvable design is near, e.g. 9 entries at 3 seats
or 16 at 4); elsewhere, especially when bye counts differ or when no
balanced design exists, it returns the most even schedule it found, with
meeting counts typically spread over two or three values. Games per entry,
byes and non-overlap are exact.

Fixed partnerships (``partners=True``, four seats): entries are teams and
the schedule is the two-seat one, each match ``(a, b)`` becoming the table
``(a, b, a, b)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from games.rng import Stream, shuffled
from tournaments.formats.common import (
    Entry,
    Round,
    Table,
    best_seating,
    check_entries,
    check_partners,
    check_table_size,
    partner_table,
)

DEFAULT_STEPS = 40_000
RESTARTS = 4


def round_robin(
    entries: Sequence[Entry],
    table_size: int = 2,
    *,
    legs: int = 1,
    seed: int = 0,
    partners: bool = False,
    steps: int = DEFAULT_STEPS,
) -> list[Round]:
    """All rounds of a round robin (``legs=2``: double round robin).

    Returns the rounds in playing order. Deterministic for ``(entries,
    table_size, legs, seed, partners, steps)``. Raises ``ValueError`` for a
    bad table size, fewer entries than a table, duplicate entries, ``legs <
    1`` or ``partners`` with a table size other than 4.
    """
    check_table_size(table_size)
    sides = check_partners(table_size, partners)
    items = check_entries(entries, minimum=sides, what=f"a {sides}-sided table")
    if not isinstance(legs, int) or legs < 1:
        raise ValueError(f"legs must be an integer >= 1, got {legs!r}")
    if sides == 2:
        rounds = circle_rounds(shuffled(items, seed, "round-robin/order"), legs=legs)
        if partners:
            rounds = [
                Round(tables=[partner_table(a, b) for a, b in r.tables], byes=r.byes)
                for r in rounds
            ]
        return rounds
    return list(_designed(tuple(items), table_size, legs, seed, steps))


@lru_cache(maxsize=64)
def _designed(
    items: tuple[Entry, ...], table_size: int, legs: int, seed: int, steps: int
) -> tuple[Round, ...]:
    """design_rounds, remembered: a competition pairs its rounds one at a time from it."""
    return tuple(design_rounds(items, table_size, legs=legs, seed=seed, steps=steps))


def _home_first(i: int, j: int, m: int) -> bool:
    """Whether position ``i`` takes seat 0 against ``j`` (rotational rule, module doc)."""
    if m % 2 == 0:
        last = m - 1
        if last in (i, j):
            other = j if i == last else i
            return (other % 2 == 0) == (i == last)
        m -= 1
    return (j - i) % m <= (m - 1) // 2


def circle_rounds(entries: Sequence[Entry], *, legs: int = 1) -> list[Round]:
    """The two-seat circle method over ``entries`` in the given order."""
    n = len(entries)
    m = n + (n % 2)  # position n (if any) is the phantom: its opponent has the bye
    positions = list(range(m))
    first_leg: list[Round] = []
    for _ in range(m - 1):
        tables: list[Table] = []
        byes: list[Entry] = []
        for i in range(m // 2):
            p, q = positions[i], positions[m - 1 - i]
            if n in (p, q):
                byes.append(entries[q if p == n else p])
                continue
            a, b = min(p, q), max(p, q)
            tables.append(
                (entries[a], entries[b]) if _home_first(a, b, n) else (entries[b], entries[a])
            )
        first_leg.append(Round(tables=tables, byes=byes))
        positions = [positions[0], positions[-1], *positions[1:-1]]
    rounds = list(first_leg)
    for leg in range(1, legs):
        for r in first_leg:
            tables = [t[::-1] for t in r.tables] if leg % 2 else list(r.tables)
            rounds.append(Round(tables=tables, byes=r.byes))
    return rounds


class _Search:
    """Mutable state of the table search: groups per round and pair counts."""

    def __init__(self, n: int, k: int, rounds: list[list[list[int]]]) -> None:
        self.k = k
        self.rounds = rounds  # rounds[r][g]: groups; the last one holds byes if n % k
        self.tables_per_round = n // k
        self.count = [[0] * n for _ in range(n)]
        self.cost = 0
        #: The swaps made since the best state so far (each undoes itself).
        self.journal: list[tuple[int, int, int, int, int]] = []
        for groups in rounds:
            for g in groups[: self.tables_per_round]:
                for x in g:
                    for y in g:
                        if x < y:
                            self.cost += 2 * self.count[x][y] + 1
                            self.count[x][y] += 1
                            self.count[y][x] += 1

    def swap(self, r: int, g1: int, p1: int, g2: int, p2: int) -> int:
        """Swap two members of round ``r`` between groups; returns the change in cost."""
        groups, t, c = self.rounds[r], self.tables_per_round, self.count
        x, y = groups[g1][p1], groups[g2][p2]
        delta = 0
        for g, leaving, coming in ((g1, x, y), (g2, y, x)):
            if g >= t:
                continue
            for z in groups[g]:
                if z is leaving:
                    continue
                delta += 2 * (c[coming][z] - c[leaving][z] + 1)
                c[leaving][z] -= 1
                c[z][leaving] -= 1
                c[coming][z] += 1
                c[z][coming] += 1
        groups[g1][p1], groups[g2][p2] = y, x
        self.cost += delta
        self.journal.append((r, g1, p1, g2, p2))
        return delta

    def mark_best(self) -> None:
        """The current state is the best so far: forget how we got here."""
        self.journal.clear()

    def back_to_best(self) -> None:
        """Undo the swaps made since :meth:`mark_best`, newest first."""
        journal, self.journal = self.journal, []
        for move in reversed(journal):
            self.swap(*move)
        self.journal.clear()


def _lower_bound(pairs: int, meetings: int) -> int:
    q, r = divmod(meetings, pairs)
    return r * (q + 1) ** 2 + (pairs - r) * q * q


def _step(search: _Search, rng: Stream, byes: int, slack: int) -> None:
    """One move of the local search; kept only if the cost grows by at most ``slack``."""
    rounds, t, k = search.rounds, search.tables_per_round, search.k
    r = rng.below(len(rounds))
    if t >= 2 and (byes == 0 or rng.below(2)):
        g1, g2 = rng.below(t), rng.below(t - 1)
        g2 += g2 >= g1
        p1, p2 = rng.below(k), rng.below(k)
        if search.swap(r, g1, p1, g2, p2) > slack:
            search.swap(r, g1, p1, g2, p2)
        return
    if byes == 0:
        return
    # Bye move: x (bye in r) plays instead of y; in another round y sits out instead of x.
    g, p, pb = rng.below(t), rng.below(k), rng.below(byes)
    x, y = rounds[r][t][pb], rounds[r][g][p]
    others = [s for s in range(len(rounds)) if y in rounds[s][t] and x not in rounds[s][t]]
    if not others:
        return
    s = others[rng.below(len(others))]
    g_s = next(i for i in range(t) if x in rounds[s][i])
    p_s, pb_s = rounds[s][g_s].index(x), rounds[s][t].index(y)
    delta = search.swap(r, t, pb, g, p) + search.swap(s, t, pb_s, g_s, p_s)
    if delta > slack:
        search.swap(s, t, pb_s, g_s, p_s)
        search.swap(r, t, pb, g, p)


def design_rounds(
    entries: Sequence[Entry],
    table_size: int,
    *,
    legs: int = 1,
    seed: int = 0,
    steps: int = DEFAULT_STEPS,
) -> list[Round]:
    """The multi-seat construction of the module docstring (tables of ``table_size``)."""
    n, k = len(entries), table_size
    t, byes = n // k, n % k
    games = -(-legs * (n - 1) // (k - 1))
    total_rounds = -(-n * games // (t * k))
    order = shuffled(range(n), seed, "round-robin/byes")
    target = _lower_bound(n * (n - 1) // 2, total_rounds * t * k * (k - 1) // 2)
    best_cost, best = -1, []
    for attempt in range(RESTARTS):
        rounds: list[list[list[int]]] = []
        for r in range(total_rounds):
            out = [order[(r * byes + j) % n] for j in range(byes)]
            start = shuffled(range(n), seed, f"round-robin/start/{attempt}/{r}")
            playing = [i for i in start if i not in out]
            groups = [playing[g * k : (g + 1) * k] for g in range(t)]
            rounds.append(groups + ([out] if byes else []))
        cost = _anneal(
            _Search(n, k, rounds),
            Stream(seed, f"round-robin/search/{attempt}"),
            byes,
            steps // RESTARTS,
            target,
        )
        if best_cost < 0 or cost < best_cost:
            best_cost, best = cost, rounds
        if best_cost <= target:
            break
    return _seat(entries, best, t, k)


def _anneal(search: _Search, rng: Stream, byes: int, steps: int, target: int) -> int:
    """Run the local search in place, leaving ``search.rounds`` at the best state; its cost.

    The best state is kept as the journal of swaps made since (undone at the end),
    not as copies: a copy per improvement cost O(rounds x entries) each time.
    """
    best_cost = search.cost
    search.mark_best()
    for step in range(steps):
        if best_cost <= target:
            break
        # Threshold accepting: small uphill moves early on escape local minima.
        _step(search, rng, byes, slack=2 * ((3 * (steps - 1 - step)) // steps))
        if search.cost < best_cost:
            best_cost = search.cost
            search.mark_best()
    search.back_to_best()
    assert search.cost == best_cost
    return best_cost


def _seat(entries: Sequence[Entry], rounds: list[list[list[int]]], t: int, k: int) -> list[Round]:
    """Seat orders evening out seat counts, improved table by table to a fixed point."""
    counts: dict[Entry, list[int]] = {i: [0] * k for i in range(len(entries))}
    seated = [[tuple(g) for g in groups[:t]] for groups in rounds]
    for tables in seated:
        for i, g in enumerate(tables):
            tables[i] = best_seating(g, counts)
            for s, e in enumerate(tables[i]):
                counts[e][s] += 1
    for _ in range(10):
        changed = False
        for tables in seated:
            for i, g in enumerate(tables):
                for s, e in enumerate(g):
                    counts[e][s] -= 1
                better = best_seating(g, counts)
                changed |= better != g
                tables[i] = better
                for s, e in enumerate(better):
                    counts[e][s] += 1
        if not changed:
            break
    return [
        Round(
            tables=[tuple(entries[i] for i in table) for table in tables],
            byes=[entries[i] for i in (groups[t] if len(groups) > t else [])],
        )
        for tables, groups in zip(seated, rounds, strict=True)
    ]
