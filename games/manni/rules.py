"""Pure rule helpers of the Manni family: cards, tricks, contracts, scoring.

Everything here is a plain function or table over integer cards (see
``games.cards``) so it can be tested on its own.
"""

from __future__ import annotations

from typing import Final

from games.cards import FRENCH_INDEX, FRENCH_NAMES
from games.tricks import FRENCH_LAYOUT, NO_TRUMP, trick_keys

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
SUIT_MASKS: Final[tuple[int, ...]] = FRENCH_LAYOUT.masks
FULL_PACK: Final = (1 << 52) - 1
#: MANNI-BASIC-2: the 48-card pack without the four 2s (rank 0).
PACK_WITHOUT_TWOS: Final = FULL_PACK & ~sum(FRENCH_LAYOUT.with_suit(1, s) for s in range(4))
#: The small deck (``manni.ranks``, not a rule of the real game): the ranks per suit a
#: manni-basic deck may keep, its highest ones; 12 (3 to A) is the real game's pack.
BASIC_RANKS = (3, 6, 9, 12)

#: ``SUIT_CARDS[s][m]``: cards of the 13-bit pattern ``m`` of suit ``s``, ascending.
SUIT_CARDS: Final = FRENCH_LAYOUT.cards

#: MANNI-BASIC-3: trump of deal k is ``BASIC_TRUMPS[(k - 1) % 4]``.
BASIC_TRUMPS: Final = (HEARTS, SPADES, DIAMONDS, CLUBS)

NULLO: Final = "nullo"
SUIT: Final = "suit"
GRAND: Final = "grand"


def card_name(card: int) -> str:
    return FRENCH_NAMES[card]


def card_number(name: str) -> int:
    return FRENCH_INDEX[name]


def suit_of(card: int) -> int:
    return FRENCH_LAYOUT.suits[card]


#: Trick strength by rank (``2..A``), and with the ace lowest (HORN-3, LAUG-2 in Nullo).
RANK_STRENGTH = tuple(range(1, 14))
ACE_LOW_STRENGTH = (*range(1, 13), 0)

#: ``TRICK_KEYS[(trump, ace_low)][led][c]``: the strength of card ``c`` (COMMON-5):
#: trumps beat the led suit, which beats everything else; within a suit the rank decides.
TRICK_KEYS: Final[dict[tuple[int, bool], tuple[tuple[int, ...], ...]]] = {
    (trump, ace_low): trick_keys(
        FRENCH_LAYOUT, trump, ACE_LOW_STRENGTH if ace_low else RANK_STRENGTH
    )
    for trump in (NO_TRUMP, SPADES, HEARTS, DIAMONDS, CLUBS)
    for ace_low in (False, True)
}


def trick_winner(cards: list[int], trump: int, ace_low: bool = False) -> int:
    """Index in ``cards`` (play order, leader first) of the card that wins (COMMON-5)."""
    keys = TRICK_KEYS[(trump, ace_low)][suit_of(cards[0])]
    best = 0
    for i in range(1, len(cards)):
        if keys[cards[i]] > keys[cards[best]]:
            best = i
    return best


def playable(hand: int, led: int | None) -> int:
    """Cards of ``hand`` that may be played (MANNI-BASIC-6, HORN-7, LAUG-9).

    ``led`` is the suit led to this trick, or ``None`` for the leader. A
    player holding the led suit must follow; otherwise any card.
    """
    if led is None:
        return hand
    follow = hand & SUIT_MASKS[led]
    return follow or hand


def basic_pack(ranks: int) -> int:
    """MANNI-BASIC-2 and the small deck: the pack of the ``ranks`` highest ranks per suit."""
    return FRENCH_LAYOUT.top_ranks(ranks)


def basic_par(ranks: int) -> int:
    """MANNI-BASIC-7 and the small deck: the tricks a deal's score counts from (a third)."""
    return ranks // 3


def basic_target(ranks: int, target: int = 10) -> int:
    """MANNI-BASIC-8 and the small deck: the total that ends the game, scaled to ``ranks``
    tricks a deal (``target`` for 12; rounded up: 3 / 5 / 8 / 10 for 3 / 6 / 9 / 12 ranks)."""
    return -(-target * ranks // 12)


def basic_game_over(totals: list[int], tie: str, target: int = 10) -> bool:
    """MANNI-BASIC-8: over once a total reaches ``target``; ``play-on`` needs a sole leader."""
    top = max(totals)
    if top < target:
        return False
    return tie == "share" or totals.count(top) == 1


def horn_contract(card: int, table: str = "standard") -> tuple[str, int]:
    """HORN-4: the contract (type, trump suit) set by the contract card."""
    suit, rank = FRENCH_LAYOUT.suit_of(card), FRENCH_LAYOUT.ranks[card]  # rank 0 is the two
    nullo_top, suit_top = (3, 7) if table == "standard" else (4, 8)
    if rank <= nullo_top:
        return NULLO, NO_TRUMP
    if rank <= suit_top:
        return SUIT, suit
    return GRAND, NO_TRUMP


def horn_tally(contract: str, tricks: int) -> tuple[int, int]:
    """HORN-8: the (plus, minus) points a player with ``tricks`` tricks adds."""
    if contract == NULLO:
        return max(0, 4 - tricks), max(0, tricks - 4)
    return max(0, tricks - 4), max(0, 4 - tricks)


# Laugavatnsmanni contracts (LAUG-4), in label order.
LAUG_CONTRACTS: Final = ("nullo", "grand", "hearts", "spades", "diamonds", "clubs")
LAUG_NULLO: Final = 0
LAUG_GRAND: Final = 1
#: Trump suit of each contract.
LAUG_TRUMP: Final = (NO_TRUMP, NO_TRUMP, HEARTS, SPADES, DIAMONDS, CLUBS)
#: LAUG-4 rank for great calls: Grand > Hearts > Spades > Diamonds > Clubs.
LAUG_RANK: Final = (0, 5, 4, 3, 2, 1)


def laug_deal_scores(tricks: list[int], declarer: int, contract: int, great: bool) -> list[int]:
    """LAUG-10: each seat's score for one deal; every case sums to 0."""
    t = tricks[declarer]
    if great:
        if t <= 14:
            mine, theirs = t - 14, None
        else:
            mine, theirs = (4, -2) if t == 15 else (8, -4)
        return [
            mine if seat == declarer else (tricks[seat] - 1 if theirs is None else theirs)
            for seat in range(3)
        ]
    if contract == LAUG_NULLO:
        return [4 - t if seat == declarer else 6 - tricks[seat] for seat in range(3)]
    return [t - 8 if seat == declarer else tricks[seat] - 4 for seat in range(3)]
