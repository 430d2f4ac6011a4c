"""Deal plans of the Maniglia family for ``games.sampling`` (see docs/sampling.md).

Maniglia has no stock: every card is dealt (MANIGLIA-GEN-4) and every card
of a played deal is played face up. A deal's plan knows each seat's plays,
the viewer's hand, the suits each seat showed void in and, in the
partnership game, the dealer's turned-up card (MANIGLIA-4P-2); the other
hands are dealt uniformly under the voids. The duty to beat the winning
card (MANIGLIA-GEN-5) says more (no higher card of the suit, no trump); the
world builder rejects deals that break it when the history is replayed, so
the accepted worlds stay uniform over the consistent deals.
"""

from __future__ import annotations

import random
from typing import Any

from games.core import Game
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
        slots = [(sizes[s], frozenset(c for c in unknown if c[1] in voids[s])) for s in range(n)]
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


def deal_plans(game: Game, obs: dict[str, Any]) -> list[ManigliaPlan]:
    """One plan per deal of ``obs`` (the last one is the current deal)."""
    history = obs["history"]
    if not history or history[-1].get("deal") != obs.get("deal"):
        raise SamplingError("observation history does not end with the current deal")
    last = len(history) - 1
    return [ManigliaPlan(game, obs, entry, i == last) for i, entry in enumerate(history)]
