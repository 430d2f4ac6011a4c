"""The collusion report: pairs of entries that do better together than apart.

Input: finished tables, each with its entries in seat order, their game points
(per game 1 for each opponent finished ahead of, 1/2 for each level: the
pairwise comparisons a match is decided by) and its number of games. An
entry's *score* at a table is the share of its comparisons with opponents it
won: ``points / (games * opponents)``, from 0 to 1.

For a pair (a, b) that shared at least ``min_tables`` tables:

- *together*: at each shared table, the share of the pair's comparisons with
  the other seats (the outsiders) that the pair won. The comparisons between a
  and b cancel out (one's win is the other's loss), so only the outsiders count;
- *apart*: a's mean score at the tables without b, and b's without a;
- the pair's *joint effect* = mean(together) - (mean a apart + mean b apart) / 2.

If the two play for themselves, each wins against an outsider about as often as it
wins against the field elsewhere, so the effect is about 0; two bots that play for
each other (soft play, passing what they know) take comparisons from the outsiders
and the effect is positive. The test is one-sided: z = effect / se, with the
standard error from the spread of the shared tables and of each one's tables apart
(independent tables: each table is one observation, whatever its games, so the
games of one match are never counted as independent); p = 1 - Phi(z). The p-values
of all pairs tested are Holm-corrected (a step-down Bonferroni: it controls the
chance of flagging any honest pair at ``alpha``), and a pair is flagged when its
corrected p is at most ``alpha``; once a pair is flagged, the tables it shared are
set aside and the others tested again (:func:`collusion_report`). The report
flags; what to do is the organisers'.

Pure: no framework; deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

#: Fewest shared tables for a pair to be tested (fewer say nothing either way).
MIN_TABLES = 8
#: Family-wise error rate of the flags (Holm over the pairs tested).
ALPHA = 0.01


@dataclass(frozen=True)
class SeatedTable:
    """One finished table: entries in seat order, their game points, its games and
    the seat groups that are partners (``teams``; None when everyone plays alone)."""

    entries: tuple[Hashable, ...]
    points: tuple[float, ...]
    games: int
    teams: tuple[tuple[int, ...], ...] | None = None

    def opponents(self, seat: int) -> list[int]:
        team = next((t for t in self.teams or () if seat in t), (seat,))
        return [s for s in range(len(self.entries)) if s not in team]

    def score(self, seat: int) -> float:
        return self.points[seat] / (self.games * len(self.opponents(seat)))


@dataclass(frozen=True)
class PairReport:
    """One pair's figures (module docstring); ``p_adjusted`` is Holm-corrected."""

    a: Hashable
    b: Hashable
    tables_together: int
    a_together: float
    a_apart: float
    b_together: float
    b_apart: float
    others_together: float
    others_elsewhere: float
    together: float
    expected: float
    effect: float
    se: float
    z: float
    p: float
    p_adjusted: float
    flagged: bool


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return mean, var


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m, out, running = len(p_values), [1.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def collusion_report(
    tables: Iterable[SeatedTable], *, min_tables: int = MIN_TABLES, alpha: float = ALPHA
) -> list[PairReport]:
    """Every pair of entries that shared at least ``min_tables`` tables as opponents,
    most suspicious first (smallest p). Pairs seated as partners are not opponents.

    Flags are found one at a time: the most significant pair flagged is kept, the
    tables at which it sat together are set aside, and the other pairs are tested
    again without them (a colluding pair's victims lose at those tables, which
    would make any two victims look better together than apart).
    """
    tables = [t for t in tables if len(t.entries) >= 3]  # two seats: nothing to share
    flagged: list[PairReport] = []
    while True:
        pairs = [frozenset((r.a, r.b)) for r in flagged]
        usable = [t for t in tables if not any(p <= set(t.entries) for p in pairs)]
        rows = [r for r in _rows(usable, min_tables) if frozenset((r["a"], r["b"])) not in pairs]
        adjusted = holm([r.p for r in flagged] + [row["p"] for row in rows])[len(flagged) :]
        found = [(row["p"], i) for i, row in enumerate(rows) if adjusted[i] <= alpha]
        if not found:
            break
        _, i = min(found)
        flagged.append(PairReport(**rows[i], p_adjusted=adjusted[i], flagged=True))
    out = flagged + [
        PairReport(**row, p_adjusted=p, flagged=False)
        for row, p in zip(rows, adjusted, strict=True)
    ]
    return sorted(out, key=lambda r: (r.p, repr(r.a), repr(r.b)))


def _rows(tables: list[SeatedTable], min_tables: int) -> list[dict]:
    scores: dict[Hashable, list[tuple[int, float]]] = {}
    shared: dict[frozenset, list[int]] = {}
    for i, table in enumerate(tables):
        for seat, entry in enumerate(table.entries):
            scores.setdefault(entry, []).append((i, table.score(seat)))
        for s, t in combinations(range(len(table.entries)), 2):
            if t in table.opponents(s) and table.entries[s] != table.entries[t]:
                shared.setdefault(frozenset((table.entries[s], table.entries[t])), []).append(i)
    overall = {e: sum(x for _, x in rows) / len(rows) for e, rows in scores.items()}
    rows = []
    for pair, together in shared.items():
        if len(together) >= min_tables:
            row = _pair(sorted(pair, key=repr), together, tables, scores, overall)
            if row is not None:
                rows.append(row)
    return rows


def _pair(pair, together: list[int], tables, scores, overall) -> dict | None:
    a, b = pair
    shared = set(together)
    a_apart = [x for i, x in scores[a] if i not in shared]
    b_apart = [x for i, x in scores[b] if i not in shared]
    if len(a_apart) < 2 or len(b_apart) < 2:
        return None  # nothing to compare with
    joint, a_tog, b_tog, others, others_usual = [], [], [], [], []
    for i in together:
        table = tables[i]
        sa, sb = table.entries.index(a), table.entries.index(b)
        outsiders = [s for s in table.opponents(sa) if s in table.opponents(sb)]
        n_out = len(outsiders)
        # The pair's points less those from each other (they sum to one per game).
        won = table.points[sa] + table.points[sb] - table.games
        joint.append(won / (2 * n_out * table.games) if n_out else 0.5)
        a_tog.append(table.score(sa))
        b_tog.append(table.score(sb))
        others += [table.score(s) for s in outsiders]
        others_usual += [overall[table.entries[s]] for s in outsiders]
    mean_t, var_t = _mean_var(joint)
    mean_a, var_a = _mean_var(a_apart)
    mean_b, var_b = _mean_var(b_apart)
    expected = (mean_a + mean_b) / 2
    effect = mean_t - expected
    se = math.sqrt(var_t / len(joint) + (var_a / len(a_apart) + var_b / len(b_apart)) / 4)
    z = effect / se if se > 0 else (math.inf if effect > 0 else 0.0)
    p = 0.5 * math.erfc(z / math.sqrt(2))
    return {
        "a": a,
        "b": b,
        "tables_together": len(together),
        "a_together": sum(a_tog) / len(a_tog),
        "a_apart": mean_a,
        "b_together": sum(b_tog) / len(b_tog),
        "b_apart": mean_b,
        "others_together": sum(others) / len(others) if others else 0.0,
        "others_elsewhere": sum(others_usual) / len(others_usual) if others_usual else 0.0,
        "together": mean_t,
        "expected": expected,
        "effect": effect,
        "se": se,
        "z": z,
        "p": p,
    }
