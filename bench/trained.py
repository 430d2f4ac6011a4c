"""How well the trained example plays: duplicate matches against the built-ins.

``python -m bench.trained [--matches M] [--games G] [--weights W] [--json]`` plays the
example of ``bots/examples/python-trained`` (its ``weights.npz``, or ``W``, through
``PolicyBot`` as it plays when uploaded, here in-process) in maniglia-3 against two
``random`` and against two ``greedy``: M duplicate matches of G games each (every seat
rotation of the same deals). The score of a game is the training environments' reward
of the bot's seat, ``(seats ranked below - seats ranked above) / (players - 1)``: +1 a
sole win, -1 a sole last, 0 on average for a bot no better than the others. Each
figure is the mean over the matches with its standard error (matches are independent;
games within a duplicate match are not). The baseline, measured in the same run on the
same deals: ``greedy`` in the trained bot's place.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

from bots import builtin
from bots.referee import InProcessPlayer, play_match
from bots.sdk.policy import PolicyBot

EXAMPLE = Path(__file__).resolve().parent.parent / "bots" / "examples" / "python-trained"
VARIANT = "maniglia-3"


def seat_reward(ranking: list[int], seat: int) -> float:
    mine = ranking[seat]
    below = sum(1 for r in ranking if r > mine)
    above = sum(1 for r in ranking if r < mine)
    return (below - above) / (len(ranking) - 1)


def score(
    hero: str, opponent: str, matches: int, games: int, weights: Path = EXAMPLE / "weights.npz"
) -> dict[str, float]:
    """Mean and standard error over ``matches`` of player 0's mean game reward."""
    means = []
    for m in range(matches):
        seed = 7000 + m
        first = (
            PolicyBot(EXAMPLE / "weights.npz")
            if hero == "trained"
            else builtin.make(hero, seed=seed)
        )
        players = [InProcessPlayer(first, hero)] + [
            InProcessPlayer(builtin.make(opponent, seed=seed + k), f"{opponent}-{k}")
            for k in (1, 2)
        ]
        result = play_match(
            VARIANT, players, games_count=games, seed=seed, duplicate=True, traces=False
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
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--games", type=int, default=6, help="games a match (a multiple of 3)")
    parser.add_argument("--weights", type=Path, default=EXAMPLE / "weights.npz")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.matches < 2 or args.games < 3 or args.games % 3:
        parser.error("--matches at least 2, --games a positive multiple of 3")
    started = time.monotonic()
    rows = {
        (hero, opponent): score(hero, opponent, args.matches, args.games, args.weights)
        for opponent in ("random", "greedy")
        for hero in ("trained", "greedy")
        if (hero, opponent) != ("greedy", "greedy")
    }
    if args.json:
        print(json.dumps({f"{h} vs {o}": row for (h, o), row in rows.items()}, indent=2))
        return 0
    print(
        f"{VARIANT}, {args.matches} duplicate matches of {args.games} games each, "
        f"the score a game from -1 to +1 (0: no better than the table)"
    )
    for (hero, opponent), row in rows.items():
        print(
            f"  {hero:8s} against two {opponent:7s} {row['mean']:+.3f} +- {row['se']:.3f} "
            f"(standard error)"
        )
    trained, baseline = rows["trained", "random"]["mean"], rows["greedy", "random"]["mean"]
    print(
        f"  against random the trained policy scores {trained / baseline:.2f}x the "
        f"baseline (greedy in its seat); {time.monotonic() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
