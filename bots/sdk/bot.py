"""The SDK's bot: the :class:`Bot` base class, :class:`FunctionBot`, and :func:`run`, the
loop that speaks the protocol on stdin/stdout (standard library only).

Imported through the package (``from bots.sdk import Bot, run``), which also offers the
tracked game state (``bots.sdk.tracking``); this module imports neither.
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
    ``history_delta = False`` makes :func:`run` decline the platform's offer of
    observations with only the history "since your last move" (the SDK puts
    the history back together either way, so ``act`` sees the same dict).
    """

    name = "bot"
    needs_observation = True
    history_delta = True

    def start(self, hello: dict[str, Any]) -> None:
        """Called once per match with the ``hello`` message (seat, variant, options...)."""

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        raise NotImplementedError

    def game_over(self, result: dict[str, Any]) -> None:
        """Called after each game with the ``result`` message."""

    def note(self, text: str) -> None:
        """Say why, during :meth:`act`: :func:`run` sends ``text`` as the answer's
        ``"note"`` (PROTOCOL.md, "Notes"), shown beside the move in the replay.
        The last note of a decision is sent; a decision without one sends none."""
        self._note = text

    def take_note(self) -> str | None:
        """The note of the decision just made, if any, and forget it."""
        note, self._note = getattr(self, "_note", None), None
        return note


class FunctionBot(Bot):
    """Wrap ``fn(observation, legal) -> label`` as a bot."""

    def __init__(self, fn: Callable[[dict[str, Any], list[str]], str], name: str = "") -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "bot")

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        return self.fn(observation, legal)


#: The protocol extension the SDK accepts when offered (PROTOCOL.md), and its version.
HISTORY_DELTA = "history_delta"
HISTORY_DELTA_VERSION = 1


class History:
    """Puts back the full history of observations sent "since your last move".

    A platform that offered ``history_delta`` in ``hello`` (and had it accepted
    in ``ready``) sends, in each ``act``, ``history_from`` and only the
    history's elements from that index on; the elements before it are those
    of the previous observation of the same game. :meth:`complete` gives the
    observation with its whole history, as a version 1 platform sends it.
    """

    def __init__(self) -> None:
        self.game: Any = None
        self.known: list[Any] = []

    def complete(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The observation of ``message`` with its full history.

        Raises ``ValueError`` naming the problem if ``history_from`` is not an
        index into what this game's previous observation held (messages lost,
        out of order, or for another game).
        """
        observation = message.get("observation")
        start = message.get("history_from")
        if start is None or not isinstance(observation, dict):
            return observation
        part = observation.get("history")
        if message.get("game") != self.game:
            self.game, self.known = message.get("game"), []
        if type(start) is not int or not 0 <= start <= len(self.known) or type(part) is not list:
            raise ValueError(
                f"act for game {message.get('game')!r}: history_from {start!r} does not follow "
                f"the {len(self.known)} history elements known (out of order?)"
            )
        self.known = self.known[:start] + part
        return {**observation, "history": list(self.known)}


def _ready(bot: Bot, hello: dict[str, Any]) -> dict[str, Any]:
    """The reply to ``hello``: accepts ``history_delta`` if offered and the bot allows it."""
    ready: dict[str, Any] = {"ready": True, "name": bot.name}
    offered = hello.get("extensions")
    if (
        getattr(bot, "history_delta", True)
        and isinstance(offered, dict)
        and offered.get(HISTORY_DELTA) == HISTORY_DELTA_VERSION
    ):
        ready["extensions"] = {HISTORY_DELTA: HISTORY_DELTA_VERSION}
    return ready


def run(bot: Bot, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Serve the protocol until ``bye`` or end of input.

    Unknown message types and keys are ignored, so newer platforms keep working.
    When the platform offers the ``history_delta`` extension the SDK accepts
    it (unless ``bot.history_delta`` is false) and puts each observation's
    history back together, so ``act`` always sees the whole observation.
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    history = History()

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
            history = History()
            send(_ready(bot, message))
        elif kind == "act":
            bot.take_note()  # a note from outside a decision belongs to none
            reply = {"action": bot.act(history.complete(message), message["legal"])}
            note = bot.take_note()
            if note is not None:
                reply["note"] = note
            send(reply)
        elif kind == "result":
            bot.game_over(message)
        elif kind == "bye":
            return
