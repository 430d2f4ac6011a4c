"""Card notation (COMMON-4) and integer card sets.

French cards are numbered ``suit * 13 + rank`` with suits ``S H D C`` and ranks
``2 3 4 5 6 7 8 9 T J Q K A`` (rank 0 is the two). Latin cards (Maniglia) are
numbered ``suit * 10 + rank`` with suits ``D C S B`` and ranks in Maniglia
order from low to high ``2 3 4 5 6 J N K A 7``. A set of cards is an ``int``
bitmask with bit ``c`` set for card ``c``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Any, Final

FRENCH_RANKS = "23456789TJQKA"
FRENCH_SUITS = "SHDC"
FRENCH_NAMES: tuple[str, ...] = tuple(r + s for s in FRENCH_SUITS for r in FRENCH_RANKS)
FRENCH_INDEX: dict[str, int] = {name: i for i, name in enumerate(FRENCH_NAMES)}

LATIN_RANKS = "23456JNKA7"
LATIN_SUITS = "DCSB"
LATIN_NAMES: tuple[str, ...] = tuple(r + s for s in LATIN_SUITS for r in LATIN_RANKS)
LATIN_INDEX: dict[str, int] = {name: i for i, name in enumerate(LATIN_NAMES)}


def bits_of(mask: int) -> list[int]:
    """The card numbers in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


#: ``CARD_BITS[c]``: the one-card set ``1 << c`` (a lookup is cheaper than a shift).
CARD_BITS: Final[tuple[int, ...]] = tuple(1 << c for c in range(64))


def packet_masks(deck: list[int], size: int, hands: int, count: int) -> list[int]:
    """The hands dealt from the first ``count`` cards of ``deck`` in packets of ``size``.

    Packet ``p`` goes to hand ``p % hands`` (hand 0 is the first to receive); the
    result is one mask per hand.
    """
    return packet_dealing(size, hands, count).masks(deck)


def packet_dealing(size: int, hands: int, count: int) -> Dealing:
    """The :class:`Dealing` of :func:`packet_masks` (made once per arguments)."""
    key = (size, hands, count)
    dealing = _PACKETS.get(key)
    if dealing is None:
        dealing = _PACKETS[key] = Dealing([i // size % hands for i in range(count)], hands)
    return dealing


class Dealing:
    """Where each card of a deck goes: the card at position ``i`` to hand ``owners[i]``
    (``-1``: to none of them), for the positions ``owners`` has."""

    __slots__ = ("owners", "pickers", "positions")

    def __init__(self, owners: Sequence[int], hands: int) -> None:
        self.owners: tuple[int, ...] = tuple(owners)
        #: ``positions[h]``: the deck positions of hand ``h``'s cards.
        self.positions: tuple[tuple[int, ...], ...] = tuple(
            tuple(i for i, owner in enumerate(self.owners) if owner == hand)
            for hand in range(hands)
        )
        #: What picks each hand's cards out of a deck (the pure source's way).
        self.pickers: tuple[Callable[[list[int]], Any], ...] = tuple(
            itemgetter(*p) if len(p) > 1 else itemgetter(slice(p[0], p[0] + 1) if p else slice(0))
            for p in self.positions
        )

    def masks(self, deck: list[int]) -> list[int]:
        """One mask per hand: the cards of ``deck`` dealt to it."""
        if _COMPILED:  # compiled, a plain loop (no int object made per card) is quicker
            masks = []
            for positions in self.positions:
                mask = 0
                for i in positions:
                    mask |= 1 << deck[i]
                masks.append(mask)
            return masks
        # Cards of a deck are distinct, so the sum of their bits is their set.
        bit = CARD_BITS.__getitem__
        return [sum(map(bit, pick(deck))) for pick in self.pickers]


def packet_size(hand: int, usual: int) -> int:
    """The packet size that deals a hand of ``hand`` cards in equal packets: the largest
    divisor of ``hand`` no bigger than the game's ``usual`` packet.

    A full hand's packets are the usual ones (12 in 4s, 10 in 5s, 8 in 4s); the smaller
    hands of a small deck (``manni.ranks``, ``maniglia.ranks``) get the nearest size that
    still deals every hand in whole rounds.
    """
    size = min(hand, usual)
    while size > 1 and hand % size:
        size -= 1
    return max(size, 1)


#: The :class:`Dealing` of :func:`packet_masks` per (size, hands, count).
_PACKETS: dict[tuple[int, int, int], Dealing] = {}


def pop_nth(suits: list[list[int]], n: int) -> int:
    """Remove and return card ``n`` (0-based, ascending) of a hand held as sorted suit lists.

    Suits are in card-number order, so this is the ``n``-th card of the hand's
    ascending card list (the engines' legal-list order).
    """
    for cards in suits:
        if n < len(cards):
            return cards.pop(n)
        n -= len(cards)
    raise IndexError(f"the hand holds fewer than {n + 1} cards")


def suit_tables(width: int, suits: int) -> list[list[tuple[int, ...]]]:
    """``table[s][m]``: the card numbers of the ``width``-bit suit pattern ``m`` of suit ``s``.

    Engines use it to turn a hand mask into a sorted list of cards with one
    lookup per suit instead of a loop over bits.
    """
    patterns = [tuple(bits_of(m)) for m in range(1 << width)]
    return [[tuple(s * width + b for b in p) for p in patterns] for s in range(suits)]


def parse_deck(deck: object, names: dict[str, int], expected: int, what: str) -> list[int]:
    """Validate a deck given as card labels and return card numbers.

    ``expected`` is the full set of card numbers (as a mask) the deck must hold.
    Raises ``ValueError`` naming the first problem found.
    """
    if not isinstance(deck, list | tuple):
        raise ValueError(f"{what} must be a list of card labels, got {type(deck).__name__}")
    want = expected.bit_count()
    if len(deck) != want:
        raise ValueError(f"{what} has {len(deck)} cards, expected {want}")
    out: list[int] = []
    seen = 0
    for label in deck:
        c = names.get(label) if isinstance(label, str) else None
        if c is None or not (expected >> c) & 1:
            raise ValueError(f"{what} holds {label!r}, which is not a card of this pack")
        if (seen >> c) & 1:
            raise ValueError(f"{what} holds {label!r} twice")
        seen |= 1 << c
        out.append(c)
    return out


#: True in the compiled build (build_engines.py), whose functions have no code object.
_COMPILED: Final = not hasattr(pop_nth, "__code__")
