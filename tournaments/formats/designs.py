"""Balanced block designs: tables of ``k`` entries where every pair meets ``lam`` times.

A 2-(n, k, lam) design is a list of k-subsets (*blocks*) of ``0..n-1`` in
which every pair of points lies in exactly ``lam`` blocks; every point then
lies in ``r = lam (n - 1) / (k - 1)`` blocks. :func:`balanced_design` builds
one when this module knows how, trying in order:

- **Complete** (all k-subsets): when ``lam = C(n - 2, k - 2)``, e.g. one
  table of ``k``, or ``k + 1`` entries (4 at 3 seats: the 4 triples, each pair
  twice; 5 at 4 seats: the 5 quadruples, each pair 3 times).
- **Affine planes** AG(2, q), ``n = q * q``, ``k = q``, ``lam = 1`` for q = 3, 4, 5
  (9/3, 16/4, 25/5): the lines ``y = m x + c`` and ``x = c`` over GF(q). The
  q + 1 parallel classes (one per slope) are the rounds: every entry plays
  every round.
- **Kirkman triple system** KTS(15): the 35 lines of PG(3, 2) in 7 rounds of
  5 disjoint triples (Kirkman's schoolgirls).
- **Cyclic difference families** over Z_n: base blocks whose differences
  cover every non-zero residue ``lam`` times; their ``n`` translates form the
  design. Projective planes are the single-block case: the Fano plane 7/3
  ``{0, 1, 3}``, PG(2, 3) 13/4 ``{0, 1, 3, 9}``, PG(2, 4) 21/5
  ``{0, 1, 4, 14, 16}``; also 7/4 (lam 2), 11/5 (lam 2, the biplane of the
  quadratic residues) and Steiner triple systems such as 13/3 and 19/3. The
  families are found by a small backtracking search (a step budget) and
  checked before use.
- **Bose's construction** of Steiner triple systems for ``n = 6t + 3``
  (21, 27, 33...), from the commutative idempotent quasigroup
  ``x o y = (x + y) / 2`` mod ``2t + 1``.

:func:`pack_rounds` then groups the blocks into rounds of disjoint tables,
as few rounds as a seeded greedy packing finds (every entry plays in at most
one table of a round). Designs whose blocks pairwise intersect (projective
planes, complete designs of ``k + 1`` entries) play one table per round.
Plain Python, deterministic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb

from games.rng import Stream, shuffled

Block = tuple[int, ...]

#: Base blocks known to work, checked by :func:`is_balanced` anyway (n, k, lam).
KNOWN_FAMILIES: dict[tuple[int, int, int], tuple[Block, ...]] = {
    (7, 3, 1): ((0, 1, 3),),
    (13, 4, 1): ((0, 1, 3, 9),),
    (21, 5, 1): ((0, 1, 4, 14, 16),),
    (7, 4, 2): ((0, 1, 2, 4),),
    (11, 5, 2): ((1, 3, 4, 5, 9),),
    (13, 3, 1): ((0, 1, 4), (0, 2, 7)),
    (19, 3, 1): ((0, 1, 4), (0, 2, 9), (0, 5, 11)),
    (7, 3, 2): ((1, 2, 4), (3, 5, 6)),  # near-resolvable: translate i leaves out i
    (9, 4, 3): ((0, 1, 2, 4), (0, 1, 4, 6)),
    (37, 4, 1): ((0, 1, 3, 24), (0, 4, 9, 15), (0, 7, 17, 25)),
    (41, 5, 1): ((0, 1, 4, 11, 29), (0, 2, 8, 17, 22)),
}
#: Candidate elements tried when searching a difference family (about 0.1 s).
FAMILY_STEPS = 100_000
#: Blocks sampled to pick a hot move; the annealing's first and last temperature.
SPREAD_SAMPLES = 4
SPREAD_HOT = 4.0
SPREAD_COLD = 0.2
#: The largest n for which a difference family is searched (beyond, the budget rarely finds one).
MAX_FAMILY_SEARCH = 64
#: The largest complete design built (its number of blocks).
MAX_COMPLETE_BLOCKS = 200


@dataclass(frozen=True)
class Design:
    """A 2-(n, k, lam) design; ``rounds`` is a resolution if the construction has one."""

    n: int
    k: int
    lam: int
    blocks: tuple[Block, ...]
    name: str
    rounds: tuple[tuple[Block, ...], ...] | None = None


def replication(n: int, k: int, lam: int) -> int | None:
    """Blocks per point of a 2-(n, k, lam) design, or None if the counts do not divide."""
    if n < k or (lam * (n - 1)) % (k - 1):
        return None
    r = lam * (n - 1) // (k - 1)
    return r if (n * r) % k == 0 else None


def is_balanced(blocks: Iterable[Block], n: int, k: int, lam: int) -> bool:
    """Whether ``blocks`` are k-subsets of 0..n-1 covering every pair exactly ``lam`` times."""
    counts = [[0] * n for _ in range(n)]
    for block in blocks:
        if len(set(block)) != k or not all(0 <= x < n for x in block):
            return False
        for x, y in itertools.combinations(block, 2):
            counts[x][y] += 1
            counts[y][x] += 1
    return all(counts[x][y] == lam for x in range(n) for y in range(x + 1, n))


@lru_cache(maxsize=256)
def balanced_design(n: int, k: int, lam: int) -> Design | None:
    """A 2-(n, k, lam) design by the first construction that applies (module doc), or None."""
    if replication(n, k, lam) is None:
        return None
    for build in (_complete, _affine_plane, _kirkman_15, _cyclic, _bose):
        design = build(n, k, lam)
        if design is not None:
            assert is_balanced(design.blocks, n, k, lam), design.name
            return design
    return None


def _complete(n: int, k: int, lam: int) -> Design | None:
    if lam != comb(n - 2, k - 2) or comb(n, k) > MAX_COMPLETE_BLOCKS:
        return None
    blocks = tuple(itertools.combinations(range(n), k))
    return Design(n, k, lam, blocks, f"all {len(blocks)} {k}-subsets of {n}")


# GF(q) for the affine planes: addition and multiplication tables.
def _field(q: int) -> tuple[list[list[int]], list[list[int]]] | None:
    if q in (2, 3, 5, 7):
        return (
            [[(a + b) % q for b in range(q)] for a in range(q)],
            [[(a * b) % q for b in range(q)] for a in range(q)],
        )
    if q == 4:  # GF(2)[x] / (x^2 + x + 1); elements 0, 1, x, x + 1 as 0..3
        mul = [[0] * 4 for _ in range(4)]
        for a in range(4):
            for b in range(4):
                p = 0
                for i in range(2):
                    if b >> i & 1:
                        p ^= a << i
                if p & 4:
                    p ^= 0b111
                mul[a][b] = p
        return [[a ^ b for b in range(4)] for a in range(4)], mul
    return None


def _affine_plane(n: int, k: int, lam: int) -> Design | None:
    q = k
    field = _field(q)
    if lam != 1 or n != q * q or field is None:
        return None
    add, mul = field
    # Points are x * q + y; the first class holds the lines x = c.
    classes = [tuple(tuple(c * q + y for y in range(q)) for c in range(q))]
    for m in range(q):
        lines = []
        for c in range(q):
            lines.append(tuple(sorted(x * q + add[mul[m][x]][c] for x in range(q))))
        classes.append(tuple(lines))
    blocks = tuple(b for cls in classes for b in cls)
    return Design(n, k, lam, blocks, f"affine plane AG(2, {q})", tuple(classes))


def _kirkman_15(n: int, k: int, lam: int) -> Design | None:
    """KTS(15): points are the non-zero vectors of GF(2)^4, lines {a, b, a ^ b}."""
    if (n, k, lam) != (15, 3, 1):
        return None
    lines = {tuple(sorted((a - 1, b - 1, (a ^ b) - 1))) for a in range(1, 16) for b in range(1, a)}
    blocks = tuple(sorted(lines))
    rounds = _resolve(blocks, n, k)
    if rounds is None:
        return None
    classes = tuple(tuple(cls) for cls in rounds)
    return Design(n, k, lam, blocks, "Kirkman triple system KTS(15) from PG(3, 2)", classes)


def _resolve(blocks: Sequence[Block], n: int, k: int) -> list[list[Block]] | None:
    """Parallel classes covering ``blocks`` exactly (backtracking; small designs only)."""
    remaining = set(blocks)
    by_point: dict[int, list[Block]] = {x: [b for b in blocks if x in b] for x in range(n)}
    classes: list[list[Block]] = []

    def fill(current: list[Block], covered: set[int]) -> bool:
        if len(covered) == n:
            classes.append(list(current))
            if not remaining:
                return True
            if fill([], set()):
                return True
            classes.pop()
            return False
        x = min(set(range(n)) - covered)
        for b in by_point[x]:
            if b in remaining and not covered.intersection(b):
                remaining.discard(b)
                current.append(b)
                if fill(current, covered | set(b)):
                    return True
                current.pop()
                remaining.add(b)
        return False

    return classes if fill([], set()) else None


def _cyclic(n: int, k: int, lam: int) -> Design | None:
    family = KNOWN_FAMILIES.get((n, k, lam))
    if family is None and n <= MAX_FAMILY_SEARCH:
        family = difference_family(n, k, lam)
    if family is None:
        return None
    blocks = tuple(
        tuple(sorted((x + shift) % n for x in base)) for base in family for shift in range(n)
    )
    if not is_balanced(blocks, n, k, lam):
        return None
    bases = ", ".join("{" + ", ".join(map(str, b)) + "}" for b in family)
    rounds = None
    if len({x for b in family for x in b}) == k * len(family):
        # Disjoint base blocks: each translate of the family is a round.
        rounds = tuple(
            tuple(tuple(sorted((x + shift) % n for x in b)) for b in family) for shift in range(n)
        )
    return Design(n, k, lam, blocks, f"cyclic difference family {bases} mod {n}", rounds)


def difference_family(
    n: int, k: int, lam: int, steps: int = FAMILY_STEPS
) -> tuple[Block, ...] | None:
    """Base blocks over Z_n whose differences cover each non-zero residue ``lam`` times.

    Backtracking within ``steps``; None if none is found (or none exists). Only
    for full orbits: ``lam (n - 1)`` must be a multiple of ``k (k - 1)``.
    """
    if (lam * (n - 1)) % (k * (k - 1)):
        return None
    count = lam * (n - 1) // (k * (k - 1))
    used = [0] * n
    family: list[Block] = []
    budget = [steps]

    def add(block: Sequence[int], x: int, sign: int) -> bool:
        ok = True
        for y in block:
            for d in ((x - y) % n, (y - x) % n):
                used[d] += sign
                ok &= used[d] <= lam
        return ok

    def extend(block: list[int]) -> bool:
        if len(block) == k:
            family.append(tuple(block))
            if len(family) == count or next_block():
                return True
            family.pop()
            return False
        for x in range(block[-1] + 1, n):
            budget[0] -= 1
            if budget[0] < 0:
                return False
            fits = add(block, x, 1)
            if fits and extend([*block, x]):
                return True
            add(block, x, -1)
        return False

    def next_block() -> bool:
        # The smallest difference still missing lies in the next block: translate it to 0, d.
        d = next(d for d in range(1, n) if used[d] < lam)
        if not add([0], d, 1):
            add([0], d, -1)
            return False
        if extend([0, d]):
            return True
        add([0], d, -1)
        return False

    return tuple(family) if next_block() else None


def _bose(n: int, k: int, lam: int) -> Design | None:
    if k != 3 or lam != 1 or n % 6 != 3:
        return None
    m = n // 3  # the quasigroup of order 2t + 1 = m; points (x, i) -> x + m * i
    half = (m + 1) // 2  # the inverse of 2 mod m
    blocks = [tuple(x + m * i for i in range(3)) for x in range(m)]
    for i in range(3):
        for x, y in itertools.combinations(range(m), 2):
            z = ((x + y) * half) % m
            blocks.append(tuple(sorted((x + m * i, y + m * i, z + m * ((i + 1) % 3)))))
    return Design(n, k, lam, tuple(blocks), f"Bose's Steiner triple system of order {n}")


def pack_rounds(
    blocks: Sequence[Block], n: int, k: int, *, seed: int, tries: int = 16
) -> list[list[Block]]:
    """The blocks grouped into rounds of disjoint blocks, as few rounds as found.

    Seeded greedy: each round takes blocks whose points have the most blocks
    left, first-fit in a seeded order; then the smallest round is dissolved
    while each of its blocks fits into another round (directly, or by moving
    the one block in its way to a third round). The best of ``tries`` orders is kept,
    stopping early at the lower bound (``len(blocks) / (n // k)`` rounds, and
    never fewer rounds than a point has blocks).
    """
    per_round = n // k
    load = [0] * n
    for block in blocks:
        for x in block:
            load[x] += 1
    bound = max(-(-len(blocks) // per_round), max(load, default=0))
    best: list[list[Block]] | None = None
    for attempt in range(tries):
        order = shuffled(list(blocks), seed, f"designs/pack/{attempt}")
        rounds = _merge_rounds(_greedy_rounds(order, list(load)))
        if best is None or len(rounds) < len(best):
            best = rounds
        if len(best) <= bound:
            break
    assert best is not None
    return best


def _greedy_rounds(order: list[Block], left: list[int]) -> list[list[Block]]:
    rounds: list[list[Block]] = []
    remaining = list(order)
    while remaining:
        remaining.sort(key=lambda b: -sum(left[x] for x in b))  # stable: seeded order breaks ties
        busy: set[int] = set()
        taken: list[Block] = []
        rest: list[Block] = []
        for block in remaining:
            if busy.isdisjoint(block):
                taken.append(block)
                busy.update(block)
            else:
                rest.append(block)
        for block in taken:
            for x in block:
                left[x] -= 1
        rounds.append(taken)
        remaining = rest
    return rounds


def _merge_rounds(rounds: list[list[Block]]) -> list[list[Block]]:
    """Dissolve the smallest round into the others while that works (pack_rounds)."""
    rounds = [list(r) for r in rounds]
    while len(rounds) > 1:
        small = min(range(len(rounds)), key=lambda i: (len(rounds[i]), i))
        others = [list(r) for i, r in enumerate(rounds) if i != small]
        busy = [set().union(*r) for r in others]
        if not all(_place(block, others, busy) for block in rounds[small]):
            return rounds
        rounds = others
    return rounds


def _place(block: Block, rounds: list[list[Block]], busy: list[set[int]]) -> bool:
    """Put ``block`` in a round it fits, or move the single block in its way elsewhere."""
    for r, points in enumerate(busy):
        if points.isdisjoint(block):
            rounds[r].append(block)
            points.update(block)
            return True
    for r, points in enumerate(busy):
        clashes = [b for b in rounds[r] if not points.isdisjoint(block) and set(b) & set(block)]
        if len(clashes) != 1:
            continue
        clash = clashes[0]
        for q, other in enumerate(busy):
            if q != r and other.isdisjoint(clash):
                rounds[q].append(clash)
                other.update(clash)
                rounds[r].remove(clash)
                points.difference_update(clash)
                rounds[r].append(block)
                points.update(block)
                return True
    return False


def spread_blocks(
    blocks: Sequence[Sequence[int]], n: int, *, seed: int, steps: int
) -> tuple[int, list[list[int]]]:
    """Even out pair meetings by moving entries between blocks (simulated annealing).

    A move swaps ``x`` of one block with ``y`` of another (neither in the
    other's block), so every entry keeps its number of blocks. Half the moves
    start from the block with most surplus meetings (pairs above the even
    share) among a few random ones. A move that raises the sum of squared
    meeting counts by ``d`` is kept with probability ``exp(-d / temperature)``,
    the temperature falling geometrically. Stops at the lower bound of that
    sum (every pair within one of the others) or after ``steps``. Returns the
    sum and the best blocks found.
    """
    rng = Stream(seed, "designs/spread")
    work = [list(b) for b in blocks]
    k, m = len(work[0]), len(work)
    c = [[0] * n for _ in range(n)]
    for b in work:
        for x, y in itertools.combinations(b, 2):
            c[x][y] += 1
            c[y][x] += 1
    cost = sum(c[x][y] ** 2 for x in range(n) for y in range(x + 1, n))
    pairs = n * (n - 1) // 2
    low, extra = divmod(m * k * (k - 1) // 2, pairs)
    target = extra * (low + 1) ** 2 + (pairs - extra) * low * low
    best_cost, best = cost, [list(b) for b in work]
    hot, cold = SPREAD_HOT, SPREAD_COLD
    for step in range(steps):
        if best_cost <= target:
            break
        temperature = hot * (cold / hot) ** (step / steps)
        if rng.below(2):
            i = rng.below(m)
        else:
            i = max(
                (rng.below(m) for _ in range(SPREAD_SAMPLES)),
                key=lambda j: sum(c[x][y] for x, y in itertools.combinations(work[j], 2)),
            )
        j = rng.below(m - 1)
        j += j >= i
        b1, b2 = work[i], work[j]
        p1, p2 = rng.below(k), rng.below(k)
        x, y = b1[p1], b2[p2]
        if x in b2 or y in b1:
            continue
        # An entry z in both blocks keeps its meetings with x and with y.
        shared = sum(1 for z in b1 if z in b2)
        delta = 2 * (
            sum(c[y][z] - c[x][z] for z in b1 if z != x)
            + sum(c[x][z] - c[y][z] for z in b2 if z != y)
        ) + 4 * (k - 1 - shared)
        if delta > 0 and rng.below(1 << 30) >= (1 << 30) * math.exp(-delta / temperature):
            continue
        for z in b1:
            if z != x:
                c[x][z] -= 1
                c[z][x] -= 1
                c[y][z] += 1
                c[z][y] += 1
        for z in b2:
            if z != y:
                c[y][z] -= 1
                c[z][y] -= 1
                c[x][z] += 1
                c[z][x] += 1
        b1[p1], b2[p2] = y, x
        cost += delta
        if cost < best_cost:
            best_cost, best = cost, [list(b) for b in work]
    return best_cost, best
