"""A plain in-process game loop for built-in bot tests (no referee needed).

``play_game`` runs one game with one bot object per seat, the way a referee
would: ``start`` with a hello message, then ``act`` on every decision with
the observation (when the bot wants it) and the legal labels. Forced
actions (a single legal label) are applied without asking.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import games
from bots.builtin import make
from bots.sdk import Bot


def hello(variant: str, seat: int, players: int) -> dict:
    return {"type": "hello", "variant": variant, "options": {}, "seat": seat, "players": players}


def play_game(variant: str, seed: int, bots: Sequence[Bot]) -> list[int]:
    """Play game ``seed`` of ``variant`` with ``bots[seat]`` deciding for ``seat``; the ranking."""
    state = games.load(variant).new_game(seed)
    for seat, bot in enumerate(bots):
        bot.start(hello(variant, seat, len(bots)))
    while not state.is_over():
        legal = state.legal_actions()
        if len(legal) == 1:
            # A forced action needs no decision (ACTION-6); skipping it keeps Money fast.
            state.apply(legal[0])
            continue
        seat = state.current_player()
        bot = bots[seat]
        observation = state.observation(seat) if bot.needs_observation else None
        state.apply(bot.act(observation, legal))
    return state.ranking()


def pairwise_score(ranking: Sequence[int], seats: Sequence[int]) -> float:
    """Share of the opponents that ``seats`` outrank (ties count half), averaged over ``seats``.

    Only players outside ``seats`` are compared, so a team's partners are not
    compared with each other. With exchangeable players the expectation is 1/2.
    """
    scores = []
    for seat in seats:
        others = [o for o in range(len(ranking)) if o not in seats]
        wins = sum(
            1.0 if ranking[seat] < ranking[o] else 0.5 if ranking[seat] == ranking[o] else 0.0
            for o in others
        )
        scores.append(wins / len(others))
    return sum(scores) / len(scores)


def greedy_seats(variant: str, players: int, game: int) -> list[int]:
    """Greedy's seats in game number ``game``: one seat in rotation, a whole team in partners."""
    if variant == "maniglia-4-partners":
        return [game % 2, game % 2 + 2]
    return [game % players]


def match(
    variant: str, games_count: int, first_seed: int = 0, champion: str = "greedy"
) -> list[float]:
    """Pairwise scores of ``champion`` against ``random`` bots over ``games_count`` games."""
    players = games.load(variant).num_players
    out = []
    for game in range(games_count):
        seed = first_seed + game
        seats = greedy_seats(variant, players, game)
        bots = [
            make(champion if seat in seats else "random", seed=seed * 10 + seat)
            for seat in range(players)
        ]
        out.append(pairwise_score(play_game(variant, seed, bots), seats))
    return out


def kl_bernoulli(q: float, p: float) -> float:
    """Kullback-Leibler divergence KL(Bernoulli(q) || Bernoulli(p))."""
    q = min(max(q, 1e-12), 1 - 1e-12)
    return q * math.log(q / p) + (1 - q) * math.log((1 - q) / (1 - p))


def chernoff_p_value(mean: float, count: int, null_mean: float = 0.5) -> float:
    """Upper bound on P(mean of ``count`` [0, 1] scores >= ``mean``) if they average ``null_mean``.

    Chernoff-Hoeffding: a variable in [0, 1] with mean p is dominated (convex
    order) by a Bernoulli(p), so the binomial bound exp(-count * KL(mean || p))
    holds for fractional scores too.
    """
    if mean <= null_mean:
        return 1.0
    return math.exp(-count * kl_bernoulli(mean, null_mean))


Runner = Callable[[str, int], list[float]]
