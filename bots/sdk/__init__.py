"""A small SDK for Python bot authors (no dependency beyond the standard library).

A bot is a subclass of :class:`Bot` (or a plain function wrapped by
:class:`FunctionBot`) whose ``act`` gets the observation and the legal labels
and returns one label. :func:`run` speaks the protocol on stdin/stdout::

    from bots.sdk import Bot, run

    class First(Bot):
        def act(self, observation, legal):
            return legal[0]

    if __name__ == "__main__":
        run(First())

The same objects run in-process in the referee (built-in bots).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any


class Bot:
    """Base class of every bot. Override :meth:`act`; the rest is optional.

    ``needs_observation = False`` tells an in-process referee it may skip
    building observations for this bot (the subprocess protocol always sends it).
    """

    name = "bot"
    needs_observation = True

    def start(self, hello: dict[str, Any]) -> None:
        """Called once per match with the ``hello`` message (seat, variant, options...)."""

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        raise NotImplementedError

    def game_over(self, result: dict[str, Any]) -> None:
        """Called after each game with the ``result`` message."""


class FunctionBot(Bot):
    """Wrap ``fn(observation, legal) -> label`` as a bot."""

    def __init__(self, fn: Callable[[dict[str, Any], list[str]], str], name: str = "") -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "bot")

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        return self.fn(observation, legal)


def run(bot: Bot, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Serve the protocol until ``bye`` or end of input.

    Unknown message types and keys are ignored, so newer platforms keep working.
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout

    def send(message: dict[str, Any]) -> None:
        stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        stdout.flush()

    for line in stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            bot.start(message)
            send({"ready": True, "name": bot.name})
        elif kind == "act":
            send({"action": bot.act(message.get("observation"), message["legal"])})
        elif kind == "result":
            bot.game_over(message)
        elif kind == "bye":
            return


# The tracked game state (needs ``games``; imported last because it subclasses Bot).
from bots.sdk.tracking import GameTracker, TrackingBot, TrackingError  # noqa: E402, F401
