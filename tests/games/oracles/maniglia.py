"""Hidden-card oracle for maniglia-3, maniglia-4, maniglia-5 and maniglia-4-partners.

Rebuilds hands from the decks by the deal pattern of MANIGLIA-GEN-4 (packets
counter-clockwise from the dealer's right, dealer last; 3 players 4+4+4,
4 players 5+5, 5 players 4+4; a small deck (``maniglia.ranks``) of N ranks per suit
deals 4N / players cards each in the largest packets up to those that divide
it), makes the turned-up card (the dealer's final
card, MANIGLIA-4P-2) public in the partnership game, adds every played card
as public, and follows deal ends (all cards played, or an auction where all
pass under ``maniglia.all_pass = redeal``) from the action labels alone.
"""

from __future__ import annotations

import re

TOKEN = re.compile(r"\b[2-7JNKA][DCSB]\b")
MAX_DECKS = 100

CASES = [
    ("maniglia-3", {}),
    ("maniglia-3", {"maniglia.overtake": "strict"}),
    ("maniglia-3", {"maniglia.all_pass": "dealer-forced"}),
    ("maniglia-3", {"maniglia.target": 150}),
    ("maniglia-3", {"maniglia.ranks": 3}),
    ("maniglia-3", {"maniglia.ranks": 6, "maniglia.all_pass": "dealer-forced"}),
    ("maniglia-4", {}),
    ("maniglia-4", {"maniglia.overtake": "strict", "maniglia.all_pass": "dealer-forced"}),
    ("maniglia-4", {"maniglia.target": 140}),
    ("maniglia-4", {"maniglia.ranks": 1}),
    ("maniglia-4", {"maniglia.ranks": 3, "maniglia.target": 120}),
    ("maniglia-4", {"maniglia.ranks": 7, "maniglia.overtake": "strict"}),
    ("maniglia-5", {}),
    ("maniglia-5", {"maniglia.overtake": "strict"}),
    ("maniglia-5", {"maniglia.ranks": 5}),
    ("maniglia-5", {"maniglia.all_pass": "dealer-forced", "maniglia.target": 136}),
    ("maniglia-4-partners", {}),
    ("maniglia-4-partners", {"maniglia.overtake": "strict"}),
    ("maniglia-4-partners", {"maniglia.target_partners": 8}),
]

_ALL = [r + s for s in "DCSB" for r in "23456JNKA7"]
_PLAYERS = {"maniglia-3": 3, "maniglia-4": 4, "maniglia-5": 5, "maniglia-4-partners": 4}
_PACKET = {3: 4, 4: 5, 5: 4}


def pack(variant_id: str, options: dict) -> list[str]:
    full = 9 if variant_id == "maniglia-3" else 10  # maniglia-3 has no 2s
    kept = "23456JNKA7"[10 - options.get("maniglia.ranks", full) :]  # the highest ranks
    return [c for c in _ALL if c[0] in kept]


class Oracle:
    def __init__(self, variant_id: str, options: dict, dealer: int, decks: list[list[str]]):
        self.n = _PLAYERS[variant_id]
        self.partners = variant_id == "maniglia-4-partners"
        self.decks = decks
        self.dealer = dealer
        self.deal = 0
        self.known: list[set[str]] = [set() for _ in range(self.n)]
        self.public: set[str] = set()
        self._start_deal()

    def _start_deal(self) -> None:
        deck = self.decks[self.deal]
        self.deal += 1
        self.plays = 0
        self.passes = 0
        self.bid = False
        hand = len(deck) // self.n
        size = max(d for d in range(1, _PACKET[self.n] + 1) if hand % d == 0)
        for p in range(len(deck) // size):
            seat = (self.dealer - 1 - p) % self.n  # dealer's right first, dealer last
            self.known[seat].update(deck[size * p : size * p + size])
        self.cards = len(deck)
        if self.partners:
            self.public.add(deck[-1])  # the dealer's final card is turned up

    def _next_deal(self) -> None:
        if self.deal < len(self.decks):
            self.dealer = (self.dealer - 1) % self.n  # the deal passes to the right
            self._start_deal()

    def advance(self, seat: int, label: str) -> None:
        if label.startswith("play "):
            self.public.add(label[5:])
            self.plays += 1
            if self.plays == self.cards:
                self._next_deal()
        elif label.startswith("bid "):
            self.bid = True
        elif label == "pass":
            self.passes += 1
            if self.passes == self.n and not self.bid:
                self._next_deal()  # thrown in

    def visible(self, seat: int) -> set[str]:
        return self.known[seat] | self.public
