"""How well the trained examples play: duplicate matches against the built-ins.

``python -m bench.trained [--bot recipe|mlp] [--variants a,b] [--matches M] [--games G]
[--weights W] [--json]`` plays a trained bot as it plays when uploaded (here
in-process) against ``random`` and against ``greedy`` in every other seat: M
duplicate matches of G games each (every seat rotation of the same deals).

- ``recipe`` (default): ``bots/examples/python-recipe`` (its ``weights.json``, or
  ``W``), the recipe of docs/training.md, in maniglia-3 and money-jordan;
- ``mlp``: ``bots/examples/python-trained`` (its ``weights.npz``, or ``W``) in maniglia-3.

The score of a game is the training environments' reward of the bot's seat,
``(seats ranked below - seats ranked above) / (players - 1)``: +1 a sole win, -1 a
sole last, 0 on average for a bot no better than the others. Each figure is the mean
over the matches with its standard error (matches are independent; games within a
duplicate match are not). The baseline, measured in the same run on the same deals:
``greedy`` in the trained bot's place (against two ``greedy`` it scores 0 by symmetry).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import games as games_module
from bots import builtin
from bots.referee import InProcessPlayer, play_match
from bots.sdk import Bot
from bots.sdk.policy import PolicyBot

EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples"
EXAMPLE = EXAMPLES / "python-trained"
RECIPE = EXAMPLES / "python-recipe"
#: The weights file and the variants of each trained bot.
BOTS = {
    "recipe": (RECIPE / "weights.json", ("maniglia-3", "money-jordan")),
    "mlp": (EXAMPLE / "weights.npz", ("maniglia-3",)),
}


def trained_bot(kind: str, weights: Path) -> Bot:
    """The bot of ``kind`` (a key of :data:`BOTS`) with ``weights``."""
    if kind == "mlp":
        return PolicyBot(weights)
    sys.path.insert(0, str(RECIPE))
    from recipe import RecipeBot  # the example's module, as the uploaded bot imports it

    return RecipeBot(weights)


def seat_reward(ranking: list[int], seat: int) -> float:
    mine = ranking[seat]
    below = sum(1 for r in ranking if r > mine)
    above = sum(1 for r in ranking if r < mine)
    return (below - above) / (len(ranking) - 1)


def score(
    variant: str, hero: str, opponent: str, matches: int, games: int, make_trained: Any
) -> dict[str, float]:
    """Mean and standard error over ``matches`` of player 0's mean game reward."""
    seats = games_module.load(variant).num_players
    means = []
    for m in range(matches):
        seed = 7000 + m
        first = make_trained() if hero == "trained" else builtin.make(hero, seed=seed)
        players = [InProcessPlayer(first, hero)] + [
            InProcessPlayer(builtin.make(opponent, seed=seed + k), f"{opponent}-{k}")
            for k in range(1, seats)
        ]
        result = play_match(
            variant, players, games_count=games, seed=seed, duplicate=True, traces=False
        )
        means.append(
            statistics.mean(seat_reward(g.ranking, g.seats.index(0)) for g in result.games)
        )
    return {
        "mean": statistics.mean(means),
        "se": statistics.stdev(means) / math.sqrt(len(means)) if len(means) > 1 else 0.0,
        "matches": len(means),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", choices=sorted(BOTS), default="recipe")
    parser.add_argument("--variants", default=None, help="a,b (default: the bot's)")
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--games", type=int, default=6, help="games a match (a multiple of 6)")
    parser.add_argument("--weights", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.matches < 2 or args.games < 6 or args.games % 6:
        parser.error("--matches at least 2, --games a positive multiple of 6")
    default_weights, default_variants = BOTS[args.bot]
    weights = args.weights or default_weights
    variants = args.variants.split(",") if args.variants else list(default_variants)
    for variant in variants:
        if variant not in games_module.variants():
            parser.error(f"--variants: no variant {variant!r}")
    started = time.monotonic()
    report: dict[str, Any] = {}
    for variant in variants:
        rows = {
            f"{hero} vs {opponent}": score(
                variant, hero, opponent, args.matches, args.games,
                lambda: trained_bot(args.bot, weights),
            )
            for opponent in ("greedy", "random")
            for hero in ("trained", "greedy")
            if (hero, opponent) != ("greedy", "greedy")
        }  # fmt: skip
        report[variant] = rows
        if not args.json:
            print_rows(variant, args, rows)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{time.monotonic() - started:.1f} s")
    return 0


def print_rows(variant: str, args: argparse.Namespace, rows: dict[str, dict]) -> None:
    others = games_module.load(variant).num_players - 1
    print(
        f"{variant} ({args.bot}), {args.matches} duplicate matches of {args.games} games each, "
        f"the score a game from -1 to +1 (0: no better than the table)"
    )
    for key, row in rows.items():
        hero, opponent = key.split(" vs ")
        print(
            f"  {hero:8s} against {others} {opponent:7s} {row['mean']:+.3f} +- {row['se']:.3f} "
            f"(standard error)"
        )
    trained, baseline = rows["trained vs random"]["mean"], rows["greedy vs random"]["mean"]
    print(f"  against random the trained bot scores {trained - baseline:+.3f} beside greedy's")


if __name__ == "__main__":
    raise SystemExit(main())
