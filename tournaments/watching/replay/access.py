"""Who may see every hand of a replay, and which bot sits at each seat of a game."""

from __future__ import annotations

from typing import Any

import games
from tournaments.models import GameRecord
from tournaments.selectors import ENDED, full_view_allowed, game_seat_players

__all__ = ["ENDED", "REFUSED", "full_view_allowed", "seat_names"]

#: The 403 page of a full view one may not see.
REFUSED = (
    "Every hand of a game is shown to staff at any time, to the competition's organisers "
    "once it has ended, and to everyone who may watch it once it has ended if its "
    "organisers allow full replays. The public view shows every played card."
)


def seat_names(*, game: GameRecord, record: dict[str, Any]) -> list[str]:
    """The bot at each seat of ``game`` (``record`` is its record), by seat number.

    Duplicate matches rotate the bots around the table from game to game
    (``bots.referee.match.schedule``); the rotation is recomputed and checked
    against the game's seed, and plain seat numbers stand in if it does not match.
    """
    match = game.match
    seats = match.seats.select_related("entry__bot", "entry__partner").order_by("seat")
    bots = [s.entry.bot_at(s.seat).name for s in seats]  # a team's partner at its second seat
    players = games.load(record["variant"], **record["options"]).num_players
    seats = game_seat_players(game=game, record=record)
    if seats is None or len(bots) != players:
        return [f"seat {s + 1}" for s in range(players)]  # seats from 1 for people
    return [bots[player] for player in seats]
