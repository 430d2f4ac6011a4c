"""Round robin schedules for tables of 2 to 5 seats, all rounds up front.

Two seats: the circle method. Entries are shuffled by the seed, one stays
fixed and the others rotate; an odd count adds a phantom whose partner has
the bye. Seats follow the rotational rule: of two entries at positions
``i < j`` among an odd number ``m`` of positions, ``i`` takes seat 0 when
``j - i <= (m - 1) / 2``; an even count puts its last entry against the other
``m`` alternately. Every entry then has seat 0 and seat 1 within one of each
other; the second leg of a double round robin repeats the first with seats
swapped, which balances them exactly.

Three to five seats. Every entry plays the same number of tables,
``g = games_per_entry(n, k, legs)``: the fewest with ``g (k - 1) >= legs (n - 1)``
(enough seats to meet everybody ``legs`` times) and ``n g`` a multiple of ``k``
(whole tables). Each round seats as many disjoint tables as the schedule
allows; the others sit out, so every entry has the same number of byes.

1. Balanced design. When ``g (k - 1) / (n - 1)`` is a whole number ``lam`` for
   one leg and :func:`tournaments.formats.designs.balanced_design` knows a
   2-(n, k, lam) design, every pair meets exactly ``lam`` times: all k-subsets
   (4 entries at 3 seats: the 4 triples, each pair twice; 5 at 4; 6 at 5),
   affine planes (9/3, 16/4, 25/5, a round per parallel class), the Kirkman
   triple system 15/3 (7 rounds of 5 tables), projective planes by difference
   sets (the Fano plane 7/3, 13/4, 21/5; one table a round, as any two of their
   tables share an entry), other cyclic difference families (7/4, 11/5, 13/3,
   19/3, 25/3, 31/3, 37/4, 41/5...) and Bose's triple systems (21/3, 27/3...).
   Entries are relabelled and rounds reordered by the seed; a double round
   robin plays the design twice (legs). A double round robin whose single leg
   has no such design uses one for twice the meetings when there is one
   (5 entries at 3 seats: all 10 triples, each pair 3 times).
2. Otherwise a search. With ``T = n // k`` tables a round, the ``n g / k``
   tables are spread over the fewest rounds, byes go around a seeded order
   (so they are exact), and a seeded local search swaps entries within a
   round (two tables, or a table and the byes paired with the opposite swap
   in another round) while the sum of squared pair-meeting counts does not
   grow (small uphill moves early). That sum is smallest exactly when every
   pair meets within one of every other. For fields up to
   ``MAX_FREE_SEARCH_N`` that the round-bound search leaves uneven, the same
   tables are searched again free of rounds (simulated annealing on the
   tables, :func:`tournaments.formats.designs.spread_blocks`) and packed into
   rounds of disjoint tables afterwards (more rounds, fewer tables each),
   kept if the spread of meeting counts (max - min) shrinks.
3. Seats: each table's seat order is chosen to even out every entry's seat
   counts, then improved table by table until nothing changes.

Games per entry, byes per entry and non-overlap are exact for every field.
Pair meetings are exact for the designs of step 1; the search reaches
meeting counts within one of each other for most small fields (see
``docs/round-robin.md`` for the fields where it does not, and what they get).

Fixed partnerships (``partners=True``, four seats): entries are teams and
the schedule is the two-seat one, each match ``(a, b)`` becoming the table
``(a, b, a, b)``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from games.rng import Stream, shuffled
from tournaments.formats import designs
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
)

DEFAULT_STEPS = 40_000
RESTARTS = 4
#: Fields up to this size get a second search free of rounds when pairs do not even out.
MAX_FREE_SEARCH_N = 40


def round_robin(
    entries: Sequence[Entry],
    table_size: int = 2,
    *,
    legs: int = 1,
    seed: int = 0,
    partners: bool = False,
    steps: int = DEFAULT_STEPS,
    apart: Collection[frozenset] = (),
    teams: Sequence[Sequence[int]] | None = None,
) -> list[Round]:
    """All rounds of a round robin (``legs=2``: double round robin).

    Returns the rounds in playing order. Deterministic for ``(entries,
    table_size, legs, seed, partners, steps)``. Raises ``ValueError`` for a
    bad table size, fewer entries than a table, duplicate entries, ``legs <
    1`` or ``partners`` with a table size other than 4. ``apart`` holds pairs of
    entries that may not share a table unless ``teams`` (seat groups) makes them
    partners (:func:`tournaments.formats.apart.separate`, which raises
    ``CannotSeparate`` when a round cannot keep them apart).
    """
    check_table_size(table_size)
    sides = check_partners(table_size, partners)
    items = check_entries(entries, minimum=sides, what=f"a {sides}-sided table")
    if not isinstance(legs, int) or legs < 1:
        raise ValueError(f"legs must be an integer >= 1, got {legs!r}")
    if sides == 2:
        rounds = list(_circled(tuple(items), legs, seed, partners))
    else:
        rounds = list(_designed(tuple(items), table_size, legs, seed, steps))
    if not apart:
        return rounds
    return [separate_round(r, apart, teams=teams) for r in rounds]


@lru_cache(maxsize=64)
def _circled(items: tuple[Entry, ...], legs: int, seed: int, partners: bool) -> tuple[Round, ...]:
    """The two-sided schedule, remembered like :func:`_designed` (46 entries: 2 ms)."""
    rounds = circle_rounds(shuffled(items, seed, "round-robin/order"), legs=legs)
    if partners:
        rounds = [
            Round(tables=[partner_table(a, b) for a, b in r.tables], byes=r.byes) for r in rounds
        ]
    return tuple(rounds)


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


def games_per_entry(n: int, k: int, legs: int = 1) -> int:
    """Tables each entry plays: enough to meet everybody ``legs`` times, and ``n g / k`` whole."""
    g = -(-legs * (n - 1) // (k - 1))
    while (n * g) % k:
        g += 1
    return g


@lru_cache(maxsize=256)
def scheduled_tables(n: int, k: int, legs: int = 1) -> int:
    """The tables of the whole round robin of ``n`` entries at ``k`` seats, as
    :func:`round_robin` schedules them: every pair ``legs`` times at two seats; at more,
    the single balanced design once per leg when one is known, else ``n g / k`` with
    ``g = games_per_entry(n, k, legs)``. 0 for fewer entries than a table."""
    if n < k:
        return 0
    if k == 2:
        return legs * n * (n - 1) // 2
    g = games_per_entry(n, k)
    if (g * (k - 1)) % (n - 1) == 0 and designs.balanced_design(n, k, g * (k - 1) // (n - 1)):
        return legs * n * g // k
    return n * games_per_entry(n, k, legs) // k


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
    groups = _balanced_rounds(n, k, legs, seed)
    if groups is None:
        groups = _searched_rounds(n, k, legs, seed, steps)
    return _seat(entries, groups, k)


Layout = list[tuple[list[list[int]], list[int]]]  # per round: its tables, its byes


def _balanced_rounds(n: int, k: int, legs: int, seed: int) -> Layout | None:
    """Rounds of a balanced design (one per leg, or one for all legs), relabelled by the seed."""
    copies = legs
    g = games_per_entry(n, k)
    design = None
    if (g * (k - 1)) % (n - 1) == 0:
        design = designs.balanced_design(n, k, g * (k - 1) // (n - 1))
    if design is None:
        copies, g = 1, games_per_entry(n, k, legs)
        if (g * (k - 1)) % (n - 1) == 0:
            design = designs.balanced_design(n, k, g * (k - 1) // (n - 1))
    if design is None:
        return None
    rounds = design.rounds
    bound = max(-(-len(design.blocks) // (n // k)), g)
    if rounds is None or len(rounds) > bound:
        packed = designs.pack_rounds(design.blocks, n, k, seed=seed)
        if rounds is None or len(packed) < len(rounds):
            rounds = tuple(tuple(r) for r in packed)
    label = shuffled(range(n), seed, "round-robin/labels")
    order = shuffled(range(len(rounds)), seed, "round-robin/round-order")
    cycle = [[[label[x] for x in block] for block in rounds[i]] for i in order]
    out: Layout = []
    for _ in range(copies):
        for tables in cycle:
            seated = {x for t in tables for x in t}
            out.append(([list(t) for t in tables], [x for x in label if x not in seated]))
    return out


def _round_sizes(tables: int, per_round: int, rounds: int) -> list[int]:
    """``tables`` spread over ``rounds`` as evenly as possible (none above ``per_round``)."""
    base, extra = divmod(tables, rounds)
    assert base + (extra > 0) <= per_round
    # The fuller rounds first and last alternately keeps short rounds apart.
    return [base + (i * extra // rounds != (i + 1) * extra // rounds) for i in range(rounds)]


def _searched_rounds(n: int, k: int, legs: int, seed: int, steps: int) -> Layout:
    """Rounds found by search, every entry at exactly ``games_per_entry`` tables.

    First the search over the fewest rounds (tables spread evenly over them);
    if pairs do not even out there and the field is small, the same tables
    are searched again free of rounds (:func:`designs.spread_blocks`) and
    packed into rounds afterwards, kept if the spread of meeting counts
    (max - min) shrinks.
    """
    g = games_per_entry(n, k, legs)
    tables, per_round = n * g // k, n // k
    target = _lower_bound(n * (n - 1) // 2, tables * k * (k - 1) // 2)
    sizes = _round_sizes(tables, per_round, -(-tables // per_round))
    cost, rounds = _search_layout(n, k, sizes, seed, steps, target)
    layout: Layout = [
        (groups[:size], groups[size] if len(groups) > size else [])
        for groups, size in zip(rounds, sizes, strict=True)
    ]
    if cost <= target or n > MAX_FREE_SEARCH_N:
        return layout
    blocks = [t for tables_, _ in layout for t in tables_]
    free_cost, free = designs.spread_blocks(blocks, n, seed=seed, steps=steps)
    # More rounds are only worth it when pair meetings get closer together.
    if free_cost >= cost or _spread(free, n) >= _spread(blocks, n):
        return layout
    packed = designs.pack_rounds([tuple(b) for b in free], n, k, seed=seed)
    order = shuffled(range(n), seed, "round-robin/byes")
    return [
        ([list(t) for t in r], [x for x in order if all(x not in t for t in r)]) for r in packed
    ]


def _spread(tables: Sequence[Sequence[int]], n: int) -> int:
    """Max - min of the pair meeting counts of ``tables`` over entries ``0..n-1``."""
    count = [[0] * n for _ in range(n)]
    for t in tables:
        for i, x in enumerate(t):
            for y in t[i + 1 :]:
                count[min(x, y)][max(x, y)] += 1
    values = [count[x][y] for x in range(n) for y in range(x + 1, n)]
    return max(values) - min(values)


def _search_layout(
    n: int, k: int, sizes: list[int], seed: int, steps: int, target: int
) -> tuple[int, list[list[list[int]]]]:
    """The search over rounds of ``sizes`` tables; byes rotate over a seeded order."""
    order = shuffled(range(n), seed, "round-robin/byes")
    best_cost, best = -1, []
    for attempt in range(RESTARTS):
        rounds: list[list[list[int]]] = []
        position = 0
        for r, size in enumerate(sizes):
            byes = n - size * k
            out = [order[(position + j) % n] for j in range(byes)]
            position += byes
            start = shuffled(range(n), seed, f"round-robin/start/{attempt}/{r}")
            playing = [i for i in start if i not in out]
            groups = [playing[t * k : (t + 1) * k] for t in range(size)]
            rounds.append(groups + ([out] if byes else []))
        search = _Search(n, k, rounds, sizes)
        rng = Stream(seed, f"round-robin/search/{attempt}")
        cost = _anneal(search, rng, steps // RESTARTS, target)
        if best_cost < 0 or cost < best_cost:
            best_cost, best = cost, rounds
        if best_cost <= target:
            break
    return best_cost, best


class _Search:
    """Mutable state of the table search: groups per round and pair counts."""

    def __init__(self, n: int, k: int, rounds: list[list[list[int]]], sizes: list[int]) -> None:
        self.k = k
        self.rounds = rounds  # rounds[r][g]: groups; the one after the tables holds byes
        self.sizes = sizes  # tables in each round
        self.with_byes = [r for r, size in enumerate(sizes) if size * k < n]
        self.count = [[0] * n for _ in range(n)]
        self.cost = 0
        #: The swaps made since the best state so far (each undoes itself).
        self.journal: list[tuple[int, int, int, int, int]] = []
        for groups, size in zip(rounds, sizes, strict=True):
            for g in groups[:size]:
                for x in g:
                    for y in g:
                        if x < y:
                            self.cost += 2 * self.count[x][y] + 1
                            self.count[x][y] += 1
                            self.count[y][x] += 1

    def swap(self, r: int, g1: int, p1: int, g2: int, p2: int) -> int:
        """Swap two members of round ``r`` between groups; returns the change in cost."""
        groups, t, c = self.rounds[r], self.sizes[r], self.count
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


def _step(search: _Search, rng: Stream, slack: int) -> None:
    """One move of the local search; kept only if the cost grows by at most ``slack``."""
    rounds, k = search.rounds, search.k
    bye_move = bool(search.with_byes) and rng.below(2) == 0
    if not bye_move:
        r = rng.below(len(rounds))
        t = search.sizes[r]
        if t < 2:
            return
        g1, g2 = rng.below(t), rng.below(t - 1)
        g2 += g2 >= g1
        p1, p2 = rng.below(k), rng.below(k)
        if search.swap(r, g1, p1, g2, p2) > slack:
            search.swap(r, g1, p1, g2, p2)
        return
    # Bye move: x (bye in r) plays instead of y; in another round y sits out instead of x.
    r = search.with_byes[rng.below(len(search.with_byes))]
    t = search.sizes[r]
    g, p, pb = rng.below(t), rng.below(k), rng.below(len(rounds[r][t]))
    x, y = rounds[r][t][pb], rounds[r][g][p]
    others = [
        s
        for s in search.with_byes
        if y in rounds[s][search.sizes[s]] and x not in rounds[s][search.sizes[s]]
    ]
    if not others:
        return
    s = others[rng.below(len(others))]
    t_s = search.sizes[s]
    g_s = next(i for i in range(t_s) if x in rounds[s][i])
    p_s, pb_s = rounds[s][g_s].index(x), rounds[s][t_s].index(y)
    delta = search.swap(r, t, pb, g, p) + search.swap(s, t_s, pb_s, g_s, p_s)
    if delta > slack:
        search.swap(s, t_s, pb_s, g_s, p_s)
        search.swap(r, t, pb, g, p)


def _anneal(search: _Search, rng: Stream, steps: int, target: int) -> int:
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
        _step(search, rng, slack=2 * ((3 * (steps - 1 - step)) // steps))
        if search.cost < best_cost:
            best_cost = search.cost
            search.mark_best()
    search.back_to_best()
    assert search.cost == best_cost
    return best_cost


def _seat(entries: Sequence[Entry], rounds: Layout, k: int) -> list[Round]:
    """Seat orders evening out seat counts, improved table by table to a fixed point."""
    counts: dict[Entry, list[int]] = {i: [0] * k for i in range(len(entries))}
    seated = [[tuple(g) for g in tables] for tables, _ in rounds]
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
            byes=[entries[i] for i in byes],
        )
        for tables, (_, byes) in zip(seated, rounds, strict=True)
    ]
