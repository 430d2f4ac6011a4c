"""Pairing benchmark: designing a round robin of multi-seat tables as entries grow.

    python -m bench.pairing [--sizes 30,120,300] [--seats 3,4,5] [--json]

A round robin of 3 to 5 seats per table is a search (``tournaments.formats.
round_robin.design_rounds``: every pair should meet about equally often); the
competition pairs its rounds one at a time from that design, inside the
transaction that records the last result of a round. For each size N and
table size it times:

- ``design``: the whole schedule, computed afresh (a worker's first round of
  this competition);
- ``round``: the next round once the design is remembered (every later round);
- the baseline of the same run: the two-seat circle method for the same N,
  a direct construction with nothing to search (``ratio`` = design / baseline).

It also prints how evenly pairs meet: the search's cost against its lower bound
(1.00 = every pair meets as evenly as the numbers allow), the spread of pair
meetings (max - min; 0 for a balanced design) and the tables each entry plays
(the same for all). Sizes with a known design (e.g. ``--sizes 7,9,13,15,21,25``)
are built, not searched. Pure Python, no database; times are the best of
``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time
from typing import Any

# The module (the package re-exports its function under the same name).
rr = importlib.import_module("tournaments.formats.round_robin")


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def spread(n: int, rounds: list) -> int:
    """Max - min of the pair meeting counts (pairs that never meet count as 0)."""
    meets: dict[tuple[int, int], int] = {}
    for r in rounds:
        for table in r.tables:
            for i, x in enumerate(table):
                for y in table[i + 1 :]:
                    pair = (min(x, y), max(x, y))
                    meets[pair] = meets.get(pair, 0) + 1
    low = min(meets.values()) if len(meets) == n * (n - 1) // 2 else 0
    return max(meets.values()) - low


def evenness(n: int, k: int, rounds: list) -> float:
    """Cost of the pair meetings (sum of squared counts) over the lower bound."""
    meets: dict[tuple[int, int], int] = {}
    for r in rounds:
        for table in r.tables:
            for i, x in enumerate(table):
                for y in table[i + 1 :]:
                    pair = (min(x, y), max(x, y))
                    meets[pair] = meets.get(pair, 0) + 1
    cost = sum(c * c for c in meets.values())
    pairs = n * (n - 1) // 2
    bound = rr._lower_bound(pairs, sum(meets.values()))
    return cost / bound if bound else 1.0


def measure(n: int, k: int, repeat: int) -> dict[str, Any]:
    entries = list(range(n))
    seed = 1

    def fresh():
        rr._designed.cache_clear()
        rr.designs.balanced_design.cache_clear()
        return rr.round_robin(entries, k, seed=seed)

    design = best_of(repeat, fresh)
    rounds = rr.round_robin(entries, k, seed=seed)  # now remembered
    per_round = best_of(repeat, lambda: rr.round_robin(entries, k, seed=seed)[len(rounds) // 2])
    baseline = best_of(repeat, lambda: rr.round_robin(entries, 2, seed=seed))
    return {
        "entries": n,
        "seats": k,
        "rounds": len(rounds),
        "design_ms": round(design * 1000, 2),
        "round_ms": round(per_round * 1000, 3),
        "baseline_ms": round(baseline * 1000, 3),
        "ratio": round(design / baseline, 1) if baseline else None,
        "evenness": round(evenness(n, k, rounds), 3),
        "spread": spread(n, rounds),
        "games": len([t for r in rounds for t in r.tables if 0 in t]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="30,120,300", help="numbers of entries")
    parser.add_argument("--seats", default="3,4,5", help="seats per table")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measure (best kept)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    seats = [int(s) for s in args.seats.split(",") if s.strip()]
    rows = [measure(n, k, args.repeat) for n in sizes for k in seats if n >= k]
    if args.json:
        json.dump({"python": platform.python_version(), "rows": rows}, sys.stdout, indent=2)
        print()
        return 0
    print(
        f"Round-robin design, python {platform.python_version()}, best of {args.repeat}; "
        "baseline: the two-seat circle method for the same entries"
    )
    header = (
        f"{'entries':>7} {'seats':>5} {'rounds':>6} {'design ms':>10} {'round ms':>9} "
        f"{'baseline ms':>11} {'ratio':>7} {'evenness':>8} {'spread':>6} {'games':>5}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['entries']:>7} {r['seats']:>5} {r['rounds']:>6} {r['design_ms']:>10.1f} "
            f"{r['round_ms']:>9.3f} {r['baseline_ms']:>11.3f} {r['ratio']:>7} "
            f"{r['evenness']:>8.3f} {r['spread']:>6} {r['games']:>5}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
