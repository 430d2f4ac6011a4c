"""Turning a bot specification (``builtin:<name>`` or a path) into a player."""

from __future__ import annotations

from pathlib import Path

from bots import builtin
from bots.referee.players import InProcessPlayer, Player, ProcessPlayer


def player_from_spec(spec: str, *, seed: int, index: int, sandboxed: bool = True) -> Player:
    """``builtin:random`` -> an in-process built-in; anything else -> a bot program.

    Raises ``ValueError`` naming the problem for an unknown built-in or a path
    that is not a runnable bot.
    """
    if spec.startswith("builtin:"):
        name = spec.split(":", 1)[1]
        bot = builtin.make(name, seed=seed * 1_000 + index)
        return InProcessPlayer(bot, name=spec)
    path = Path(spec)
    if not path.exists():
        raise ValueError(
            f"bot {spec!r}: no such file or directory "
            f"(built-ins are written builtin:<name>: {', '.join(builtin.names())})"
        )
    return ProcessPlayer.from_path(path, sandboxed=sandboxed)


def parse_option(text: str) -> tuple[str, str]:
    """``name=value`` from the command line; ``ValueError`` if there is no ``=``."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise ValueError(f"option {text!r} must be written name=value")
    return name.strip(), value.strip()
