"""Strength benchmark: the built-in ``ismcts`` against ``greedy`` in duplicate matches.

    python -m bench.strength [--variant V ...] [--sets N] [--seconds S] [--iterations I]
        [--set NAME=JSON ...]  (IsmctsBot settings, e.g. --set z=3)

For each variant, one ``ismcts`` seat (a whole team in maniglia-4-partners)
plays ``greedy`` in the other seats over duplicate sets: each set is one deal
sequence played once per seat rotation (``play_match(..., duplicate=True)``),
so both sides get the same cards. A game gives ``ismcts`` its *pairwise
score*, the share of the greedy seats it outranks (ties half); a set's score is
the mean over its games, 1/2 when the two players are equally strong.

The p-value is the exact one-sided sign-flip test over sets (``sign_flip_p``):
under "ismcts is no better" each set's deviation from 1/2 is as likely
positive as negative, and the p-value counts the sign patterns that do at
least as well as the one observed. Sets stop
at ``--sets`` or once ``--seconds`` have passed for that variant (whole sets
only). Prints one table row per variant: games, score, set wins/losses,
p-value, seconds per game. Figures on a loaded machine are indicative only.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import games
from bots.builtin import make
from bots.builtin.ismcts import IsmctsBot
from bots.referee import InProcessPlayer, play_match


@dataclass
class Strength:
    variant: str
    sets: int
    games: int
    score: float
    set_wins: int
    set_losses: int
    p_value: float
    seconds_per_game: float
    set_scores: list[float] = field(default_factory=list)


def sign_flip_p(set_scores: list[float]) -> float:
    """One-sided exact sign-flip (permutation) test that set scores exceed 1/2.

    Under "ismcts is no better" the two players are exchangeable in every
    duplicate set, so each set's deviation ``d = score - 1/2`` is as likely to
    be ``+d`` as ``-d``. The p-value is the share of the ``2**n`` sign patterns
    whose total deviation is at least the observed one, counted exactly.
    """
    devs = [Fraction(score).limit_denominator(10_000) - Fraction(1, 2) for score in set_scores]
    if not devs:
        return 1.0
    scale = math.lcm(*(d.denominator for d in devs))
    ints = [abs(int(d * scale)) for d in devs]
    observed = sum(int(d * scale) for d in devs)
    counts = {0: 1}
    for k in ints:
        nxt: dict[int, int] = {}
        for total, ways in counts.items():
            for signed in (k, -k):
                nxt[total + signed] = nxt.get(total + signed, 0) + ways
        counts = nxt
    tail = sum(ways for total, ways in counts.items() if total >= observed)
    return tail / 2 ** len(ints)


def seats_of_ismcts(variant: str, players: int) -> list[int]:
    """The seats ismcts plays: seat 0, with its partners in a partnership variant."""
    teams = games.variant_info(variant).teams
    return list(next(team for team in teams if 0 in team)) if teams else [0]


def play_set(
    variant: str,
    index: int,
    iterations: int,
    options: dict[str, Any] | None,
    seed: int,
    settings: dict[str, Any] | None = None,
) -> list[float]:
    """One duplicate set: the pairwise score of ismcts in each of its games."""
    n = games.load(variant, **(options or {})).num_players
    mine = seats_of_ismcts(variant, n)
    players = [
        InProcessPlayer(IsmctsBot(seed + index * 10 + p, iterations=iterations, **(settings or {})))
        if p in mine
        else InProcessPlayer(make("greedy"))
        for p in range(n)
    ]
    result = play_match(
        variant,
        players,
        games_count=n,  # one game per seat rotation
        seed=seed * 1000 + index,
        duplicate=True,
        options=options,
    )
    scores = []
    for game in result.games:
        ours = [s for s in range(n) if game.seats[s] in mine]
        theirs = [s for s in range(n) if game.seats[s] not in mine]
        pairs = [
            1.0
            if game.ranking[a] < game.ranking[b]
            else 0.5
            if game.ranking[a] == game.ranking[b]
            else 0.0
            for a in ours
            for b in theirs
        ]
        scores.append(sum(pairs) / len(pairs))
    return scores


def measure(
    variant: str,
    *,
    sets: int,
    seconds: float | None = None,
    iterations: int = 120,
    options: dict[str, Any] | None = None,
    seed: int = 1,
    settings: dict[str, Any] | None = None,
) -> Strength:
    """Play up to ``sets`` duplicate sets (fewer if ``seconds`` run out) and test them."""
    started = time.perf_counter()
    all_scores: list[float] = []
    set_scores: list[float] = []
    wins = losses = played = 0
    for index in range(sets):
        scores = play_set(variant, index, iterations, options, seed, settings)
        all_scores += scores
        mean = sum(scores) / len(scores)
        set_scores.append(mean)
        wins += mean > 0.5
        losses += mean < 0.5
        played += 1
        if seconds is not None and time.perf_counter() - started > seconds:
            break
    elapsed = time.perf_counter() - started
    return Strength(
        variant,
        played,
        len(all_scores),
        sum(all_scores) / len(all_scores),
        wins,
        losses,
        sign_flip_p(set_scores),
        elapsed / len(all_scores),
        set_scores,
    )


def row(s: Strength) -> str:
    return (
        f"| {s.variant} | {s.games} | {s.score:.3f} | {s.set_wins}-{s.set_losses} "
        f"| {s.p_value:.2g} | {s.seconds_per_game:.1f} |"
    )


HEADER = (
    "| variant | games | score | sets won-lost | p (sign flip) | s/game |\n"
    "|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", action="append", help="variant id (repeatable); default all")
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=None, help="time cap per variant")
    parser.add_argument("--iterations", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="an IsmctsBot setting, e.g. z=3 or rule_phases='[\"auction\"]' (repeatable)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = {}
    for item in args.set:
        name, _, value = item.partition("=")
        settings[name] = json.loads(value)
    variants = args.variant or games.variants()
    extra = "".join(f", {k}={v!r}" for k, v in settings.items())
    print(f"ismcts ({args.iterations} playouts a decision{extra}) against greedy, duplicate sets")
    print(HEADER, flush=True)
    out = []
    for variant in variants:
        s = measure(
            variant,
            sets=args.sets,
            seconds=args.seconds,
            iterations=args.iterations,
            seed=args.seed,
            settings=settings,
        )
        out.append(s)
        print(row(s), flush=True)
        print(f"  set scores: {[round(x, 3) for x in s.set_scores]}", flush=True)
    if args.json:
        print(json.dumps([asdict(s) for s in out]))


if __name__ == "__main__":
    main()
