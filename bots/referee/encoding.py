"""Encoding the ``act`` messages of one bot incrementally (PROTOCOL.md: ``history_delta``).

An observation carries the whole public history, a list that only grows: every
element but the last is final. Re-encoding it for every decision makes the
referee's work grow with the length of the game. :class:`ActEncoder` keeps,
per game and seat, the JSON text of the final elements, comma-joined, and
encodes only the last element (a deal in the trick games, one action in
Money) and the rest of the message afresh: one ``orjson`` call for the last
element costs less than extending its lists piece by piece in Python. The
line it gives is byte for byte what ``protocol.encode`` gives for the same
message.

A bot that accepted the ``history_delta`` extension in its ``ready`` reply gets
only the elements of the history from index ``history_from`` on (the last one
it got, which may have grown, and every newer one); the message says
``history_from``, and the bot puts back the elements before it from the
previous observation of the same game (``bots.sdk.run`` does).

Pure Python; it encodes with ``orjson`` when it is installed (a dependency of
the platform, several times faster) and with the standard ``json`` otherwise.
Both give the same bytes as ``protocol.encode`` for what observations hold
(strings, integers, booleans, None, lists and dicts with string keys).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; json is the fallback
    orjson = None


def _jsondumps() -> Callable[[Any], bytes]:
    if orjson is not None:
        return orjson.dumps
    encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    return lambda value: encode(value).encode()


#: ``value`` as compact UTF-8 JSON bytes, as ``protocol.encode`` writes it.
dumps: Callable[[Any], bytes] = _jsondumps()
#: Stands for the history while the rest of a message is encoded in one call.
_HOLE = "\x00history\x00"
_HOLE_JSON = dumps(_HOLE)

#: The protocol extension a bot may accept in ``ready``, and its version.
HISTORY_DELTA = "history_delta"
HISTORY_DELTA_VERSION = 1


class ActEncoder:
    """Encodes the ``act`` messages of one bot, re-using what it encoded before.

    ``delta=True`` sends the history from the last element the bot already
    has (``history_from``, see the module docstring) instead of all of it.
    Messages whose observation has no history list are encoded plainly.
    """

    def __init__(self, *, delta: bool = False) -> None:
        self.delta = delta
        self._key: tuple[Any, Any] | None = None
        self._final: list[bytes] = []  # JSON of the history's final elements, in order
        self._prefix = b""  # the same, comma-joined
        self._joined = 0  # how many of them are in _prefix
        self._sent = 0  # history elements the bot has (delta mode)
        self._length = 0  # of the history last encoded

    def encode(self, message: dict[str, Any]) -> bytes:
        """``message`` as one UTF-8 JSON line (with ``history_from`` in delta mode)."""
        observation = message.get("observation")
        history = observation.get("history") if type(observation) is dict else None
        if type(history) is not list:
            return dumps(message) + b"\n"
        key = (message.get("game"), observation.get("seat"))
        length = len(history)
        if key != self._key or length < self._length:  # another game, seat or state
            self._reset(key)
        self._length = length
        shell = {**message, "observation": {**observation, "history": _HOLE}}
        start = 0
        if self.delta:  # from the last element the bot has
            start = max(0, self._sent - 1)
            self._sent = length
            shell["history_from"] = start
        head, _, tail = dumps(shell).partition(_HOLE_JSON)
        last = length - 1
        if last < 0:
            return b"".join((head, b"[]", tail, b"\n"))
        final = self._final
        while len(final) < last:  # elements that became final since the last message
            final.append(dumps(history[len(final)]))
        tip = dumps(history[last])
        if start:
            return b"".join((head, b"[", b",".join([*final[start:last], tip]), b"]", tail, b"\n"))
        if self._joined < last:
            added = b",".join(final[self._joined : last])
            self._prefix = self._prefix + b"," + added if self._prefix else added
            self._joined = last
        if self._prefix:
            return b"".join((head, b"[", self._prefix, b",", tip, b"]", tail, b"\n"))
        return b"".join((head, b"[", tip, b"]", tail, b"\n"))

    def _reset(self, key: tuple[Any, Any]) -> None:
        self._key = key
        self._final, self._prefix, self._joined = [], b"", 0
        self._sent = self._length = 0
