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
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

T = TypeVar("T")

_WORD: Final = 1 << 32
#: The SHAKE-256 constructor (Final: compiled, read without a lookup).
_shake_256: Final = hashlib.shake_256


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
    count = len(out)
    if count <= _FAST_MAX:
        key = f"cardroom:{seed}:{purpose}".encode()  # as Stream's key
        data = _shake_256(key).digest(4 * (count + 8))
        if _REJECT_MARK not in data:
            # No word is rejected, so swap i takes word count - 1 - i: the loop below
            # without a rejection test.
            if _COMPILED:
                return _swap_by_bytes(out, data)
            return _swaps(count)(out, _unpack_words[count](data))
    stream = Stream(seed, purpose, reserve=count + 8)
    words, pos = stream._words, 0
    for i in range(count - 1, 0, -1):
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


#: Decks up to this size take the rejection-free path of :func:`shuffled` when they can.
_FAST_MAX: Final = 64
#: ``below(n)`` rejects a word only at or above ``2**32 - 2**32 % n``, which is above
#: ``2**32 - n``: for n <= ``_FAST_MAX`` such a word is 0xFFFFFFC0 or more, whose three
#: high bytes are 0xFF. Output without three 0xFF bytes in a row anywhere has no
#: rejected word (one search in C, where ``max`` of the words took twice as long).
_REJECT_MARK = b"\xff\xff\xff"
#: ``below(n)`` never rejects a word under this for n <= ``_FAST_MAX`` (:func:`draw`).
_NEVER_REJECTED: Final = _WORD - _FAST_MAX
_unpack_words: Final = [struct.Struct(f"<{count + 8}I").unpack for count in range(_FAST_MAX + 1)]
_unpack_one: Final = struct.Struct("<I").unpack
_SWAPS: dict[int, Callable[[list[Any], tuple[int, ...]], list[Any]]] = {}


def _swaps(count: int) -> Callable[[list[Any], tuple[int, ...]], list[Any]]:
    """The Fisher-Yates swaps of a ``count``-card deck as one straight-line function.

    ``f(out, words)`` swaps ``out[i]`` with ``out[words[count - 1 - i] % (i + 1)]``
    for ``i = count - 1 .. 1`` and returns ``out``: the fast path's loop unrolled,
    three times quicker in CPython than the loop, for every deal.
    """
    swaps = _SWAPS.get(count)
    if swaps is None:
        lines = [
            f"    j = words[{k}] % {i + 1}; out[{i}], out[j] = out[j], out[{i}]"
            for k, i in enumerate(range(count - 1, 0, -1))
        ]
        source = "def swaps(out, words):\n" + "\n".join([*lines, "    return out"])
        namespace: dict[str, Any] = {}
        exec(compile(source, f"<games.rng swaps of {count}>", "exec"), namespace)
        swaps = _SWAPS[count] = namespace["swaps"]
    return swaps


def _swap_by_bytes(out: list[Any], data: bytes) -> list[Any]:
    """``_swaps(len(out))(out, words)`` reading the little-endian words from ``data``.

    The loop the compiled build runs (build_engines.py compiles this module): there a
    plain loop over the bytes is quicker than unpacking the words and the unrolled code.
    """
    k = 0
    for i in range(len(out) - 1, 0, -1):
        word = data[k] | data[k + 1] << 8 | data[k + 2] << 16 | data[k + 3] << 24
        j = word % (i + 1)
        k += 4
        out[i], out[j] = out[j], out[i]
    return out


#: True in the compiled build, whose functions have no Python code object.
_COMPILED: Final = not hasattr(_swap_by_bytes, "__code__")


def draw(n: int, seed: int, purpose: str) -> int:
    """One uniform integer in ``range(n)`` for ``purpose``."""
    if 1 <= n <= _FAST_MAX:  # Stream.below's first word, unless it could be rejected
        key = f"cardroom:{seed}:{purpose}".encode()
        word: int = _unpack_one(_shake_256(key).digest(4))[0]
        if word < _NEVER_REJECTED:
            return word % n
    return Stream(seed, purpose, reserve=4).below(n)
