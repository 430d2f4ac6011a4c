"""A match's schedule: the seed of each deal, the seats of each game, the rotations that
share a seating, and the draws of each game's pacing jitter.

Every value follows from the match's seed (SHA-256), which no bot is ever told
(DESIGN.md section 3): a match is reproducible, and nothing a bot receives lets it
derive a deal.
"""

from __future__ import annotations

import hashlib
import random


def game_seed(match_seed: int, deal: int) -> int:
    """The seed of deal ``deal`` of a match (64 bits of SHA-256)."""
    digest = hashlib.sha256(f"cardroom-match:{match_seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def schedule(games_count: int, players: int, duplicate: bool) -> list[tuple[int, list[int]]]:
    """(deal number, seats) for each game; ``seats[s]`` is the player at seat ``s``.

    Duplicate mode plays rotation by rotation: every deal at the first rotation,
    then every deal again with the players moved one seat on, and so on. Each
    rotation starts with fresh players (``match.Referee.start``), so within one
    player's lifetime every deal is new.
    """
    if not duplicate:
        return [(g, list(range(players))) for g in range(games_count)]
    if games_count % players:
        raise ValueError(
            f"duplicate mode needs a multiple of {players} games, " f"got {games_count}"
        )
    deals = games_count // players
    return [
        (g % deals, [(s - g // deals) % players for s in range(players)])
        for g in range(games_count)
    ]


def rotations(plan: list[tuple[int, list[int]]]) -> list[tuple[int, int]]:
    """``(first, end)`` game index ranges of ``plan`` that share one seating."""
    spans, first = [], 0
    for index in range(1, len(plan) + 1):
        if index == len(plan) or plan[index][1] != plan[first][1]:
            spans.append((first, index))
            first = index
    return spans


def pace_draws(match_seed: int, index: int) -> random.Random:
    """The draws of game ``index``'s pacing jitter (``TimeControl.pace_jitter``), one
    ``randint(0, pace_jitter)`` per paced ``act`` in turn: seeded from SHA-256 of the
    match's seed (never told to a bot) and the game's index, apart from its deals."""
    digest = hashlib.sha256(f"cardroom-pace:{match_seed}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
