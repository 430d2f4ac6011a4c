"""Ladder benchmark: how fast the ladder's order converges, and how well the field mixes.

    python -m bench.ladder [--sizes 10,100,1000] [--seats 2] [--caps 1000,6000,20000]
                           [--repeat 5,3,1] [--noise 0.25] [--json]

For each field size N, entries get hidden true strengths (standard normal,
seeded). A ladder is played batch after batch, as the competition does: every
free entry is seated by the scheduler under test, each table's result is drawn
from the true strengths (Thurstone: a performance ``strength + noise * N(0, 1)``
per entry, ranked), and ratings are updated with the project's own rating code
(``tournaments.ratings.rate_game``, openskill's Plackett-Luce). Three schedulers
play the same fields in the same run:

- ``new``: ``tournaments.formats.ladder.ladder_tables`` with mu, sigma, games
  and the recent tables, as ``tournaments.pairing`` feeds it;
- ``old``: the baseline, the previous rule kept here: fewest games, then
  highest sigma, then a seeded tie-break, consecutive entries at a table;
- ``random``: uniform random tables every batch.

Reported per field and scheduler (median over ``--repeat`` seeds):

- ``to tau 0.9``: matches played until the standings' order (the displayed
  rating, mu - 3 sigma) first reaches a Kendall tau of 0.9 against the true
  order, "not reached within N" when the cap of N matches came first;
- ``stays``: matches after which the tau stayed at 0.9 or above until the cap;
- ``near met``: the share of pairs at most 10 places apart in the true order
  that have met at least once within the cap;
- ``final tau``: the Kendall tau after the cap;
- ``max/mean``: the most meetings of one pair over the mean of the pairs that met;
- ratios to the ``old`` baseline of the same run and to ``random`` (``<x``:
  the other never reached the target, x is over the cap, an upper bound).

The default noise (0.25 per seat against strengths of standard deviation 1)
makes a match between entries a standard deviation apart nearly certain and
one between neighbours close to a coin flip, as between bots that differ a
lot and bots that differ little; with much more noise every scheduler's
order stays near openskill's floor (its sigma never falls below what its
per-game drift adds) and the target is reached late or not at all.

Pure Python, no database.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import statistics
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from typing import Any

from games.rng import shuffled
from tournaments.formats.common import derive_seed
from tournaments.formats.ladder import RECENT_TABLES_PER_ENTRY, LadderEntry, ladder_tables
from tournaments.ratings import Rating, rate_game

TARGET_TAU = 0.9
NEAR = 10  # places apart in the true order

Table = tuple[int, ...]


class Field:
    """A simulated ladder: true strengths, current ratings, games and history."""

    def __init__(self, n: int, seats: int, seed: int, noise: float) -> None:
        rnd = random.Random(seed)
        self.n, self.seats, self.noise = n, seats, noise
        self.strength = [rnd.gauss(0.0, 1.0) for _ in range(n)]
        self.outcomes = random.Random(seed + 1)
        self.ratings: dict[int, Rating] = {i: Rating() for i in range(n)}
        self.games = [0] * n
        self.recent: deque[Table] = deque(maxlen=max(1, RECENT_TABLES_PER_ENTRY * n // seats))
        self.meetings: Counter[tuple[int, int]] = Counter()
        self.matches = 0

    def play(self, table: Table) -> None:
        perf = [self.strength[e] + self.noise * self.outcomes.gauss(0.0, 1.0) for e in table]
        order = sorted(range(len(table)), key=lambda s: -perf[s])
        ranks = [0] * len(table)
        for place, s in enumerate(order, start=1):
            ranks[s] = place
        self.ratings.update(rate_game(self.ratings, table, ranks))
        for e in table:
            self.games[e] += 1
        for x, a in enumerate(table):
            for b in table[x + 1 :]:
                self.meetings[(min(a, b), max(a, b))] += 1
        self.recent.append(table)
        self.matches += 1

    def tau(self) -> float:
        """Kendall tau of the displayed ratings against the true strengths (ties count 0)."""
        by_truth = sorted(range(self.n), key=lambda e: self.strength[e])
        shown = [self.ratings[e].display for e in by_truth]
        pairs = self.n * (self.n - 1) // 2
        ties = sum(c * (c - 1) // 2 for c in Counter(shown).values())
        discordant = _inversions(shown)
        return (pairs - ties - 2 * discordant) / pairs

    def near_met(self) -> float:
        """Share of pairs at most :data:`NEAR` places apart in the true order that met."""
        by_truth = sorted(range(self.n), key=lambda e: self.strength[e])
        near = [
            (min(a, b), max(a, b))
            for x, a in enumerate(by_truth)
            for b in by_truth[x + 1 : x + 1 + NEAR]
        ]
        return sum(1 for p in near if self.meetings[p]) / len(near)

    def max_over_mean(self) -> float:
        counts = list(self.meetings.values())
        return max(counts) / statistics.fmean(counts) if counts else 0.0


def _inversions(values: list[float]) -> int:
    """Pairs i < j with values[i] > values[j] (merge sort, O(n log n))."""
    count = 0
    width, items = 1, list(values)
    while width < len(items):
        merged: list[float] = []
        for lo in range(0, len(items), 2 * width):
            left, right = items[lo : lo + width], items[lo + width : lo + 2 * width]
            i = j = 0
            while i < len(left) and j < len(right):
                if left[i] <= right[j]:
                    merged.append(left[i])
                    i += 1
                else:
                    merged.append(right[j])
                    count += len(left) - i
                    j += 1
            merged += left[i:] + right[j:]
        items, width = merged, 2 * width
    return count


Scheduler = Callable[[Field, int, int], list[Table]]


def new_scheduler(field: Field, number: int, seed: int) -> list[Table]:
    candidates = [
        LadderEntry(e, recent_games=field.games[e], sigma=r.sigma, mu=r.mu)
        for e, r in field.ratings.items()
    ]
    return ladder_tables(
        candidates, field.seats, seed=derive_seed(seed, f"ladder/{number}"), recent=field.recent
    )


def old_scheduler(field: Field, number: int, seed: int) -> list[Table]:
    """The previous rule (the baseline): games, then -sigma, then a seeded tie-break."""
    batch_seed = derive_seed(seed, f"ladder/{number}")
    tiebreak = {i: pos for pos, i in enumerate(shuffled(range(field.n), batch_seed, "ladder/tie"))}
    order = sorted(
        range(field.n), key=lambda e: (field.games[e], -field.ratings[e].sigma, tiebreak[e])
    )
    k = field.seats
    return [
        tuple(shuffled(order[t * k : (t + 1) * k], batch_seed, f"ladder/seats/{t}"))
        for t in range(field.n // k)
    ]


def random_scheduler(field: Field, number: int, seed: int) -> list[Table]:
    order = shuffled(range(field.n), derive_seed(seed, f"random/{number}"), "bench/random")
    k = field.seats
    return [tuple(order[t * k : (t + 1) * k]) for t in range(field.n // k)]


SCHEDULERS: dict[str, Scheduler] = {
    "new": new_scheduler,
    "old": old_scheduler,
    "random": random_scheduler,
}


def run(scheduler: Scheduler, n: int, seats: int, cap: int, seed: int, noise: float) -> dict:
    field = Field(n, seats, seed, noise)
    reached = stays = None
    number = 0
    started = time.perf_counter()
    while field.matches < cap:
        number += 1
        for table in scheduler(field, number, seed)[: cap - field.matches]:
            field.play(table)
        if field.tau() >= TARGET_TAU:
            reached = field.matches if reached is None else reached
            stays = field.matches if stays is None else stays
        else:
            stays = None
    return {
        "matches_to_tau": reached,
        "matches_to_stay": stays,
        "near_met": field.near_met(),
        "final_tau": field.tau(),
        "max_over_mean": field.max_over_mean(),
        "seconds": time.perf_counter() - started,
    }


def measure(n: int, seats: int, cap: int, repeat: int, noise: float) -> list[dict[str, Any]]:
    rows = []
    for name, scheduler in SCHEDULERS.items():
        runs = [run(scheduler, n, seats, cap, seed, noise) for seed in range(1, repeat + 1)]
        reached = [r["matches_to_tau"] for r in runs]
        rows.append(
            {
                "entries": n,
                "seats": seats,
                "scheduler": name,
                "cap": cap,
                "runs": repeat,
                "matches_to_tau": _median(reached),
                "matches_to_stay": _median([r["matches_to_stay"] for r in runs]),
                "reached": sum(m is not None for m in reached),
                "near_met": round(statistics.median(r["near_met"] for r in runs), 3),
                "final_tau": round(statistics.median(r["final_tau"] for r in runs), 3),
                "max_over_mean": round(statistics.median(r["max_over_mean"] for r in runs), 2),
                "seconds": round(sum(r["seconds"] for r in runs), 2),
            }
        )
    old = next(r for r in rows if r["scheduler"] == "old")
    uniform = next(r for r in rows if r["scheduler"] == "random")
    for row in rows:
        row["tau_vs_old"], row["tau_vs_old_is_bound"] = _ratio(row, old)
        row["tau_vs_random"], row["tau_vs_random_is_bound"] = _ratio(row, uniform)
        row["near_vs_old"] = (
            round(row["near_met"] / old["near_met"], 2) if old["near_met"] else None
        )
    return rows


def _median(values: list[int | None]) -> int | None:
    """The median (the lower one of an even count); None (never) counts as beyond the cap."""
    ordered = sorted(values, key=lambda m: math.inf if m is None else m)
    return ordered[(len(ordered) - 1) // 2]


def _ratio(row: dict[str, Any], base: dict[str, Any]) -> tuple[float | None, bool]:
    """Matches to the target over the baseline's; an upper bound (the cap) if the
    baseline did not reach it, None if this row did not."""
    mine, theirs = row["matches_to_tau"], base["matches_to_tau"]
    if mine is None:
        return None, False
    if theirs is None:
        return round(mine / base["cap"], 2), True
    return round(mine / theirs, 2), False


def _ints(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def _per_size(values: Sequence[int], sizes: Sequence[int], what: str) -> list[int]:
    if len(values) == 1:
        return list(values) * len(sizes)
    if len(values) != len(sizes):
        raise SystemExit(f"--{what} needs one value or one per size ({len(sizes)}), got {values}")
    return list(values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10,100,1000", help="numbers of entries")
    parser.add_argument("--seats", type=int, default=2, help="seats per table")
    parser.add_argument("--caps", default="1000,6000,20000", help="match cap per size")
    parser.add_argument("--repeat", default="5,3,1", help="seeds per size (median reported)")
    parser.add_argument(
        "--noise", type=float, default=0.25, help="performance noise per match (strengths: sd 1)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    sizes = _ints(args.sizes)
    caps = _per_size(_ints(args.caps), sizes, "caps")
    repeats = _per_size(_ints(args.repeat), sizes, "repeat")
    rows = [
        row
        for n, cap, repeat in zip(sizes, caps, repeats, strict=True)
        for row in measure(n, args.seats, cap, repeat, args.noise)
    ]
    report = {
        "python": platform.python_version(),
        "seats": args.seats,
        "noise": args.noise,
        "target_tau": TARGET_TAU,
        "near": NEAR,
        "rows": rows,
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    _print_table(report)
    return 0


def _print_table(report: dict[str, Any]) -> None:
    print(
        f"Ladder convergence and mixing, python {report['python']}, {report['seats']} seats, "
        f"noise {report['noise']}; baseline: the old scheduler of the same run"
    )
    header = (
        f"{'entries':>7} {'scheduler':>9} {'runs':>4} {'to tau 0.9':>28} {'vs old':>6} "
        f"{'vs rnd':>6} {'stays':>6} {'near met':>8} {'vs old':>6} {'final tau':>9} "
        f"{'max/mean':>8} {'seconds':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in report["rows"]:
        m = r["matches_to_tau"]
        reached = (
            f"not reached within {r['cap']}" if m is None else f"{m} ({r['reached']}/{r['runs']})"
        )
        print(
            f"{r['entries']:>7} {r['scheduler']:>9} {r['runs']:>4} {reached:>28} "
            f"{_show(r['tau_vs_old'], r['tau_vs_old_is_bound']):>6} "
            f"{_show(r['tau_vs_random'], r['tau_vs_random_is_bound']):>6} "
            f"{r['matches_to_stay'] or '-':>6} {r['near_met']:>8.3f} {_show(r['near_vs_old']):>6} "
            f"{r['final_tau']:>9.3f} {r['max_over_mean']:>8.2f} {r['seconds']:>7.1f}"
        )


def _show(value: float | None, bound: bool = False) -> str:
    if value is None:
        return "-"
    return f"<{value:.2f}" if bound else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
