"""Validation benchmark: how long validating a bot that declares every variant takes.

    python -m bench.validate [--bot bots/examples/python] [--variant V ...] [--json]

Runs the validation a worker runs (``bots.validation``: a short sandboxed match in
each variant against the built-ins, under the planned time control and limits) for
the example Python bot, and prints the seconds per variant and in all. The
baseline, in the same run, is the validation of one variant (``manni-basic``), what
every upload cost before bots declared their variants.
"""

from __future__ import annotations

import argparse
import json
import time

from bots import validation

#: What a worker's match time limit is by default (``CARDROOM_MATCH_TIME_LIMIT_S``).
MATCH_TIME_LIMIT_S = 1800


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="bots/examples/python")
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    baseline, baseline_s = _timed(args.bot, ["manni-basic"])
    report, total_s = _timed(args.bot, args.variant)
    figures = {
        "variants": {name: found["duration_s"] for name, found in report["variants"].items()},
        "passed": report["passed"],
        "total_s": round(total_s, 2),
        "one_variant_s": round(baseline_s, 2),
        "ratio": round(total_s / baseline_s, 2),
        "task_limit_s": validation.task_limit_s(
            [
                validation.plan(n, seed=0, match_time_limit_s=MATCH_TIME_LIMIT_S)
                for n in report["variants"]
            ]
        ),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for name, seconds in figures["variants"].items():
        print(f"{name:22} {seconds:7.2f} s")
    print(
        f"validation of {len(report['variants'])} variants: {total_s:.2f} s "
        f"(one variant: {baseline_s:.2f} s, ratio {figures['ratio']}); "
        f"passed {len(report['passed'])}; its task limit: {figures['task_limit_s']} s"
    )
    assert baseline["ok"]


def _timed(bot: str, variants: list[str]) -> tuple[dict, float]:
    start = time.perf_counter()
    report = validation.validate_program(
        bot, variants=variants, match_time_limit_s=MATCH_TIME_LIMIT_S
    )
    return report, time.perf_counter() - start


if __name__ == "__main__":
    main()
