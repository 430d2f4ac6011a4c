"""Deal plans of the Maniglia family for ``games.sampling`` (see docs/sampling.md).

Maniglia has no stock: every card is dealt (MANIGLIA-GEN-4) and every card
of a played deal is played face up. A deal's plan knows each seat's plays,
the viewer's hand, the suits each seat showed void in and, in the
partnership game, the dealer's turned-up card (MANIGLIA-4P-2); the other
hands are dealt uniformly under the voids. The duty to beat the winning
card (MANIGLIA-GEN-5) says more: in the current deal, whose trump and sides the
observation gives, a seat that played a card it could not have played with some
other card in hand cannot hold that card (a higher card of the suit it followed
below an opponent's winner, a trump that would have won when it discarded): those
cards are kept out of its hand as a void's are (:func:`duty_forbidden`). Late in a
deal these are most of what a hand's cards are known by; rejection alone then
found no deal in thousands of draws. The world builder still replays the history
and rejects a deal that breaks a rule, so the accepted worlds stay uniform over the
consistent deals.
"""

from __future__ import annotations

import random
from typing import Any

from games.cards import LATIN_SUITS
from games.core import Game
from games.maniglia.rules import SUIT_OF, beats, card_number, playable
from games.sampling import ConstrainedDeal, SamplingError, deal_layout, place


class ManigliaPlan:
    """One deal: known holdings, voids and the deck layout of its dealer."""

    def __init__(self, game: Game, obs: dict[str, Any], entry: dict[str, Any], current: bool):
        n = game.num_players
        self.dealer = entry["dealer"] if "dealer" in entry else obs["dealer"]
        self.hands, _, self.pack = deal_layout(game, self.dealer)
        viewer = obs["seat"]
        played: list[list[str]] = [[] for _ in range(n)]
        voids: list[set[str]] = [set() for _ in range(n)]
        trick: list[str] = []
        self.actions = []
        for seat, label in entry["actions"]:
            self.actions.append(label)
            if not label.startswith("play "):
                continue
            card = label[5:]
            if trick and card[1] != trick[0][1]:
                voids[seat].add(trick[0][1])  # MANIGLIA-GEN-5: could not follow suit
            trick.append(card)
            played[seat].append(card)
            if len(trick) == n:
                trick = []
        holdings = [list(p) for p in played]
        if current:
            holdings[viewer] += list(obs["hand"])
            sizes = [0 if s == viewer else obs["hand_sizes"][s] for s in range(n)]
        else:
            sizes = [len(self.hands[s]) - len(played[s]) for s in range(n)]
        self.fixed: dict[str, int] = {}
        turned = entry.get("turned_card") or (obs.get("turned_card") if current else None)
        if turned is not None:  # MANIGLIA-4P-2: the deck's last card, the dealer's
            self.fixed[turned] = len(self.pack) - 1
            seen = {c for h in holdings for c in h}
            if turned not in seen:
                holdings[self.dealer].append(turned)
                sizes[self.dealer] -= 1
        known = [c for h in holdings for c in h]
        if len(set(known)) != len(known) or not set(known) <= set(self.pack):
            raise SamplingError("the observation shows a card twice or a card not in the pack")
        unknown = [c for c in self.pack if c not in set(known)]
        duty = duty_forbidden(obs, entry["actions"], unknown) if current else {}
        slots = [
            (sizes[s], frozenset(c for c in unknown if c[1] in voids[s]) | duty.get(s, frozenset()))
            for s in range(n)
        ]
        self.holdings = holdings
        self.unknown = ConstrainedDeal(unknown, slots, [])

    def draw(self, rng: random.Random) -> tuple[list[str], list[str]]:
        hidden = self.unknown.draw(rng)
        deck: list[str | None] = [None] * len(self.pack)
        for card, position in self.fixed.items():
            deck[position] = card
        for seat, positions in enumerate(self.hands):
            cards = [c for c in self.holdings[seat] + hidden[seat] if c not in self.fixed]
            place(deck, positions, cards, rng)
        return deck, list(self.actions)  # type: ignore[return-value]


def duty_forbidden(
    obs: dict[str, Any], actions: list[list[Any]], unknown: list[str]
) -> dict[int, frozenset[str]]:
    """MANIGLIA-GEN-5 in the current deal: per seat, the unknown cards it cannot hold,
    since with any one of them in hand the card it played would not have been legal.

    A card once in a hand stays there until played (Maniglia deals every card at the
    start), and a card that makes a play illegal makes it illegal in any larger hand
    (the duties to follow, to beat and to trump only grow with the hand): so these
    cards are out of the seat's hand from that play on, exactly as its voids are.
    Needs the deal's trump and sides (``trump``, ``teams``), which the observation gives
    once play has begun; none before."""
    trump_letter, teams = obs.get("trump"), obs.get("teams")
    if not isinstance(trump_letter, str) or len(trump_letter) != 1 or not teams:
        return {}
    if trump_letter not in LATIN_SUITS:
        return {}
    trump = LATIN_SUITS.index(trump_letter)
    side = {seat: i for i, team in enumerate(teams) for seat in team}
    strict = obs.get("options", {}).get("maniglia.overtake") == "strict"
    numbers = {c: card_number(c) for c in unknown}
    forbidden: dict[int, set[str]] = {}
    trick: list[tuple[int, int]] = []  # (seat, card) of the trick in play
    for seat, label in actions:
        if not label.startswith("play "):
            continue
        card = card_number(label[5:])
        if trick:
            win_seat, winning = trick[0]
            for s, c in trick[1:]:
                if beats(c, winning, trump):
                    win_seat, winning = s, c
            led = SUIT_OF[trick[0][1]]
            opponent = side.get(seat) != side.get(win_seat)
            for name, x in numbers.items():
                hand = (1 << card) | (1 << x)
                if not playable(hand, led, winning, opponent, trump, strict) >> card & 1:
                    forbidden.setdefault(seat, set()).add(name)
        trick.append((seat, card))
        if len(trick) == obs["players"]:
            trick = []
    return {seat: frozenset(cards) for seat, cards in forbidden.items()}


def deal_plans(game: Game, obs: dict[str, Any]) -> list[ManigliaPlan]:
    """One plan per deal of ``obs`` (the last one is the current deal)."""
    history = obs["history"]
    if not history or history[-1].get("deal") != obs.get("deal"):
        raise SamplingError("observation history does not end with the current deal")
    last = len(history) - 1
    return [ManigliaPlan(game, obs, entry, i == last) for i, entry in enumerate(history)]
