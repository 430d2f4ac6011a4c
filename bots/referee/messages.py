"""The messages the referee sends a seat (PROTOCOL.md), built in one place.

The referee (``bots.referee.match``) and the transcripts of recorded games
(``bots.referee.transcript``) both build ``hello``, ``act`` and ``result``
with these functions, so a transcript holds exactly what the referee sent.
"""

from __future__ import annotations

from typing import Any

import games
from bots import protocol

#: How the reason of a forfeit starts when the player was already out of the match:
#: it was sent nothing for that game.
OUT_OF_MATCH = "out of the match: "


def hello_message(
    *, game: games.Game, seat: int, player: int, move_ms: int, bank_ms: int
) -> dict[str, Any]:
    """The ``hello`` of ``player`` (its place in the match) sitting at ``seat`` of ``game``."""
    return protocol.hello(
        variant=game.id,
        options=game.options,
        seat=seat,
        players=game.num_players,
        match={"player": player},
        time_control={"move_ms": move_ms, "bank_ms": bank_ms},
    )


def act_message(
    *,
    game: int,
    seat: int,
    observation: dict[str, Any] | None,
    legal: list[str],
    time_left_ms: int,
    move_ms: int,
) -> dict[str, Any]:
    """The ``act`` of game number ``game`` of the match for ``seat`` (version 1: all the
    history; ``ActEncoder`` shortens it for a bot that accepted ``history_delta``)."""
    message = protocol.act(
        game=game,
        observation=observation,
        legal=legal,
        time_left_ms=time_left_ms,
        move_limit_ms=move_ms,
    )
    message["seat"] = seat
    return message


def result_message(
    *, game: int, seat: int, scores: list[int], ranking: list[int], status: dict[str, Any]
) -> dict[str, Any]:
    """The ``result`` of game number ``game`` for ``seat``, with that seat's ``status``."""
    return protocol.result(game=game, scores=scores, ranking=ranking, seat=seat, status=status)
