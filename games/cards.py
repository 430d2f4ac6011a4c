"""Card notation (COMMON-4) and integer card sets.

French cards are numbered ``suit * 13 + rank`` with suits ``S H D C`` and ranks
``2 3 4 5 6 7 8 9 T J Q K A`` (rank 0 is the two). Latin cards (Maniglia) are
numbered ``suit * 10 + rank`` with suits ``D C S B`` and ranks in Maniglia
order from low to high ``2 3 4 5 6 J N K A 7``. A set of cards is an ``int``
bitmask with bit ``c`` set for card ``c``.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter

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
CARD_BITS: tuple[int, ...] = tuple(1 << c for c in range(64))


def packet_masks(deck: list[int], size: int, hands: int, count: int) -> list[int]:
    """The hands dealt from the first ``count`` cards of ``deck`` in packets of ``size``.

    Packet ``p`` goes to hand ``p % hands`` (hand 0 is the first to receive); the
    result is one mask per hand. Cards of a deck are distinct, so the sum of
    their bits is their set.
    """
    pickers = _PICKERS.get((size, hands, count))
    if pickers is None:
        positions: list[list[int]] = [[] for _ in range(hands)]
        for packet, start in enumerate(range(0, count, size)):
            positions[packet % hands].extend(range(start, min(start + size, count)))
        pickers = tuple(
            itemgetter(*p) if len(p) > 1 else itemgetter(slice(p[0], p[0] + 1) if p else slice(0))
            for p in positions
        )
        _PICKERS[(size, hands, count)] = pickers
    bit = CARD_BITS.__getitem__
    return [sum(map(bit, pick(deck))) for pick in pickers]


def packet_size(hand: int, usual: int) -> int:
    """The packet size that deals a hand of ``hand`` cards in equal packets: the largest
    divisor of ``hand`` no bigger than the game's ``usual`` packet.

    A full hand's packets are the usual ones (12 in 4s, 10 in 5s, 8 in 4s); the smaller
    hands of a small deck (``manni.ranks``, ``maniglia.ranks``) get the nearest size that
    still deals every hand in whole rounds.
    """
    return max(d for d in range(1, min(hand, usual) + 1) if hand % d == 0)


#: Per (size, hands, count): for each hand, what picks its cards out of a deck.
_PICKERS: dict[tuple[int, int, int], tuple[itemgetter, ...]] = {}


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
