"""Hidden-card oracle for money-jordan, money-egypt and money-syria.

Re-deals the stacks from the deck (MONEY-JO-3) and moves the numerals as the
action labels say: ``turn`` puts a stack's top card face up on the pile,
matches capture it (MONEY-JO-7, MONEY-EG-7), buys move packets (MONEY-JO-11,
-12, -14, MONEY-EG-4, MONEY-SY-2). In Money no card is ever shown to one seat
only: a card is visible to both seats once it has been turned face up, and
a face-down stack card never is, not even to its owner.
"""

from __future__ import annotations

import re

TOKEN = re.compile(r"\b(?:[2-9TA][SHDC]|X[12])\b")
MAX_DECKS = 1

CASES = [
    ("money-jordan", {}),
    ("money-jordan", {"money.capture": "choice"}),
    ("money-jordan", {"money.jokers": True}),
    ("money-jordan", {"money.max_plays": 150}),
    ("money-egypt", {}),
    ("money-egypt", {"money.eg_values": "10-15-20"}),
    ("money-egypt", {"money.eg_aces_money": True}),
    ("money-egypt", {"money.eg_seven_diamonds": True}),
    ("money-egypt", {"money.jokers": True}),
    ("money-syria", {}),
    ("money-syria", {"money.capture": "choice"}),
]


def _values(variant_id: str, options: dict) -> dict[str, int]:
    if variant_id == "money-jordan":
        return {"K": 5, "J": 10, "Q": 15}
    if variant_id == "money-syria":
        return {"X": 5, "J": 10, "Q": 15, "K": 20}
    low = options.get("money.eg_values", "5-10-15") == "5-10-15"
    table = {"Q": 5, "K": 10, "J": 15} if low else {"Q": 10, "K": 15, "J": 20}
    if options.get("money.eg_aces_money"):
        table["A"] = 30
    return table


def pack(variant_id: str, options: dict) -> list[str]:
    """The numerals of one deck (money cards are not shuffled)."""
    ranks = "A23456789T"
    if variant_id == "money-egypt" and options.get("money.eg_aces_money"):
        ranks = "23456789T"
    cards = [r + s for s in "SHDC" for r in ranks]
    if variant_id != "money-syria" and options.get("money.jokers"):
        cards += ["X1", "X2"]
    return cards


def _number(card: str) -> str:
    return "X" if card[0] == "X" else card[0]


class Oracle:
    def __init__(self, variant_id: str, options: dict, dealer: int, decks: list[list[str]]):
        deck = decks[0]
        first, second = deck[0::2], deck[1::2]
        self.stacks = [list(second), list(first)] if dealer == 0 else [list(first), list(second)]
        self.pile: list[str] = []
        self.values = _values(variant_id, options)
        self.egypt = variant_id == "money-egypt"
        self.syria = variant_id == "money-syria"
        self.choice = options.get("money.capture") == "choice"
        self.seven = self.egypt and bool(options.get("money.eg_seven_diamonds"))
        self.public: set[str] = set()
        self.pending: tuple[int, int] | None = None  # (buyer, value) of an opponent buy

    def _worth(self, money: str) -> int:
        return 0 if money == "none" else sum(self.values[x] for x in money.split("+"))

    def _give(self, buyer: int, packet: list[str]) -> None:
        self.stacks[buyer].extend(packet)  # every packet goes under the buyer's stack

    def advance(self, seat: int, label: str) -> None:
        if self.pending is not None and not label.startswith("change "):
            buyer = self.pending[0]  # MONEY-JO-14: a stuck buyer takes the whole stack
            self._give(buyer, self.stacks[1 - buyer])
            self.stacks[1 - buyer] = []
            self.pending = None
        words = label.split()
        if label == "turn":
            self._turn(seat)
        elif label == "capture":
            self._capture(seat)
        elif words[0] == "buy" and words[3] == "ground":
            n = min(self.values[words[1]] - self._worth(words[5]), len(self.pile))
            if self.syria:
                packet, self.pile = self.pile[len(self.pile) - n :], self.pile[: len(self.pile) - n]
            else:
                packet, self.pile = self.pile[:n], self.pile[n:]
            self._give(seat, packet)
        elif words[0] == "buy":
            self.pending = (seat, self.values[words[1]])
        elif words[0] == "change":
            buyer, value = self.pending
            n = value - self._worth(words[1])
            stack = self.stacks[seat]
            if self.egypt:
                packet, self.stacks[seat] = stack[len(stack) - n :], stack[: len(stack) - n]
            else:
                packet, self.stacks[seat] = stack[:n], stack[n:]
            self._give(buyer, packet)
            self.pending = None

    def _turn(self, seat: int) -> None:
        card = self.stacks[seat].pop(0)
        self.public.add(card)
        hit = bool(self.pile) and (
            _number(card) == _number(self.pile[-1]) or (self.seven and card == "7D")
        )
        self.pile.append(card)
        if hit and not self.choice:
            self._capture(seat)

    def _capture(self, seat: int) -> None:
        self.stacks[seat].extend(self.pile)
        self.pile = []

    def visible(self, seat: int) -> set[str]:
        return set(self.public)
