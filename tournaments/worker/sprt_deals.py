"""Is my new version better than my old one? Duplicate deals played until an SPRT decides.

Each trial is one fresh deal played at every seat rotation (a duplicate match of
one deal), so neither version gains from the cards: the new version sits at
seat 0 and the old one at seat 1 of the first rotation, the other seats (if the
variant has more) are taken by a filler bot, and the rotations move everyone
through every seat. In a partnership variant the new version partners itself
(seats 0 and 2) against the old one (1 and 3). The trial's score is the new
version's mean pairwise score against the old one over the rotations (1 ahead,
1/2 level, 0 behind), on the grid of ``1 / (2 * players)``, and it feeds
``tournaments.ratings.confidence.Sprt``.

Deal seeds follow from one seed (SHA-256 of the seed and the trial number), so
a test can be played again. Plain Python on the referee: no database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any

import games
from bots.referee import TimeControl, play_match
from bots.referee.players import Player
from tournaments.ratings import TableResult, pair_score
from tournaments.ratings.confidence import Sprt, SprtResult

#: Makes a fresh player for one trial: ``(seed, seat index) -> Player``.
PlayerFactory = Callable[[int, int], Player]

NEW, OLD = "new", "old"


def trial_seed(seed: int, trial: int) -> int:
    """The match seed of trial ``trial`` (56 bits of SHA-256)."""
    digest = hashlib.sha256(f"cardroom-sprt:{seed}:{trial}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def _labels(players: int, partnership: bool) -> list[str]:
    if partnership:
        return [NEW, OLD, NEW, OLD]
    return [NEW, OLD] + [f"filler-{i}" for i in range(2, players)]


def deal_scores(
    variant: str,
    new: PlayerFactory,
    old: PlayerFactory,
    filler: PlayerFactory,
    *,
    seed: int,
    options: dict[str, Any] | None = None,
    time_control: TimeControl | None = None,
    partnership: bool = False,
    start: int = 0,
    on_action: Callable[[int, Any], None] | None = None,
) -> Iterator[float]:
    """The new version's score of each trial from trial ``start`` on, without end (a test
    resumed at ``start`` plays the same deals as one that never stopped).

    ``on_action(game, state)`` is called between two decisions (the referee's hook): what
    it raises ends the deal in play, its players closed, and comes out of the iterator.
    Raises ``ValueError`` for an unknown variant or option (before any game).
    """
    players = games.load(variant, **(options or {})).num_players
    labels = _labels(players, partnership)
    teams = (games.variant_info(variant).teams or None) if partnership else None
    makers = {NEW: new, OLD: old}
    trial = start
    while True:
        match_seed = trial_seed(seed, trial)
        seats = [makers.get(label, filler)(match_seed, i) for i, label in enumerate(labels)]
        result = play_match(
            variant,
            seats,
            games_count=players,
            seed=match_seed,
            options=options,
            duplicate=True,
            time_control=time_control,
            on_action=on_action,
        )
        points = [
            pair_score(
                TableResult(tuple(labels[p] for p in g.seats), tuple(g.ranking), teams), NEW, OLD
            )
            for g in result.games
        ]
        yield sum(points) / len(points)
        trial += 1


def version_test(
    scores: Iterator[float], *, test: Sprt, players: int, max_trials: int
) -> Iterator[SprtResult]:
    """The SPRT after each trial of ``scores`` (from :func:`deal_scores`) until it decides
    or ``max_trials`` trials are played; the last result says which."""
    return test.sequence(scores, steps=2 * players, max_trials=max_trials)
