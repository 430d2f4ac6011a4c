"""Greedy strategy for Money: money-jordan, money-egypt, money-syria.

Captures are always taken. Everything else is decided by looking ahead:
the order of both stacks becomes known from the public history once the
dealt cards have been turned (MONEY-JO-15), so :class:`StackModel` follows
every turn, capture and purchase, marking dealt cards not seen yet as
unknown. For each purchase, change or (in Egypt) the plain ``turn``,
:func:`foreseen_captures` replays the coming turns and adds up the grounds
it sees captured, won or lost. Ties keep the legal
list's order, which puts ``turn`` first in Egypt, so money is only spent
when it helps.
"""

from __future__ import annotations

from typing import Any

Card = str | None  # a numeral label, None while not seen

#: Turns looked ahead; beyond this the order of events is too uncertain to matter.
HORIZON = 80
#: Each further turn before a capture makes it worth a little less.
DISCOUNT = 0.97


def money_value(letters: str, values: dict[str, int]) -> int:
    """Value of a money set label such as ``Q+J+K`` (``none`` is 0)."""
    if letters == "none":
        return 0
    return sum(values[letter] for letter in letters.split("+"))


class StackModel:
    """Both stacks (top card first, ``None`` for an unseen dealt card) and the pile."""

    def __init__(self, variant: str) -> None:
        self.syria = variant == "money-syria"
        self.egypt = variant == "money-egypt"
        self.stacks: list[list[Card]] = [[], []]
        self.pile: list[str] = []
        self.seen = 0
        self.pending_buy: tuple[int, int] | None = None  # (buyer, value paid to the seller)
        self.pending_capture: int | None = None
        self.choice_mode = False

    def update(self, obs: dict[str, Any]) -> None:
        """Follow the history since the last call; on any surprise forget the stack orders."""
        history, values = obs["history"], obs["money_values"]
        self.choice_mode = obs.get("capture_mode") == "choice"
        if len(history) < self.seen or self.seen == 0:
            total = sum(obs["stack_sizes"]) + len(obs["pile"])
            self.stacks = [[None] * (total // 2), [None] * (total - total // 2)]
            self.pile, self.seen = [], 0
            self.pending_buy = self.pending_capture = None
        try:
            for entry in history[self.seen :]:
                self.apply(entry, values)
        except (IndexError, KeyError, ValueError):
            self.stacks = [[], []]
        self.seen = len(history)
        if [len(s) for s in self.stacks] != obs["stack_sizes"] or self.pile != obs["pile"]:
            self.stacks = [[None] * n for n in obs["stack_sizes"]]
            self.pile = list(obs["pile"])

    def apply(self, entry: list, values: dict[str, int]) -> None:
        seat, label = entry[0], entry[1]
        if self.pending_buy is not None and not label.startswith("change"):
            self._settle_buy(len(self.stacks[1 - self.pending_buy[0]]))  # stuck purchase
        if label == "turn":
            self._turn(seat, entry[2])
        elif label == "capture":
            self._capture(seat)
        elif label == "decline":
            self.pending_capture = None
        elif label.startswith("change "):
            if self.pending_buy is None:
                raise ValueError("change without a purchase: stack model out of step")
            self._settle_buy(self.pending_buy[1] - money_value(label[7:], values))
        elif label.startswith("buy "):
            self._buy(seat, label.split(), values)

    def _turn(self, seat: int, card: str) -> None:
        stack = self.stacks[seat]
        if stack[0] is not None and stack[0] != card:
            raise ValueError("stack model out of step")
        stack.pop(0)
        matched = bool(self.pile) and self.pile[-1][0] == card[0]
        self.pile.append(card)
        self.pending_capture = seat if matched else None
        if matched and not self.choice_mode:
            self._capture(seat)

    def _capture(self, seat: int) -> None:
        # MONEY-JO-7: the pile, oldest card first, goes under the capturer's stack.
        self.stacks[seat].extend(self.pile)
        self.pile = []
        self.pending_capture = None

    def _buy(self, seat: int, words: list[str], values: dict[str, int]) -> None:
        paid = values[words[1]]
        if words[3] == "opponent":
            self.pending_buy = (seat, paid)
            return
        count = min(paid - money_value(words[5], values), len(self.pile))
        self.stacks[seat].extend(ground_packet(self.pile, count, self.syria))

    def _settle_buy(self, count: int) -> None:
        buyer, _ = self.pending_buy
        self.pending_buy = None
        self.stacks[buyer].extend(seller_packet(self.stacks[1 - buyer], count, self.egypt))


def ground_packet(pile: list[str], count: int, syria: bool) -> list[str]:
    """Remove and return the numerals a ground purchase takes, in stack order.

    MONEY-JO-11: the bottom ``count`` cards, former bottom first; MONEY-SY-2:
    the top ``count`` cards, oldest first.
    """
    if syria:
        packet = pile[len(pile) - count :]
        del pile[len(pile) - count :]
    else:
        packet = pile[:count]
        del pile[:count]
    return packet


def seller_packet(stack: list[Card], count: int, egypt: bool) -> list[Card]:
    """Remove and return the seller's numerals: his top (MONEY-JO-12) or bottom (MONEY-EG-4)."""
    if egypt:
        packet = stack[len(stack) - count :]
        del stack[len(stack) - count :]
    else:
        packet = stack[:count]
        del stack[:count]
    return packet


class MoneyPlayer:
    """The Money strategy for one game: a :class:`StackModel` and a one-capture lookahead."""

    def __init__(self, variant: str) -> None:
        self.model = StackModel(variant)

    def __call__(self, obs: dict[str, Any], legal: list[str]) -> str:
        if "capture" in legal:
            return "capture"  # the whole ground is won at once
        self.model.update(obs)
        best, best_score = legal[0], float("-inf")
        for label in legal:
            score = self.score(label, obs)
            if score > best_score:
                best, best_score = label, score
        return best

    def score(self, label: str, obs: dict[str, Any]) -> float:
        """Foreseen value of ``label``: + the ground this seat captures first, - the opponent's."""
        me, values = obs["seat"], obs["money_values"]
        stacks = [list(s) for s in self.model.stacks]
        pile = list(self.model.pile)
        under = money_value(obs["under_pile"], values)
        mover = me
        words = label.split()
        if words[0] == "exchange":
            return -0.01  # changes no card; worth it only to make a purchase possible
        if words[0] == "buy" and words[3] == "ground":
            count = min(values[words[1]] - money_value(words[5], values), len(pile))
            stacks[me].extend(ground_packet(pile, count, self.model.syria))
            under += values[words[1]] - money_value(words[5], values) - count
        elif words[0] == "buy":
            count = min(values[words[1]], len(stacks[1 - me]))
            stacks[me].extend(seller_packet(stacks[1 - me], count, self.model.egypt))
        elif words[0] == "change":
            paid = obs["pending_purchase"]["value"]
            count = paid - money_value(words[1], values)
            stacks[1 - me].extend(seller_packet(stacks[me], count, self.model.egypt))
            mover = 1 - me
        return foreseen_captures(stacks, pile, under, mover, me)


def foreseen_captures(
    stacks: list[list[Card]], pile: list[str], under: int, mover: int, me: int
) -> float:
    """Replay plain turns from ``mover`` on; the discounted value of the captures foreseen.

    Each capture counts its ground, positive when ``me`` captures, negative
    when the opponent does; the replay stops at an unseen card, an empty
    stack or the horizon. Captured piles go under the capturer's stack
    (MONEY-JO-7), so later captures are foreseen too.
    """
    stacks = [stacks[0][:], stacks[1][:]]
    positions = [0, 0]
    weight, total = 1.0, 0.0
    pile = pile[:]
    top = pile[-1] if pile else None
    ground = len(pile) + under
    for _ in range(HORIZON):
        stack, i = stacks[mover], positions[mover]
        if i >= len(stack) or stack[i] is None:
            break
        card = stack[i]
        ground += 1
        pile.append(card)
        positions[mover] = i + 1
        if top is not None and top[0] == card[0]:
            total += weight * ground if mover == me else -weight * ground
            stack.extend(pile)
            pile, top, ground = [], None, 0
        else:
            top = card
        mover = 1 - mover
        weight *= DISCOUNT
    return total
