"""The uniform deal of unknown cards, shared by the families' samplers
(``games.sampling``): the hidden cards dealt among the places they may be, under the
voids a seat has shown (:class:`ConstrainedDeal`), where a dealer's deal puts each
seat's hand in the deck (:func:`deal_layout`), and cards placed at random on free deck
positions (:func:`place`). ``games.sampling`` re-exports every name of it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import factorial
from typing import Any, Protocol

from games.core import Game


class SamplingError(ValueError):
    """An observation that no world can be built for (bad input or an inconsistent one)."""


class DealPlan(Protocol):
    """One deal of an observation: ``draw(rng)`` -> (deck labels, action labels)."""

    def draw(self, rng: random.Random) -> tuple[list[str], list[str]]: ...


# -- the uniform deal of unknown cards ---------------------------------------------------


class ConstrainedDeal:
    """Deal ``cards`` uniformly among hand slots (with forbidden cards) and free pools.

    ``hands`` is a list of ``(size, forbidden)`` where ``forbidden`` is a set of
    cards that slot may not receive (the suits a player showed void in);
    ``pools`` lists the sizes of slots that may receive any card (stocks,
    face-down discards). Sizes must add up to ``len(cards)``. ``draw(rng)``
    returns one list of cards per hand slot, then one per pool, every
    assignment allowed by the constraints being equally likely: cards are
    grouped by the slots that may hold them and the class sizes are split by
    exact counting (dynamic programming over the hand slots' remaining room).
    Raises :class:`SamplingError` when no assignment exists.
    """

    def __init__(
        self,
        cards: Sequence[Any],
        hands: Sequence[tuple[int, frozenset | set]],
        pools: Sequence[int],
    ) -> None:
        total = sum(size for size, _ in hands) + sum(pools)
        if total != len(cards):
            raise SamplingError(
                f"{len(cards)} unknown cards cannot fill places holding {total} cards"
            )
        if any(size < 0 for size, _ in hands) or any(size < 0 for size in pools):
            raise SamplingError("a place cannot hold a negative number of cards")
        self.sizes = tuple(size for size, _ in hands)
        self.pools = tuple(pools)
        self.pool_total = sum(pools)
        classes: dict[tuple[bool, ...], list[Any]] = {}
        for card in cards:
            allowed = tuple(card not in forbidden for _, forbidden in hands)
            classes.setdefault(allowed, []).append(card)
        self.classes = sorted(classes.items(), key=lambda item: (-sum(item[0]), len(item[1])))
        self.remaining_after = [
            sum(len(c) for _, c in self.classes[i:]) for i in range(len(self.classes) + 1)
        ]
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}
        if self.count(0, self.sizes) == 0:
            raise SamplingError("no deal of the unknown cards satisfies the shown voids")

    def _splits(self, allowed: tuple[bool, ...], m: int, room: tuple[int, ...], pool_room: int):
        """Every way to put ``m`` cards of one class into allowed hands and the pool."""
        n = len(room)
        out: list[tuple[int, ...]] = []
        split = [0] * n

        def rec(j: int, left: int) -> None:
            if j == n:
                if left <= pool_room:
                    out.append(tuple(split))
                return
            if not allowed[j]:
                rec(j + 1, left)
                return
            for x in range(min(left, room[j]) + 1):
                split[j] = x
                rec(j + 1, left - x)
            split[j] = 0

        rec(0, m)
        return out

    def _weight(self, m: int, split: tuple[int, ...]) -> int:
        w = factorial(m)
        rest = m
        for x in split:
            w //= factorial(x)
            rest -= x
        return w // factorial(rest)

    def count(self, i: int, room: tuple[int, ...]) -> int:
        """Assignments of classes ``i..`` given the hands' remaining room."""
        if i == len(self.classes):
            return 1 if not any(room) else 0
        key = (i, room)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        allowed, cards = self.classes[i]
        pool_room = self.remaining_after[i] - sum(room)
        total = 0
        if 0 <= pool_room <= self.pool_total:
            for split in self._splits(allowed, len(cards), room, pool_room):
                rest = tuple(r - x for r, x in zip(room, split, strict=True))
                total += self._weight(len(cards), split) * self.count(i + 1, rest)
        self.memo[key] = total
        return total

    def draw(self, rng: random.Random) -> list[list[Any]]:
        hands: list[list[Any]] = [[] for _ in self.sizes]
        pool: list[Any] = []
        room = self.sizes
        for i, (allowed, cards) in enumerate(self.classes):
            pool_room = self.remaining_after[i] - sum(room)
            options = []
            for split in self._splits(allowed, len(cards), room, pool_room):
                rest = tuple(r - x for r, x in zip(room, split, strict=True))
                w = self._weight(len(cards), split) * self.count(i + 1, rest)
                if w:
                    options.append((w, split, rest))
            pick = rng.randrange(sum(w for w, _, _ in options))
            for option in options:
                if pick < option[0]:
                    break
                pick -= option[0]
            _, split, rest = option
            shuffled = list(cards)
            rng.shuffle(shuffled)
            at = 0
            for j, x in enumerate(split):
                hands[j].extend(shuffled[at : at + x])
                at += x
            pool.extend(shuffled[at:])
            room = rest
        rng.shuffle(pool)
        pools = []
        at = 0
        for size in self.pools:
            pools.append(pool[at : at + size])
            at += size
        return hands + pools


def deal_layout(game: Game, dealer: int) -> tuple[list[list[int]], list[int], list[str]]:
    """Which deck positions each seat's dealt hand takes, the rest, and the pack.

    Found by dealing a probe deck through the engine (so it follows the engine's
    dealing rules), cached per (variant, options, dealer).
    """
    key = (game.canonical(), dealer)
    cached = _LAYOUTS.get(key)
    if cached is not None:
        return cached
    pack = list(game.new_game(0, dealer=dealer).record()["decks"][0])
    probe = game.new_game(0, dealer=dealer, decks=[pack])
    where = {card: i for i, card in enumerate(pack)}
    hands = []
    for seat in range(game.num_players):
        view = probe.observation(seat)
        held = list(view["hand"]) + list(view.get("out_of_play", []))
        hands.append(sorted(where[c] for c in held))
    dealt = {p for h in hands for p in h}
    rest = [p for p in range(len(pack)) if p not in dealt]
    _LAYOUTS[key] = (hands, rest, sorted(pack))
    return _LAYOUTS[key]


_LAYOUTS: dict[tuple[str, int], tuple[list[list[int]], list[int], list[str]]] = {}


def place(deck: list[str | None], positions: Sequence[int], cards: Sequence[str], rng) -> None:
    """Put ``cards`` in random order on the free deck ``positions``."""
    free = [p for p in positions if deck[p] is None]
    if len(free) != len(cards):
        raise SamplingError(f"{len(cards)} cards for {len(free)} deck positions")
    cards = list(cards)
    rng.shuffle(cards)
    for p, c in zip(free, cards, strict=True):
        deck[p] = c
