"""Turning a bot specification (``builtin:<name>`` or a path) into a player."""

from __future__ import annotations

from pathlib import Path

from bots import builtin
from bots.referee.players import Player
from bots.referee.seating import seat_player


def player_from_spec(spec: str, *, seed: int, index: int, sandboxed: bool = True) -> Player:
    """The player at seat ``index`` of a match of seed ``seed``
    (``bots.referee.seating.seat_player``): ``builtin:random`` -> an in-process built-in
    named so; anything else -> a bot program.

    Raises ``ValueError`` naming the problem for an unknown built-in or a path
    that is not a runnable bot.
    """
    if spec.startswith("builtin:"):
        name = spec.split(":", 1)[1]
        return seat_player(builtin=name, seed=seed, seat=index, name=spec)
    path = Path(spec)
    if not path.exists():
        raise ValueError(
            f"bot {spec!r}: no such file or directory "
            f"(built-ins are written builtin:<name>: {', '.join(builtin.names())})"
        )
    return seat_player(path=path, seed=seed, seat=index, sandboxed=sandboxed)


def parse_option(text: str) -> tuple[str, str]:
    """``name=value`` from the command line; ``ValueError`` if there is no ``=``."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise ValueError(f"option {text!r} must be written name=value")
    return name.strip(), value.strip()
