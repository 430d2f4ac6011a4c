"""Deck builders: lay out a deck so that the deal patterns give the hands a test wants.

Seats: the dealer is 0, so L = 1, R = 2, D = 0 (COMMON-1).
"""

from __future__ import annotations

import games

ALL = [r + s for s in "SHDC" for r in "23456789TJQKA"]
L, R, D = 1, 2, 0


def fill(hands: dict[str, list[str]], sizes: dict[str, int], pack: list[str]) -> dict:
    """Complete partial hands with unused cards of ``pack`` up to ``sizes``."""
    used = {c for cards in hands.values() for c in cards}
    assert len(used) == sum(len(v) for v in hands.values()), "a card is used twice"
    spare = [c for c in pack if c not in used]
    out = {}
    for name, size in sizes.items():
        cards = list(hands.get(name, []))
        assert len(cards) <= size
        while len(cards) < size:
            cards.append(spare.pop(0))
        out[name] = cards
    return out


def basic_deck(l=(), r=(), d=(), manni=()) -> list[str]:
    """MANNI-BASIC-4: packets of 4 to L, R, D three times, then the 12-card Manni."""
    pack = [c for c in ALL if c[0] != "2"]
    h = fill(
        {"l": list(l), "r": list(r), "d": list(d), "m": list(manni)},
        {"l": 12, "r": 12, "d": 12, "m": 12},
        pack,
    )
    deck = []
    for rnd in range(3):
        for who in "lrd":
            deck += h[who][4 * rnd : 4 * rnd + 4]
    return deck + h["m"]


def horn_deck(l=(), r=(), d=(), manni=(), contract="7C") -> list[str]:
    """HORN-5: four cycles of 4 Manni cards then 3 to L, R, D; the last card is the contract.

    ``manni`` lists the Manni in draw order (top first).
    """
    hands = {
        "l": list(l),
        "r": list(r),
        "d": [*d, contract] if contract not in d else list(d),
        "m": list(manni),
    }
    h = fill(hands, {"l": 12, "r": 12, "d": 12, "m": 16}, ALL)
    dcards = [c for c in h["d"] if c != contract] + [contract]
    dealt_manni = h["m"][::-1]  # the last card dealt is the top of the Manni
    deck = []
    for cyc in range(4):
        deck += dealt_manni[4 * cyc : 4 * cyc + 4]
        deck += h["l"][3 * cyc : 3 * cyc + 3] + h["r"][3 * cyc : 3 * cyc + 3]
        deck += dcards[3 * cyc : 3 * cyc + 3]
    assert deck[-1] == contract
    return deck


def laug_deck(l=(), r=(), d=(), manni=()) -> list[str]:
    """LAUG-3: packets of 4 to L, R, D four times; ``manni`` in draw order (top first)."""
    h = fill(
        {"l": list(l), "r": list(r), "d": list(d), "m": list(manni)},
        {"l": 16, "r": 16, "d": 16, "m": 4},
        ALL,
    )
    deck = []
    for rnd in range(4):
        for who in "lrd":
            deck += h[who][4 * rnd : 4 * rnd + 4]
    return deck + h["m"][::-1]


def new(variant: str, deck: list[str], **options) -> games.State:
    return games.load(variant, **options).new_game(1, dealer=D, decks=[deck])


def hand(state: games.State, seat: int) -> set[str]:
    return set(state.observation(seat)["hand"])


def play_out_trick(state: games.State, *cards: str) -> None:
    for card in cards:
        state.apply(f"play {card}")
