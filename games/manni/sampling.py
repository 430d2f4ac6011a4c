"""Deal plans of the Manni family for ``games.sampling`` (see docs/sampling.md).

Each deal of an observation becomes a plan: the cards every seat is known to
have held (its plays, the viewer's hand and discards), the suits each seat
showed void in, and the hidden places (other hands, the Manni, face-down
discards, a taker's old hand). ``draw(rng)`` deals the unknown cards
uniformly over those places (``games.sampling.ConstrainedDeal``) and returns
the deck the engine deals them from, with the history's labels (hidden
discards filled in). Deck layouts follow MANNI-BASIC-4, HORN-5 and LAUG-3.
"""

from __future__ import annotations

import random
from typing import Any

from games.cards import FRENCH_INDEX
from games.core import DEALER_STEPS, Game
from games.manni.rules import horn_contract
from games.sampling import ConstrainedDeal, SamplingError, deal_layout, place

#: HORN-5: deck positions of the Manni in drawing order (its top is the last card dealt).
HORN_MANNI_ORDER = [13 * cycle + j for cycle in range(4) for j in range(4)][::-1]
#: LAUG-3: the Manni is the last 4 cards, its top the last card dealt.
LAUG_MANNI_ORDER = [51, 50, 49, 48]


class ManniDeal:
    """What one deal's public history (and, for the current deal, the seat) shows."""

    def __init__(
        self,
        game: Game,
        obs: dict[str, Any],
        entry: dict[str, Any],
        dealer: int,
        current: bool,
    ) -> None:
        self.game, self.dealer, self.current = game, dealer, current
        self.viewer = obs["seat"]
        self.seats, self.actions = list(entry["seats"]), list(entry["actions"])
        self.played: list[list[str]] = [[], [], []]
        self.discards: list[list[str | None]] = [[], [], []]
        self.drew: list[int] = []  # seats that completed an exchange, in order
        self.voids: list[set[str]] = [set(), set(), set()]
        self.taker: int | None = None
        trick: list[str] = []
        for seat, label in zip(self.seats, self.actions, strict=True):
            if label.startswith("play "):
                card = label[5:]
                if trick and card[1] != trick[0][1]:
                    self.voids[seat].add(trick[0][1])  # MANNI-BASIC-6: could not follow
                trick.append(card)
                self.played[seat].append(card)
                if len(trick) == 3:
                    trick = []
            elif label.startswith("discard"):
                self.discards[seat].append(label[8:] or None)
            elif label == "draw":
                self.drew.append(seat)
            elif label == "take":
                self.taker = seat
        self.hands, self.rest, self.pack = deal_layout(game, dealer)
        self.hand = list(obs["hand"]) if current else []
        self.sizes = list(obs["hand_sizes"]) if current else [0, 0, 0]
        self.extra: list[list[str]] = [[], [], []]  # cards known to be in a hidden hand

    def known_holdings(self) -> list[list[str]]:
        """Cards each seat is known to hold or have played since the exchange."""
        out = [list(p) for p in self.played]
        out[self.viewer] += self.hand
        for seat in range(3):
            out[seat] += self.extra[seat]
        return out

    def unknown_hands(self, unknown: list[str]) -> list[tuple[int, frozenset]]:
        """(size, forbidden cards) of each seat's unseen current hand (the viewer's is 0)."""
        slots = []
        for seat in range(3):
            size = 0 if seat == self.viewer else self.sizes[seat] - len(self.extra[seat])
            forbidden = frozenset(c for c in unknown if c[1] in self.voids[seat])
            slots.append((size, forbidden))
        return slots

    def labels(self, discards: list[list[str]]) -> list[str]:
        """The deal's actions with every hidden discard named (any order is consistent)."""
        queues = [list(d) for d in discards]
        out = []
        for seat, label in zip(self.seats, self.actions, strict=True):
            out.append(f"discard {queues[seat].pop(0)}" if label == "discard" else label)
        return out


def _unknown(pack: list[str], known: set[str]) -> list[str]:
    extra = known - set(pack)
    if extra:
        raise SamplingError(f"cards {sorted(extra)} are not in this pack")
    return [c for c in pack if c not in known]


class BasicPlan:
    """manni-basic: hands, the Manni and the taker's old hand (MANNI-BASIC-4, -5)."""

    def __init__(self, deal: ManniDeal, obs: dict[str, Any]) -> None:
        self.deal = d = deal
        self.holdings = d.known_holdings()
        self.old_hand = list(obs.get("out_of_play", [])) if d.current else []
        known = {c for h in self.holdings for c in h} | set(self.old_hand)
        if len(known) != sum(map(len, self.holdings)) + len(self.old_hand):
            raise SamplingError("a card is seen twice")
        unknown = _unknown(d.pack, known)
        taker_known = d.taker == d.viewer and d.current
        pool = 0 if taker_known else len(d.rest)  # the Manni (MANNI-BASIC-4)
        self.dealer = ConstrainedDeal(unknown, d.unknown_hands(unknown), [pool])

    def draw(self, rng: random.Random) -> tuple[list[str], list[str]]:
        d = self.deal
        *hidden, pool = self.dealer.draw(rng)
        holdings = [h + x for h, x in zip(self.holdings, hidden, strict=True)]
        deck: list[str | None] = [None] * len(d.pack)
        for seat in range(3):
            if seat == d.taker:
                place(deck, d.hands[seat], self.old_hand or pool, rng)
                place(deck, d.rest, holdings[seat], rng)
            else:
                place(deck, d.hands[seat], holdings[seat], rng)
        if d.taker is None:
            place(deck, d.rest, pool, rng)
        return deck, list(d.actions)  # type: ignore[return-value]


class ExchangePlan:
    """Hornafjordur and Laugavatnsmanni: discards face down, draws from the Manni top.

    ``order`` lists the exchanging seats (HORN-6: L, R, D; LAUG-8: the declarer)
    and ``manni`` the Manni's deck positions in drawing order. A seat's dealt
    hand = what it holds or played - what it drew + what it discarded; which of
    its cards were drawn is not in the observation, so it is drawn at random.
    """

    def __init__(
        self,
        deal: ManniDeal,
        manni: list[int],
        order: list[int],
        fixed: dict[str, int] | None = None,
        skat: bool = False,
        forced_discards: dict[str, int] | None = None,
    ) -> None:
        self.deal = d = deal
        self.manni, self.order, self.skat = manni, order, skat
        self.fixed = fixed or {}  # card -> deck position known to the seat (HORN-4)
        self.holdings = d.known_holdings()
        self.known_discards = [[c for c in ds if c is not None] for ds in d.discards]
        self.hidden_discards = [sum(c is None for c in ds) for ds in d.discards]
        for card, seat in (forced_discards or {}).items():
            self.known_discards[seat].append(card)
            self.hidden_discards[seat] -= 1
        known = {c for h in self.holdings for c in h} | {c for k in self.known_discards for c in k}
        unknown = _unknown(d.pack, known)
        self.drawn = [0, 0, 0]
        for seat in d.drew:
            self.drawn[seat] = 4 if skat else len(d.discards[seat])
        if skat:  # LAUG-8 skat: the declarer took the whole Manni before discarding
            for seat in order:
                if d.discards[seat] or seat in d.drew:
                    self.drawn[seat] = 4
        left = len(manni) - sum(self.drawn)
        pools = [*self.hidden_discards, left]
        self.deal_unknown = ConstrainedDeal(unknown, d.unknown_hands(unknown), pools)

    def draw(self, rng: random.Random) -> tuple[list[str], list[str]]:
        d = self.deal
        parts = self.deal_unknown.draw(rng)
        hidden, discards, stock = parts[:3], parts[3:6], parts[6]
        deck: list[str | None] = [None] * len(d.pack)
        for card, position in self.fixed.items():
            deck[position] = card
        fixed = set(self.fixed)
        drawn_order: list[str] = []
        named = [self.known_discards[s] + discards[s] for s in range(3)]
        for seat in range(3):
            holding = self.holdings[seat] + hidden[seat]
            k = self.drawn[seat]
            pool = holding + named[seat] if self.skat else holding
            candidates = [c for c in pool if c not in fixed]
            if k > len(candidates):
                raise SamplingError(f"seat {seat} cannot have drawn {k} cards")
            drawn = rng.sample(candidates, k)
            taken = set(drawn)
            if seat in self.order:
                drawn_order.append((self.order.index(seat), drawn))  # type: ignore[arg-type]
            dealt = [c for c in holding + named[seat] if c not in taken]
            if not self.skat:
                dealt = [c for c in holding if c not in taken] + named[seat]
            place(deck, d.hands[seat], [c for c in dealt if c not in fixed], rng)
        manni: list[str] = []
        for _, drawn in sorted(drawn_order, key=lambda item: item[0]):
            manni += drawn
        manni += stock
        for position, card in zip(self.manni, manni, strict=True):
            deck[position] = card
        return deck, d.labels(named)  # type: ignore[return-value]


def _horn_plan(game: Game, obs: dict[str, Any], deal: ManniDeal) -> ExchangePlan:
    left = (deal.dealer + 1) % 3
    order = [left, (left + 1) % 3, deal.dealer]
    fixed: dict[str, int] = {}
    forced: dict[str, int] = {}
    if deal.current:
        card = obs["contract_card"]
        fixed[card] = 51  # HORN-4: public, the deck's last card, dealt to the dealer
        seen = {c for h in deal.known_holdings() for c in h}
        seen |= {c for ds in deal.discards for c in ds if c is not None}
        if card not in seen:  # the dealer holds it unseen, or discarded it face down
            if obs.get("contract_card_holder") == deal.dealer:
                deal.extra[deal.dealer].append(card)
            else:
                forced[card] = deal.dealer
    plan = ExchangePlan(deal, HORN_MANNI_ORDER, order, fixed, forced_discards=forced)
    return _with_contract_card(plan, game.options["horn.cut_table"])


def _with_contract_card(plan: ExchangePlan, table: str) -> ExchangePlan:
    """HORN-4/-5: the last deck card is the dealer's; for an earlier deal it is not
    in the observation, so the world builder picks a contract class (what the
    tallies and the play allow) and a dealt card of the dealer's in that class."""
    if plan.fixed:
        return plan
    inner = plan.draw

    def draw_class(rng: random.Random, cls: tuple[str, int]) -> tuple | None:
        deck, labels = inner(rng)
        positions = [p for p in plan.deal.hands[plan.deal.dealer] if _class(deck[p], table) == cls]
        if not positions:
            return None
        swap = rng.choice(positions)
        deck[51], deck[swap] = deck[swap], deck[51]
        return deck, labels

    plan.classes = lambda: sorted({_class(c, table) for c in plan.deal.pack})  # type: ignore
    plan.draw_class = draw_class  # type: ignore[attr-defined]
    return plan


def _class(label: str, table: str) -> tuple[str, int]:
    return horn_contract(FRENCH_INDEX[label], table)


def _laug_plan(game: Game, obs: dict[str, Any], deal: ManniDeal) -> ExchangePlan:
    skat = game.options["laug.exchange"] == "skat"
    declarer = None
    for seat in range(3):
        if deal.discards[seat] or seat in deal.drew:
            declarer = seat
    if declarer is None and deal.current and obs.get("declarer") is not None:
        declarer = obs["declarer"]
        if skat and obs["phase"] == "exchange":  # LAUG-8 skat: the Manni is in his hand
            deal.drew.append(declarer)
    order = [] if declarer is None else [declarer]
    return ExchangePlan(deal, LAUG_MANNI_ORDER, order, skat=skat)


def deal_plans(game: Game, obs: dict[str, Any]) -> list[Any]:
    """One plan per deal of ``obs`` (the last one is the current deal)."""
    history = obs["history"]
    if not history or history[-1].get("deal") != obs.get("deal"):
        raise SamplingError("observation history does not end with the current deal")
    count = len(history)
    plans: list[Any] = []
    step = DEALER_STEPS[game.variant.dealer_rotation]  # COMMON-2: the deal passes left
    for i, entry in enumerate(history):
        dealer = (obs["dealer"] - step * (count - 1 - i)) % 3
        deal = ManniDeal(game, obs, entry, dealer, current=i == count - 1)
        if game.id == "manni-basic":
            plans.append(BasicPlan(deal, obs))
        elif game.id == "manni-hornafjordur":
            plans.append(_horn_plan(game, obs, deal))
        else:
            plans.append(_laug_plan(game, obs, deal))
    return plans
