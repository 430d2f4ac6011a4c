"""The collusion watch: the collusion report made sequential, one verdict per pair.

The report (``tournaments.ratings.collusion``) tests each pair's rank effect alone,
Holm-corrected, once; the soft-play signal (``tournaments.ratings.soft_play``) sits
beside it uncorrected. A colluding pair's soft play shows long before its rank
effect does (tables of three, a pair gaining 0.08 of a rank a game: 270 shared
tables for a flag on the rank effect alone). The watch combines the two and may be
looked at after every table:

- *soft play of the pair*: each direction's one-sided two-proportion z (a's chances
  against b, let go or not, against a's chances against the others at the tables
  the two shared; b's towards a the same), the two combined by Stouffer, p_soft;
- *rank effect*: the report's p for the pair, p_rank;
- *think times*: whether the two bots share a think-time pattern, the kind of timing
  beacon copies find each other by (``tournaments.ratings.think_times.alike``), p_think;
  1.0 when either has too few processes to test (``think_times.MIN_PROCESSES``);
- *combined*: Stouffer's z = (z_rank + z_soft) / sqrt(2), p = 1 - Phi(z): a pair
  must show both (an honest pair's soft-play z is about 0, its rank z too). Where the
  pair's think times were tested, the three are combined too, the think-time z counted
  at most :data:`THINK_Z_CAP` (a shared beacon says two bots can find each other, not
  that they play for each other: alone it never flags, as two honest copies of one
  program share one), and the pair's p is the smaller of the two combinations doubled
  (Bonferroni over the two): a pair with a beacon is flagged sooner, a pair that
  colludes without one loses only the doubling;
- *sequential*: a pair is looked at whenever a table it shared is recorded. The
  alpha of its n-th look is ``alpha * n0 / (n (n + 1))`` (n0 = the first look,
  ``min_tables``), whose sum over every look n >= n0 is alpha: however often one
  looks, the chance that an honest pair is ever flagged stays at most alpha. So a
  pair's *sequential p* is ``p * n (n + 1) / n0``, and the sequential p-values of
  all pairs looked at are Holm-corrected (``p_adjusted``); a pair is flagged at
  ``p_adjusted <= alpha``.

Pure: no framework; deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

from tournaments.ratings.collusion import ALPHA, MIN_TABLES, PairReport, holm
from tournaments.ratings.soft_play import SoftPlay
from tournaments.ratings.think_times import Profile, alike

#: The most a pair's think-time z counts in the combination (the z of p 0.001): with the
#: other two at 0, Stouffer's z of three is then 1.78 at most, never a flag.
THINK_Z_CAP = 3.09


@dataclass(frozen=True)
class WatchRow:
    """One pair's verdict of the watch (module docstring)."""

    a: Hashable
    b: Hashable
    tables_together: int
    p_rank: float
    p_soft: float
    p: float
    p_sequential: float
    p_adjusted: float
    flagged: bool
    #: The think-time test's p (``think_times.alike``); 1.0 when not tested.
    p_think: float = 1.0


def _z(p: float) -> float:
    """The standard normal quantile of 1 - p (one-sided z of a p-value), finite."""
    p = min(max(p, 1e-300), 1 - 1e-16)
    lo, hi = -40.0, 40.0
    for _ in range(200):  # bisection: erfc is monotone, no scipy in the core
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(mid / math.sqrt(2)) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def stouffer(*p_values: float) -> float:
    """Stouffer's combination of one-sided p-values (equal weights)."""
    z = sum(_z(p) for p in p_values) / math.sqrt(len(p_values))
    return 0.5 * math.erfc(z / math.sqrt(2))


def direction_z(signal: SoftPlay | None) -> float:
    """The one-sided z of one giver's soft play towards one taker (its chances against
    the taker against its chances against the others, pooled standard error); 0 when
    there is nothing to compare (no chance on a side, nothing ever or always let go)."""
    if signal is None or not signal.chances or not signal.chances_others:
        return 0.0
    n1, n2 = signal.chances, signal.chances_others
    pooled = (signal.let_go + signal.let_go_others) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return (signal.let_go / n1 - signal.let_go_others / n2) / se if se else 0.0


def pair_soft_play_p(
    signals: Mapping[tuple[Hashable, Hashable], SoftPlay], a: Hashable, b: Hashable
) -> float:
    """The pair's soft-play p: the two directions' z combined (Stouffer), never their
    counts pooled (a giver that never lets a chance go and one that often does would
    weigh differently on the two sides: Simpson's paradox)."""
    z = (direction_z(signals.get((a, b))) + direction_z(signals.get((b, a)))) / math.sqrt(2)
    return 0.5 * math.erfc(z / math.sqrt(2))


def pair_think_p(profiles: Mapping[Hashable, Profile], a: Hashable, b: Hashable) -> float | None:
    """The pair's think-time p (``think_times.alike``), or None when either bot has no
    profile or too few processes for the test."""
    if a not in profiles or b not in profiles:
        return None
    result = alike(profiles[a], profiles[b])
    return result.p if result.tested else None


def combined_p(p_rank: float, p_soft: float, p_think: float | None) -> float:
    """The pair's combined p (module docstring): Stouffer of the rank effect and soft
    play; with a think-time p, the smaller of that and Stouffer of all three (the
    think-time z capped at :data:`THINK_Z_CAP`), doubled."""
    two = stouffer(p_rank, p_soft)
    if p_think is None:
        return two
    z = (_z(p_rank) + _z(p_soft) + min(_z(p_think), THINK_Z_CAP)) / math.sqrt(3)
    three = 0.5 * math.erfc(z / math.sqrt(2))
    return min(1.0, 2 * min(two, three))


def look_factor(n: int, first: int = MIN_TABLES) -> float:
    """What a p-value of a pair's ``n``-th shared table is multiplied by (the inverse of
    the share of alpha that look spends; module docstring)."""
    if n < first:
        raise ValueError(f"look {n} comes before the first look {first}")
    return n * (n + 1) / first


def collusion_watch(
    report: Iterable[PairReport],
    signals: Mapping[tuple[Hashable, Hashable], SoftPlay],
    *,
    alpha: float = ALPHA,
    min_tables: int = MIN_TABLES,
    profiles: Mapping[Hashable, Profile] | None = None,
) -> list[WatchRow]:
    """The watch's verdict on every pair of ``report`` (``collusion_report`` of the tables
    so far, pairs with at least ``min_tables`` shared tables), given the soft-play
    ``signals`` of the same tables (``soft_play.soft_play``) and the think-time
    ``profiles`` of the entries (``think_times.Profile``; none: not tested); most
    suspicious first."""
    rows = []
    for r in report:
        if r.tables_together < min_tables:
            continue
        p_soft = pair_soft_play_p(signals, r.a, r.b)
        p_think = pair_think_p(profiles or {}, r.a, r.b)
        p = combined_p(r.p, p_soft, p_think)
        seq = min(1.0, p * look_factor(r.tables_together, min_tables))
        rows.append((r, p_soft, 1.0 if p_think is None else p_think, p, seq))
    adjusted = holm([seq for *_, seq in rows])
    out = [
        WatchRow(r.a, r.b, r.tables_together, r.p, p_soft, p, seq, adj, adj <= alpha, p_think)
        for (r, p_soft, p_think, p, seq), adj in zip(rows, adjusted, strict=True)
    ]
    return sorted(out, key=lambda w: (w.p_sequential, repr(w.a), repr(w.b)))
