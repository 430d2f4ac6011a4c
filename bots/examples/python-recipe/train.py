"""Train the recipe's policy: imitation of the search player ``ismcts``, numpy only.

    nice -n 10 python bots/examples/python-recipe/train.py            # the committed weights
    python bots/examples/python-recipe/train.py --games maniglia-3=40,money-jordan=40 --jobs 1

1. **Demonstrations.** ``ismcts`` (``bots.builtin.ismcts``: determinised search over
   sampled worlds, docs/search.md) plays one seat against ``greedy`` in the others, the
   seat rotating with the game's seed. At each of its decisions with a choice, the
   features of every legal label (``recipe.Features``) and the label it chose are
   kept. In maniglia-3 the search is spent on the auction only (its card play is
   greedy's: ``rule_phases=("play", "trump")``), where it gains the most against greedy.
2. **Fit.** For each phase, a conditional logit: ``P(label) ~ exp(w . features)`` over
   the legal labels, ``w`` by gradient ascent (Adam) on the log-likelihood of the
   search's choices with a small L2 penalty, from ``w`` = 2 on "greedy's choice".
3. **Write** ``weights.json`` (plain JSON, ``recipe.FORMAT``), which ``bot.py`` plays.

Games run in ``--jobs`` processes; everything is seeded (``--seed``), so the same
command gives the same file on the same engines.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent.parent))  # the checkout: games and bots

from recipe import FEATURES, FORMAT, Features  # noqa: E402

import games  # noqa: E402
from bots import builtin  # noqa: E402
from bots.builtin.ismcts import IsmctsBot  # noqa: E402
from bots.referee import InProcessPlayer, play_match  # noqa: E402

#: Games of demonstrations a variant, the committed weights' run.
GAMES = {"maniglia-3": 400, "money-jordan": 300}
#: The search's settings a variant (beside ismcts' own per-variant ones).
SEARCH = {"maniglia-3": {"rule_phases": ("play", "trump")}}


class Demonstrator(IsmctsBot):
    """``ismcts`` that keeps ``(key, features of the legal labels, index chosen)``."""

    def __init__(self, seed: int, **settings: Any) -> None:
        super().__init__(seed, **settings)
        self.features = Features()
        self.kept: list[tuple[str, list[list[float]], int]] = []

    def start(self, hello: dict[str, Any]) -> None:
        super().start(hello)
        self.features.start(hello)

    def game_over(self, result: dict[str, Any]) -> None:
        super().game_over(result)
        self.features.game_over(result)

    def decide(self, tracker: Any, legal: list[str]) -> str:
        label = super().decide(tracker, legal)
        if len(legal) > 1:
            observation = tracker.observation
            greedy = self.features.greedy(observation, legal)
            key, rows = self.features.of(observation, legal, greedy)
            if rows:
                self.kept.append((key, rows, legal.index(label)))
        return label


def demonstrations(job: tuple[str, int, int]) -> list[tuple[str, list[list[float]], int]]:
    """The demonstrations of games ``first .. first + count - 1`` of ``variant``."""
    variant, first, count = job
    players = games.load(variant).num_players
    kept = []
    for seed in range(first, first + count):
        demonstrator = Demonstrator(seed, **SEARCH.get(variant, {}))
        seat = seed % players
        table = [
            InProcessPlayer(demonstrator, "ismcts")
            if k == seat
            else InProcessPlayer(builtin.make("greedy", seed=seed), f"greedy-{k}")
            for k in range(players)
        ]
        play_match(variant, table, games_count=1, seed=seed, traces=False)
        kept.extend(demonstrator.kept)
    return kept


def fit(rows: list[tuple[list[list[float]], int]], size: int, steps: int = 400) -> np.ndarray:
    """The conditional logit's weights: max log-likelihood of the choices, L2 1e-3."""
    lengths = np.array([len(r) for r, _ in rows])
    x = np.array([f for r, _ in rows for f in r], dtype=np.float64).reshape(-1, size)
    owner = np.repeat(np.arange(len(rows)), lengths)
    chosen = np.cumsum(np.concatenate([[0], lengths[:-1]])) + np.array([k for _, k in rows])
    w = np.zeros(size)
    w[0] = 2.0  # start as greedy
    m, v = np.zeros(size), np.zeros(size)
    for t in range(1, steps + 1):
        z = x @ w
        z -= np.maximum.reduceat(z, np.r_[0, np.cumsum(lengths)[:-1]])[owner]
        e = np.exp(z)
        p = e / np.bincount(owner, weights=e)[owner]
        grad = (x[chosen].sum(axis=0) - (p[:, None] * x).sum(axis=0)) / len(rows) - 2e-3 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w += 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w


def agreement(rows: list[tuple[list[list[float]], int]], w: np.ndarray) -> float:
    """The share of the search's choices the fitted policy's best label matches."""
    hits = [int(np.argmax(np.array(r) @ w)) == k for r, k in rows]
    return sum(hits) / max(len(hits), 1)


def parse_games(text: str) -> dict[str, int]:
    out = {}
    for part in text.split(","):
        variant, _, count = part.partition("=")
        if variant not in games.variants() or not count.isdigit() or int(count) < 1:
            raise argparse.ArgumentTypeError(f"--games: {part!r} is not variant=count")
        out[variant] = int(count)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=parse_games, default=GAMES, help="variant=N,...")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--out", type=Path, default=HERE / "weights.json")
    args = parser.parse_args(argv)
    started = time.monotonic()
    out: dict[str, Any] = {"format": FORMAT, "variants": {}}
    for variant, count in args.games.items():
        chunk = max(1, count // (4 * args.jobs))
        jobs = [
            (variant, args.seed + first, min(chunk, count - first))
            for first in range(0, count, chunk)
        ]
        with Pool(args.jobs) as pool:
            kept = [d for part in pool.map(demonstrations, jobs) for d in part]
        family = games.variant_info(variant).family
        phases = {}
        for key in sorted({k for k, _, _ in kept}):
            rows = [(r, k) for key_, r, k in kept if key_ == key]
            w = fit(rows, len(FEATURES[key]))
            phase = key.split("/", 1)[1]
            phases[phase] = [round(float(x), 4) for x in w]
            greedy = sum(r[k][0] == 1.0 for r, k in rows) / len(rows)
            print(
                f"{variant} {phase}: {len(rows)} decisions of the search, greedy's choice in "
                f"{greedy:.1%}, the fitted policy agrees with {agreement(rows, w):.1%}",
                flush=True,
            )
        out["variants"][variant] = {p: w for p, w in phases.items() if f"{family}/{p}" in FEATURES}
        print(f"{variant}: {count} games, {time.monotonic() - started:.0f} s", flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
