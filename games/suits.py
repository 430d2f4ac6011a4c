"""How a pack's cards sit in a hand bitmask (:class:`SuitLayout`), the French and Latin
packs' layouts, and the strength of a card in a trick (:func:`trick_keys`): part of the
trick-taking core (``games.tricks``, which re-exports every name of it).

Card ``c`` is bit ``c``; suit ``s`` holds the ``width`` bits from ``s * width`` (13 for
the French pack, 10 for the Latin one), rank order within it. The named helpers
(``suit_of``, ``suit_mask``, ``with_suit``, ``cards_of``, ...) and the tables behind
them replace raw shifts in the engines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from games.cards import FRENCH_NAMES, LATIN_NAMES, suit_tables

# Final: constants to mypyc (build_engines.py), which then reads them without a lookup.
#: Suits in a pack (French ``S H D C``, Latin ``D C S B``).
SUITS: Final = 4


class SuitLayout:
    """Four suits of ``width`` bits in a hand mask: suit ``s`` is bits ``s*width ..``.

    The tables (``shifts``, ``masks``, ``suits``, ``cards``) are what the hot
    loops index; the methods name the same operations for everything else.
    """

    __slots__ = (
        "cards",
        "cards_of",
        "full",
        "masks",
        "names_of",
        "ranks",
        "shifts",
        "suits",
        "width",
    )

    def __init__(self, width: int, names: Sequence[str]) -> None:
        self.width = width
        #: The pattern of a whole suit (``width`` ones).
        self.full = (1 << width) - 1
        #: ``shifts[s]``: where suit ``s`` starts in a hand mask.
        self.shifts: tuple[int, ...] = tuple(width * s for s in range(SUITS))
        #: ``masks[s]``: every card of suit ``s``, as a hand mask.
        self.masks: tuple[int, ...] = tuple(self.full << shift for shift in self.shifts)
        #: ``suits[c]``: the suit of card ``c``.
        self.suits: tuple[int, ...] = tuple(c // width for c in range(width * SUITS))
        #: ``ranks[c]``: the rank of card ``c`` within its suit (0: the lowest bit).
        self.ranks: tuple[int, ...] = tuple(c % width for c in range(width * SUITS))
        #: ``cards[s][p]``: the card numbers of suit pattern ``p`` of suit ``s``, ascending.
        self.cards = suit_tables(width, SUITS)
        #: ``cards_of(mask)``: the cards of a hand mask, ascending (the legal-list order).
        self.cards_of: Callable[[int], list[int]] = self.lister(self.cards)
        #: ``names_of(mask)``: the labels (``names[c]``) of the cards of ``mask``, in order.
        self.names_of: Callable[[int], list[str]] = self.lister(self.mapped(names))

    def suit_of(self, card: int) -> int:
        return self.suits[card]

    def suit_mask(self, hand: int, suit: int) -> int:
        """The ``width``-bit pattern of ``suit`` in ``hand`` (bit ``r``: rank ``r``)."""
        return hand >> self.shifts[suit] & self.full

    def with_suit(self, pattern: int, suit: int) -> int:
        """The hand mask of the cards of ``suit`` whose ranks are the bits of ``pattern``."""
        return (pattern & self.full) << self.shifts[suit]

    def card(self, suit: int, rank: int) -> int:
        return self.shifts[suit] + rank

    def top_ranks(self, count: int) -> int:
        """The hand mask of the ``count`` highest ranks of every suit (a small deck)."""
        if not 0 <= count <= self.width:
            raise ValueError(f"a suit has {self.width} ranks, not {count}")
        pattern = self.full ^ ((1 << (self.width - count)) - 1)
        return sum(self.with_suit(pattern, s) for s in range(SUITS))

    def suit_lists(self, hand: int) -> list[list[int]]:
        """The cards of ``hand`` as one ascending list per suit (what playouts pop from)."""
        full, cards = self.full, self.cards
        return [list(cards[s][hand >> shift & full]) for s, shift in enumerate(self.shifts)]

    def mapped(self, values: Sequence[Any]) -> list[list[tuple[Any, ...]]]:
        """``table[s][p]``: ``values[c]`` for the cards ``c`` of suit pattern ``p`` of ``s``."""
        return [[tuple(values[c] for c in cards) for cards in suit] for suit in self.cards]

    def lister(self, tables: Sequence[Sequence[tuple[Any, ...]]]) -> Callable[[int], list[Any]]:
        """A function ``mask -> [*tables[0][p0], *tables[1][p1], ...]`` (``p``: suit patterns).

        Made once per table: one lookup per suit, its shifts bound in the closure.
        """
        if len(tables) != SUITS:
            raise ValueError(f"a lister needs one table per suit ({SUITS})")
        t0, t1, t2, t3 = tables
        full = self.full
        _, s1, s2, s3 = self.shifts

        def spread(mask: int) -> list[Any]:
            return [
                *t0[mask & full],
                *t1[mask >> s1 & full],
                *t2[mask >> s2 & full],
                *t3[mask >> s3],
            ]

        return spread


#: The French pack (Manni): suits ``S H D C`` of 13 ranks ``2..A`` (COMMON-4).
FRENCH_LAYOUT = SuitLayout(13, FRENCH_NAMES)
#: The Latin pack (Maniglia): suits ``D C S B`` of 10 ranks ``2..7`` (MANIGLIA-GEN-1).
LATIN_LAYOUT = SuitLayout(10, LATIN_NAMES)


def trick_keys(
    layout: SuitLayout, trump: int, strength: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    """COMMON-5: ``keys[led][c]``, the strength of card ``c`` in a trick led with ``led``.

    Trumps beat the led suit, which beats every other suit (whose cards never
    win); within a suit ``strength[rank]`` decides. The highest key wins.
    """
    suits, ranks = layout.suits, layout.ranks
    return tuple(
        tuple(
            (200 if suits[c] == trump else 100 if suits[c] == led else 0) + strength[ranks[c]]
            for c in range(len(suits))
        )
        for led in range(len(layout.shifts))
    )
