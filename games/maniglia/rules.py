"""Pure rule helpers of Maniglia: packs, card points, tricks, legal plays, scoring.

Cards are the Latin numbers of ``games.cards``: ``suit * 10 + rank`` with suits
``D C S B`` and ranks from low to high ``2 3 4 5 6 J N K A 7``, so within a
suit a higher number is a stronger card (MANIGLIA-GEN-1). A set of cards is an
``int`` bitmask. Everything here is a plain function or a table, testable alone.
"""

from __future__ import annotations

from typing import Final

from games.cards import (
    LATIN_INDEX,
    LATIN_NAMES,
    LATIN_SUITS,
    Dealing,
    packet_dealing,
    packet_size,
)
from games.tricks import LATIN_LAYOUT, trick_keys

COINS: Final = 0
CUPS: Final = 1
SWORDS: Final = 2
BATONS: Final = 3
#: A whole suit's 10-bit pattern.
SUIT_BITS: Final = LATIN_LAYOUT.full
SUIT_MASKS: Final[tuple[int, ...]] = LATIN_LAYOUT.masks
#: MANIGLIA-GEN-1: the 40-card Latin pack, and the 36 cards of maniglia-3 (no 2s).
FULL_PACK: Final = (1 << 40) - 1
PACK_WITHOUT_TWOS: Final = FULL_PACK & ~sum(LATIN_LAYOUT.with_suit(1, s) for s in range(4))

#: MANIGLIA-GEN-2: card points by rank index (2 3 4 5 6 J N K A 7).
RANK_POINTS = (0, 0, 0, 0, 0, 1, 2, 3, 4, 5)
POINTS: Final[tuple[int, ...]] = tuple(RANK_POINTS[r] for r in LATIN_LAYOUT.ranks)
SUIT_OF: Final[tuple[int, ...]] = LATIN_LAYOUT.suits
#: ``ABOVE[c]``: the cards of c's suit that beat c.
ABOVE: Final[tuple[int, ...]] = tuple(
    LATIN_LAYOUT.with_suit(SUIT_BITS << (LATIN_LAYOUT.ranks[c] + 1), SUIT_OF[c]) for c in range(40)
)
#: ``SUIT_CARDS[s][m]``: the cards of the 10-bit pattern ``m`` of suit ``s``, ascending.
SUIT_CARDS: Final = LATIN_LAYOUT.cards
#: ``TRICK_KEYS[trump][led][c]``: the strength of card ``c`` in a trick (COMMON-5,
#: MANIGLIA-GEN-1: within a suit a higher number is a stronger card).
TRICK_KEYS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {
    trump: trick_keys(LATIN_LAYOUT, trump, range(1, 11)) for trump in range(4)
}

#: MANIGLIA-GEN-5 option values.
OPPONENT: Final = "opponent"
STRICT: Final = "strict"


def card_name(card: int) -> str:
    return LATIN_NAMES[card]


def card_number(name: str) -> int:
    return LATIN_INDEX[name]


def suit_letter(suit: int) -> str:
    return LATIN_SUITS[suit]


def card_points(cards: int) -> int:
    """MANIGLIA-GEN-2: the card points of a card set (mask); 60 for a whole pack."""
    total = 0
    while cards:
        low = cards & -cards
        total += POINTS[low.bit_length() - 1]
        cards ^= low
    return total


def deal_value(players: int, ranks: int | None = None) -> int:
    """MANIGLIA-GEN-2: 60 card points + 1 per trick = 72 / 70 / 68 for 3 / 4 / 5 players.

    A small deck of ``ranks`` per suit (``maniglia.ranks``): the card points
    of that pack + its tricks (the hand size).
    """
    if ranks is None:
        return 60 + (36 if players == 3 else 40) // players
    value = _DEAL_VALUES.get((players, ranks))
    if value is None:  # once per table and deck (every game asks)
        value = _DEAL_VALUES[(players, ranks)] = (
            card_points(auction_pack(ranks)) + 4 * ranks // players
        )
    return value


_DEAL_VALUES: dict[tuple[int, int], int] = {}


#: The small deck (``maniglia.ranks``, not a rule of the real game): the ranks per suit
#: each auction variant's deck may keep, its highest ones (every hand the same size);
#: the last is the real game's pack (MANIGLIA-GEN-1).
AUCTION_RANKS = {3: (3, 6, 9), 4: tuple(range(1, 11)), 5: (5, 10)}


def auction_pack(ranks: int) -> int:
    """MANIGLIA-GEN-1 and the small deck: the pack of the ``ranks`` highest ranks per suit
    (9: the 36 cards of maniglia-3, 10: the whole 40)."""
    pack = _AUCTION_PACKS.get(ranks)
    if pack is None:  # once per deck (every game asks)
        pack = _AUCTION_PACKS[ranks] = LATIN_LAYOUT.top_ranks(ranks)
    return pack


_AUCTION_PACKS: dict[int, int] = {}


def beats(card: int, winning: int, trump: int) -> bool:
    """COMMON-5: does ``card`` beat the card ``winning`` the trick so far?

    ``winning`` is of the led suit or a trump; a higher card of its suit beats
    it, and any trump beats a non-trump. A card of another suit never wins.
    """
    suit, wsuit = SUIT_OF[card], SUIT_OF[winning]
    if suit == wsuit:
        return card > winning
    return suit == trump


def trick_winner(cards: list[int], trump: int) -> int:
    """Index in ``cards`` (play order, leader first) of the card that wins (COMMON-5)."""
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], trump):
            best = i
    return best


def playable(
    hand: int, led: int, winning: int, opponent: bool, trump: int, strict: bool = False
) -> int:
    """MANIGLIA-GEN-5: the cards of ``hand`` (a mask) that may be played to a trick.

    ``led`` is the suit led, or -1 for the leader, who plays any card (step 1).
    ``winning`` is the card W currently winning the trick and ``opponent`` says
    whether W is held by the other side (4 partners: the other team; auction
    games: declarer against all the others). ``strict`` selects
    ``maniglia.overtake = strict``: W's holder does not matter, and a void
    player holding trumps must play one (one that beats W if he can).
    """
    if led < 0:
        return hand
    must_beat = opponent or strict
    follow = hand & SUIT_MASKS[led]
    if follow:
        # Step 2: follow suit; beat W when it is of the led suit and an opponent's.
        if must_beat and SUIT_OF[winning] == led:
            return follow & ABOVE[winning] or follow
        return follow
    if not must_beat:
        return hand  # step 4: void, W held by his own side
    trumps = hand & SUIT_MASKS[trump]
    if not trumps:
        return hand
    # Step 3: a trump that would win (any trump over a non-trump W), else any card;
    # strict: else any trump.
    winners = trumps & ABOVE[winning] if SUIT_OF[winning] == trump else trumps
    if winners:
        return winners
    return trumps if strict else hand


def partners_deal_points(team_totals: list[int]) -> list[int]:
    """MANIGLIA-4P-5: game points each team scores from its (card points + tricks) total.

    The totals sum to 70; a team with 35 or more scores total - 35, the other 0.
    """
    return [max(0, t - 35) for t in team_totals]


def turn_up_bonus(card: int, team_points: int) -> int:
    """MANIGLIA-4P-3: what the dealer's team scores for the turned-up ``card``."""
    return POINTS[card] if team_points <= 29 else 0


def auction_deal_points(players: int, declarer: int, bid: int, total: int) -> list[int]:
    """MANIGLIA-AUC-6: each seat's score for one deal.

    ``total`` is the declarer's card points + tricks. He scores the bid if he
    made it; otherwise every other player scores it.
    """
    made = total >= bid
    return [
        (bid if made else 0) if seat == declarer else (0 if made else bid)
        for seat in range(players)
    ]


#: MANIGLIA-GEN-4: packet size by number of players (3: 4+4+4, 4: 5+5, 5: 4+4).
PACKET_SIZES: Final = {3: 4, 4: 5, 5: 4}


def deal_order(dealer: int, players: int) -> list[int]:
    """MANIGLIA-GEN-3/-4: the seats in dealing order, from the dealer's right to the dealer."""
    return [(dealer - 1 - i) % players for i in range(players)]


def deal_hands(deck: list[int], dealer: int, players: int) -> list[int]:
    """MANIGLIA-GEN-4: each seat's hand (a mask) dealt from ``deck`` (top card first).

    Packets of ``PACKET_SIZES[players]`` cards go round counter-clockwise from the
    dealer's right, the dealer last, until the deck is used up; the last card of
    the deck is therefore the dealer's final card (the turn-up of MANIGLIA-4P-2).
    The smaller hands of a small deck (``maniglia.ranks``) come in the largest packets no
    bigger than those that deal them in whole rounds (``games.cards.packet_size``).
    """
    key = (len(deck), dealer, players)
    dealing = _DEALINGS.get(key)
    if dealing is None:
        size = packet_size(len(deck) // players, PACKET_SIZES[players])
        order = deal_order(dealer, players)  # the i-th hand dealt is order[i]'s
        packets = packet_dealing(size, players, len(deck)).owners
        dealing = _DEALINGS[key] = Dealing([order[hand] for hand in packets], players)
    return dealing.masks(deck)


#: The :class:`Dealing` of :func:`deal_hands` per (cards, dealer, players): straight to seats.
_DEALINGS: dict[tuple[int, int, int], Dealing] = {}
