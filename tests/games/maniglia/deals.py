"""Test helpers: build Maniglia decks that deal chosen hands, and positions from labels.

The deck layout follows MANIGLIA-GEN-4 literally and independently of the
engine: packets go counter-clockwise from the dealer's right ((dealer - 1) mod
n), the dealer last; 3 players 4+4+4, 4 players 5+5, 5 players 4+4.
"""

from __future__ import annotations

from typing import Any

import games

LATIN = [r + s for s in "DCSB" for r in "23456JNKA7"]
PLAYERS = {"maniglia-3": 3, "maniglia-4": 4, "maniglia-5": 5, "maniglia-4-partners": 4}
PACKET = {3: 4, 4: 5, 5: 4}


def pack(variant: str) -> list[str]:
    if variant == "maniglia-3":
        return [c for c in LATIN if c[0] != "2"]
    return list(LATIN)


def deck_for(variant: str, dealer: int, hands: dict[int, list[str]]) -> list[str]:
    """A deck that deals ``hands`` (seat -> cards, in the order received).

    Seats not given, and hands given with fewer cards than a full hand, are
    filled with the unused cards in pack order. The last card of the dealer's
    list is the last card of the deck (the turn-up of maniglia-4-partners).
    """
    n = PLAYERS[variant]
    cards = pack(variant)
    size = len(cards) // n
    used = [c for h in hands.values() for c in h]
    assert len(used) == len(set(used)), "a card is given twice"
    spare = [c for c in cards if c not in used]
    full = {}
    for seat in range(n):
        given = list(hands.get(seat, []))
        need = size - len(given)
        assert need >= 0, f"seat {seat} is given too many cards"
        # Fill before the given cards so a given hand keeps its last card last.
        full[seat] = spare[:need] + given
        spare = spare[need:]
    packet = PACKET[n]
    deck: list[str] = []
    taken = dict.fromkeys(range(n), 0)
    for p in range(len(cards) // packet):
        seat = (dealer - 1 - p % n) % n
        deck += full[seat][taken[seat] : taken[seat] + packet]
        taken[seat] += packet
    return deck


def position(
    variant: str,
    dealer: int,
    hands: dict[int, list[str]],
    actions: list[str] = (),
    decks_after: list[list[str]] = (),
    seed: int = 1,
    **options: Any,
) -> games.State:
    """A new game dealt from ``deck_for(...)`` with ``actions`` applied."""
    game = games.load(variant, **options)
    deck = deck_for(variant, dealer, hands)
    state = game.new_game(seed, dealer=dealer, decks=[deck, *decks_after])
    for label in actions:
        state.apply(label)
    return state


def legal_cards(state: games.State) -> list[str]:
    return [a[5:] for a in state.legal_actions() if a.startswith("play ")]


def accepted_cards(state: games.State) -> list[str]:
    """Cards of the current player's hand that ``apply`` accepts, tried one by one."""
    seat = state.current_player()
    ok = []
    for card in state.observation(seat)["hand"]:
        trial = state.clone()
        try:
            trial.apply(f"play {card}")
        except games.IllegalAction:
            continue
        ok.append(card)
    return ok


def play_out(state: games.State, choose=None) -> None:
    """Play until the game is over, ``choose(legal)`` picking (default: the first)."""
    while not state.is_over():
        legal = state.legal_actions()
        state.apply(choose(legal) if choose else legal[0])
