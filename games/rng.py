"""Deterministic randomness for engines.

Every random draw in a game comes from SHA-3's SHAKE-256 extendable output,
keyed by the game seed and a purpose string (``"dealer"``, ``"deck/3"``...).
This does not depend on Python's ``hash()`` or on the algorithms behind the
``random`` module, so the same seed gives the same game on every machine and
every Python version. Draws are exactly uniform (rejection sampling).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD = 1 << 32


class Stream:
    """A reproducible stream of uniform integers for one (seed, purpose) key."""

    __slots__ = ("_buf", "_key", "_pos", "_words")

    def __init__(self, seed: int, purpose: str, reserve: int = 64) -> None:
        self._key = f"cardroom:{seed}:{purpose}".encode()
        self._words: tuple[int, ...] = ()
        self._pos = 0
        self._fill(reserve)

    def _fill(self, count: int) -> None:
        # SHAKE output is prefix-stable: digest(n) starts with digest(m) for m < n.
        data = hashlib.shake_256(self._key).digest(4 * count)
        self._words = struct.unpack(f"<{count}I", data)

    def _word(self) -> int:
        if self._pos == len(self._words):
            self._fill(2 * len(self._words))
        word = self._words[self._pos]
        self._pos += 1
        return word

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``, 1 <= n <= 2**32."""
        if not 1 <= n <= _WORD:
            raise ValueError(f"below() needs 1 <= n <= 2**32, got {n}")
        limit = _WORD - _WORD % n
        while True:
            word = self._word()
            if word < limit:
                return word % n


def shuffled(items: Sequence[T], seed: int, purpose: str) -> list[T]:
    """A uniform permutation of ``items`` (Fisher-Yates), the first element on top."""
    out = list(items)
    stream = Stream(seed, purpose, reserve=len(out) + 8)
    words, pos = stream._words, 0
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = _WORD - _WORD % n
        # Inlined Stream.below(): this loop runs once per card of every deal.
        while True:
            if pos == len(words):
                stream._pos = pos
                stream._fill(2 * len(words))
                words = stream._words
            word = words[pos]
            pos += 1
            if word < limit:
                break
        j = word % n
        out[i], out[j] = out[j], out[i]
    return out


def draw(n: int, seed: int, purpose: str) -> int:
    """One uniform integer in ``range(n)`` for ``purpose``."""
    return Stream(seed, purpose, reserve=4).below(n)
