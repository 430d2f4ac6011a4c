"""Engine benchmark: random playouts per second for every registered variant.

    python -m bench.engines [--seconds S] [--variants a,b] [--json]

For each variant it plays complete seeded random games for ``--seconds`` per
path and reports deals, games and actions per second:

- ``label``: the public API (``legal_actions`` / ``apply`` with label strings);
- ``step``: the integer path one decision at a time (``legal_ids`` / ``apply_id``);
- ``fast``: the engine's own random playout (``State.playout``), the loop search
  bots run: the same uniform choices as ``step``, card play inlined.

The three paths of a variant take turns, a tenth of a second each, until each
has had its ``--seconds`` (so a change in the machine's speed reaches all three
alike), and they play the very same games: the same seeds, and at every
decision the legal entry ``int(r.random() * len(legal))`` of one
``random.Random(0)`` stream (what ``State.playout`` draws), so their figures
differ only by the cost of the path.

When OpenSpiel (``pip install -e '.[bench]'``) is importable, the same run
measures the baseline: OpenSpiel's C++ ``skat`` played by ``pyspiel.evaluate_bots``
with uniform random bots, and a Python loop over ``pyspiel`` skat, and prints
our ratios to them: ``fast`` deals/s over C++ skat games/s (target >= 0.5) and
``label`` deals/s over the Python skat loop (target >= 1.0). The ``vs label``
column is each path's deals/s over ``label`` deals/s of the same variant in the
same run (target for ``fast`` in the trick games: >= 2.0). ``clone`` is the time
of one ``State.clone()`` in mid-deal. Everything runs on one core (the process
pins itself to CPU 0 where it can), and every figure is per second of this
process's CPU time, so other load on a shared machine disturbs the ratios less.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import sys
import time
from typing import Any

import games


def _clock() -> float:
    """This process's CPU time: other work on a shared machine does not count against us."""
    return time.process_time()


def _pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


PATHS = ("label", "step", "fast")


class PathRun:
    """Random games of ``variant`` through ``path``, played in slices (see :func:`run`).

    Each slice goes on from where the last one stopped: the same seeds, one after
    another, and the same ``random.Random(0)`` stream, so the games are those of one
    uninterrupted run; only the time spent in slices counts.
    """

    def __init__(self, variant: str, path: str) -> None:
        self.game = games.load(variant)
        self.path = path
        self.money = self.game.variant.family == "money"
        self.rnd = random.Random(0)
        self.seed = 0
        self.games = self.deals = self.actions = self.plays = 0
        self.elapsed = 0.0

    def play(self, seconds: float) -> None:
        """Play whole games for about ``seconds`` of this process's CPU time."""
        game, path, rnd = self.game, self.path, self.rnd
        draw = rnd.random  # the draws of State.playout
        start = _clock()
        deadline = start + seconds
        while _clock() < deadline:
            state = game.new_game(self.seed)
            self.seed += 1
            if path == "label":
                while not state.is_over():
                    legal = state.legal_actions()
                    state.apply(legal[int(draw() * len(legal))])
                    self.actions += 1
            elif path == "step":
                while not state.is_over():
                    ids = state.legal_ids()
                    state.apply_id(ids[int(draw() * len(ids))])
                    self.actions += 1
            else:
                state.playout(rnd)
            self.games += 1
            record = state.record()
            if path == "fast":
                self.actions += len(record["actions"])
            self.deals += len(record["decks"])
            if self.money:
                self.plays += record["actions"].count("turn")
        self.elapsed += _clock() - start

    def result(self) -> dict[str, Any]:
        elapsed = self.elapsed
        out = {
            "games_per_s": self.games / elapsed,
            "deals_per_s": self.deals / elapsed,
            "actions_per_s": self.actions / elapsed,
            "games": self.games,
            "deals": self.deals,
            "actions": self.actions,
            "seconds": elapsed,
        }
        if self.money:  # a Money game is one long deal: count card plays (`turn`)
            out["plays_per_s"] = self.plays / elapsed
            out["ms_per_100_plays"] = 100_000 * elapsed / self.plays
        return out


#: The length of one slice of a path's measure: the paths of a variant take turns.
SLICE_S = 0.1


def measure_paths(variant: str, seconds: float) -> dict[str, dict[str, Any]]:
    """Each of :data:`PATHS` for about ``seconds``, in turns of :data:`SLICE_S`.

    Taking turns, the three paths see the same state of the machine (a host that
    lends its CPUs to others, a clock that changes speed), so their ratios move far
    less from one run to the next than when each path ran its seconds in one go.
    """
    runs = [PathRun(variant, path) for path in PATHS]
    slice_s = min(SLICE_S, seconds)
    while any(r.elapsed < seconds for r in runs):
        for r in runs:
            if r.elapsed < seconds:
                r.play(min(slice_s, seconds - r.elapsed))
    return {r.path: r.result() for r in runs}


def measure_openspiel(seconds: float) -> dict[str, Any] | None:
    """OpenSpiel skat: C++ random playouts and a Python loop over pyspiel, or None."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("skat")
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(game.num_players())]
    n, start = 0, _clock()
    while _clock() - start < seconds:
        for _ in range(50):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, n)
            n += 1
    cpp = n / (_clock() - start)
    rnd = random.Random(0)
    n, start = 0, _clock()
    while _clock() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rnd.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rnd.choice(state.legal_actions()))
        n += 1
    py = n / (_clock() - start)
    return {
        "cpp_games_per_s": cpp,
        "python_loop_games_per_s": py,
        "version": getattr(pyspiel, "__version__", "unknown"),
    }


def measure_clone(variant: str, seconds: float) -> float:
    """Microseconds per ``State.clone()`` of a state a few tricks into its first deal."""
    game = games.load(variant)
    state = game.new_game(0)
    rnd = random.Random(1)
    for _ in range(12):
        if state.is_over():
            break
        state.apply_id(rnd.choice(state.legal_ids()))
    clones, start = 0, _clock()
    deadline = start + seconds / 4
    while _clock() < deadline:
        for _ in range(200):
            state.clone()
        clones += 200
    return 1e6 * (_clock() - start) / clones


def run(variants: list[str], seconds: float) -> dict[str, Any]:
    _pin_one_core()
    baseline = measure_openspiel(seconds)
    results: dict[str, Any] = {}
    for variant in variants:
        entry: dict[str, Any] = measure_paths(variant, seconds)
        label = entry["label"]["deals_per_s"]
        for path in ("step", "fast"):
            entry[f"{path}_vs_label"] = entry[path]["deals_per_s"] / label
        entry["clone_us"] = measure_clone(variant, seconds)
        if baseline and games.variant_info(variant).family != "money":
            entry["fast_vs_cpp_skat"] = entry["fast"]["deals_per_s"] / baseline["cpp_games_per_s"]
            entry["label_vs_python_skat"] = (
                entry["label"]["deals_per_s"] / baseline["python_loop_games_per_s"]
            )
        results[variant] = entry
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds_per_measure": seconds,
        "openspiel_skat": baseline,
        "variants": results,
    }


def print_table(report: dict[str, Any]) -> None:
    base = report["openspiel_skat"]
    print(
        f"Engine benchmark, Python {report['python']}, one core, "
        f"{report['seconds_per_measure']:.1f} s per measure"
    )
    if base:
        print(
            f"baseline OpenSpiel skat: C++ evaluate_bots {base['cpp_games_per_s']:,.0f} games/s; "
            f"Python loop over pyspiel {base['python_loop_games_per_s']:,.0f} games/s"
        )
    else:
        print("baseline OpenSpiel skat: not installed (pip install -e '.[bench]'); no ratios")
    print(
        f"{'variant':<22}{'path':<7}{'deals/s':>10}{'games/s':>10}{'actions/s':>12}"
        f"{'skat':>7}{'vs label':>10}{'clone us':>10}"
    )
    skat_keys = {"label": "label_vs_python_skat", "fast": "fast_vs_cpp_skat"}
    for variant, entry in report["variants"].items():
        for path in PATHS:
            row = entry[path]
            key = skat_keys.get(path)
            skat = f"{entry[key]:.2f}" if key in entry else "-"
            versus = f"{entry[path + '_vs_label']:.2f}" if path != "label" else "-"
            clone = f"{entry['clone_us']:.2f}" if path == "fast" else ""
            print(
                f"{variant:<22}{path:<7}{row['deals_per_s']:>10,.0f}{row['games_per_s']:>10,.1f}"
                f"{row['actions_per_s']:>12,.0f}{skat:>7}{versus:>10}{clone:>10}"
            )
    money = {v: e for v, e in report["variants"].items() if "plays_per_s" in e["fast"]}
    if money:
        print("Money (one game = one deal; a play is a `turn`):")
        for variant, entry in money.items():
            for path in PATHS:
                row = entry[path]
                print(
                    f"  {variant:<20}{path:<7}{row['plays_per_s']:>12,.0f} plays/s"
                    f"{row['ms_per_100_plays']:>9.3f} ms per 100 plays"
                )
    if base:
        print(
            "skat: label = label deals/s / Python-loop skat games/s (target >= 1.0); "
            "fast = fast deals/s / C++ skat games/s (target >= 0.5)"
        )
    print("vs label: deals/s / label deals/s of the same variant (target for fast >= 2.0)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measure")
    parser.add_argument("--variants", default="", help="comma-separated ids (default: all)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary only")
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v] or games.variants()
    for variant in variants:
        games.variant_info(variant)  # ValueError naming an unknown id
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    report = run(variants, args.seconds)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
