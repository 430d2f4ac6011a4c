"""The bot protocol: JSON lines over stdin/stdout (see PROTOCOL.md in this folder).

Pure helpers to build the platform's messages and to parse a bot's replies.
"""

from __future__ import annotations

import json
from typing import Any

VERSION = 1
#: The longest line a bot may send; longer output is a protocol fault.
MAX_LINE_BYTES = 64 * 1024


class ProtocolError(ValueError):
    """A bot's line is not a valid protocol reply (malformed or wrong shape)."""


def hello(
    *,
    variant: str,
    options: dict[str, Any],
    seat: int,
    players: int,
    match: dict[str, Any],
    time_control: dict[str, Any],
) -> dict[str, Any]:
    return {
        "type": "hello",
        "protocol": VERSION,
        "variant": variant,
        "options": options,
        "seat": seat,
        "players": players,
        "match": match,
        "time_control": time_control,
    }


def act(
    *,
    game: int,
    observation: dict[str, Any],
    legal: list[str],
    time_left_ms: int,
    move_limit_ms: int,
) -> dict[str, Any]:
    return {
        "type": "act",
        "game": game,
        "observation": observation,
        "legal": legal,
        "time_left_ms": time_left_ms,
        "move_limit_ms": move_limit_ms,
    }


def result(
    *,
    game: int,
    scores: list[int],
    ranking: list[int],
    seat: int,
    status: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "type": "result",
        "game": game,
        "scores": scores,
        "ranking": ranking,
        "seat": seat,
        "status": status,
    }


def bye(reason: str = "match over") -> dict[str, Any]:
    return {"type": "bye", "reason": reason}


def encode(message: dict[str, Any]) -> bytes:
    """One message as a UTF-8 JSON line (compact, newline-terminated)."""
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


class ActEncoder:
    """Encodes ``act`` messages for one bot, re-using the encoded public history.

    Observations carry the whole public history (a list that only grows; every
    element but the last is final), so each message would re-encode the same
    prefix again and again. This keeps the encoded prefix per (game, seat) and
    encodes only what is new. The line holds the same JSON object as
    :func:`encode` gives (the ``observation`` key comes last).
    """

    def __init__(self) -> None:
        self._key: tuple[Any, Any] | None = None
        self._done = 0  # history elements already in self._prefix
        self._prefix = b""  # their encodings, comma-joined

    def encode(self, message: dict[str, Any]) -> bytes:
        observation = message.get("observation")
        history = observation.get("history") if isinstance(observation, dict) else None
        if not isinstance(history, list) or not history:
            return encode(message)
        key = (message.get("game"), observation.get("seat"))
        if key != self._key:
            self._key, self._done, self._prefix = key, 0, b""
        final = len(history) - 1
        if self._done < final:
            new = ",".join(_dumps(element) for element in history[self._done : final]).encode()
            self._prefix = self._prefix + b"," + new if self._prefix else new
            self._done = final
        rest = _dumps({k: v for k, v in observation.items() if k != "history"}).encode()
        head = _dumps({k: v for k, v in message.items() if k != "observation"}).encode()
        parts = [
            head[:-1],
            b',"observation":',
            rest[:-1],
            b"," if len(rest) > 2 else b"",
            b'"history":[',
            self._prefix,
            b"," if self._prefix else b"",
            _dumps(history[final]).encode(),
            b"]}}\n",
        ]
        return b"".join(parts)


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)


def parse_reply(line: bytes | str, key: str) -> Any:
    """The value of ``key`` in a bot's reply line; ``ProtocolError`` if malformed.

    ``key`` is ``"ready"`` after ``hello`` and ``"action"`` after ``act``.
    """
    if isinstance(line, bytes):
        if len(line) > MAX_LINE_BYTES:
            raise ProtocolError(f"reply longer than {MAX_LINE_BYTES} bytes")
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("reply is not UTF-8") from None
    try:
        message = json.loads(line)
    except RecursionError:  # arrays or objects nested thousands deep
        raise ProtocolError("reply nests too deep to read") from None
    except ValueError:
        raise ProtocolError(f"reply is not JSON: {line[:80]!r}") from None
    if not isinstance(message, dict) or key not in message:
        raise ProtocolError(f"reply lacks {key!r}: {line[:80]!r}")
    value = message[key]
    if key == "action" and not isinstance(value, str):
        raise ProtocolError(f"action must be a string, got {value!r:.80}")
    if key == "ready" and value is not True:
        raise ProtocolError(f"ready must be true, got {value!r:.80}")
    return value
