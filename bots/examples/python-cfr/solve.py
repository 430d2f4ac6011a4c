"""Solve the one-deal maniglia-4 of docs/training.md with MCCFR; write the bot's table.

    python bots/examples/python-cfr/solve.py                     # 2,000 iterations, ~10 s
    python bots/examples/python-cfr/solve.py --iterations 20000

Outcome-sampling MCCFR (OpenSpiel's ``outcome_sampling_mccfr``) on maniglia-4 with one
rank (the four 7s, one card each), target 1 and ``dealer-forced``: one deal, an
auction of bids 20 and 21. Its average policy is written by
``bots.sdk.policy.save_tabular`` to ``policy.json.gz`` beside this file, which
``bot.py`` plays. Needs the ``rl`` extra (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent))  # the checkout: games and bots.sdk

import pyspiel  # noqa: E402
from open_spiel.python.algorithms import outcome_sampling_mccfr  # noqa: E402

import games.envs.openspiel  # noqa: E402, F401  (registers the games)
from bots.sdk.policy import save_tabular  # noqa: E402

GAME = "python_cardroom_maniglia_4"
PARAMETERS = {"maniglia_ranks": 1, "maniglia_target": 1, "maniglia_all_pass": "dealer-forced"}


def solve(iterations: int, out: Path, seed: int = 1) -> int:
    """Run ``iterations`` of MCCFR and write the average policy; the states written."""
    import numpy as np

    np.random.seed(seed)  # OpenSpiel's MCCFR samples with numpy's global generator
    game = pyspiel.load_game(GAME, PARAMETERS)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(iterations):
        solver.iteration()
    return save_tabular(solver.average_policy(), out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=HERE / "policy.json.gz")
    args = parser.parse_args(argv)
    started = time.monotonic()
    states = solve(args.iterations, args.out)
    print(f"{states} information states written to {args.out} in "
          f"{time.monotonic() - started:.0f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
