"""Sampled worlds of a Money game for ``games.sampling`` (see docs/sampling.md).

In Money nobody sees a stack, its owner included (MONEY-JO-3); everything
else is public, and every card turned face up is in the history. The only
hidden fact is where the numerals that were never turned lie in the dealt
deck. The history fixes the deck position of every turned card, and any
order of the unturned ones gives the same history (captures depend only on
turned cards, purchases only on counts), so the consistent deals are exactly
the permutations of the unturned cards over the unrevealed positions, and
sampling one uniformly is exact.

A consistent deck is found once per observation by replaying the history and
moving each turned card to the position the replay turned up; worlds then
permute the unturned cards.
"""

from __future__ import annotations

import random
from typing import Any

from games.core import Game, IllegalAction, State
from games.sampling import SamplingError


def _turns(entries: list[list[Any]]) -> list[tuple[int, str]]:
    """(index in the history, card) of every ``turn``."""
    return [(i, e[2]) for i, e in enumerate(entries) if len(e) > 2 and e[1] == "turn"]


class MoneyWorlds:
    """Worlds of one Money observation; ``deck`` is one consistent dealt deck."""

    def __init__(self, game: Game, obs: dict[str, Any], hint: list[str] | None = None) -> None:
        self.game = game
        self.dealer = obs["dealer"]
        self.entries = obs["history"]
        self.labels = [e[1] for e in self.entries]
        pack = list(game.new_game(0, dealer=self.dealer).record()["decks"][0])
        turned = {card for _, card in _turns(self.entries)}
        if not turned <= set(pack):
            raise SamplingError(f"turned cards {sorted(turned - set(pack))} are not numerals here")
        self.deck, self.base = self._consistent_deck(hint if hint else sorted(pack))
        self.unseen = [c for c in pack if c not in turned]
        self.positions = [i for i, c in enumerate(self.deck) if c not in turned]

    def _replay(self, deck: list[str]) -> tuple[State, int | None]:
        """Replay on ``deck``; return the state and the first history index that differs."""
        state = self.game.new_game(0, dealer=self.dealer, decks=[deck])
        for i, label in enumerate(self.labels):
            try:
                state.apply(label)
            except IllegalAction:
                return state, i
        return state, None

    def _consistent_deck(self, deck: list[str]) -> tuple[list[str], State]:
        deck = list(deck)
        expected = _turns(self.entries)
        for _ in range(len(deck) + 1):
            state, stop = self._replay(deck)
            got = dict(_turns(state.history_entries()))
            wrong = next(
                ((i, card) for i, card in expected if got.get(i) != card and i in got), None
            )
            if wrong is None and stop is None:
                return deck, state
            if wrong is None:
                raise SamplingError(f"history action {stop} cannot be replayed")
            i, card = wrong
            a, b = deck.index(card), deck.index(got[i])
            deck[a], deck[b] = deck[b], deck[a]
        raise SamplingError("no dealt deck explains the turned cards")  # pragma: no cover

    def sample(self, rng: random.Random) -> State:
        shuffled = list(self.unseen)
        rng.shuffle(shuffled)
        deck = list(self.deck)
        for position, card in zip(self.positions, shuffled, strict=True):
            deck[position] = card
        world = self._remap(deck)
        if world is None:
            world, stop = self._replay(deck)
            if stop is not None:  # pragma: no cover - impossible by the argument above
                raise SamplingError("a permuted deck did not replay")
        world.seed = rng.getrandbits(48)
        return world

    def _remap(self, deck: list[str]) -> State | None:
        """The base world with its unturned cards renamed (engine detail: int stacks)."""
        base = self.base
        stacks = getattr(base, "stacks", None)
        if stacks is None or not isinstance(getattr(base, "deck", None), list):
            return None
        from games.money.rules import INDEX

        rename = {INDEX[old]: INDEX[new] for old, new in zip(self.deck, deck, strict=True)}
        world = base.clone()
        world.stacks = [type(s)(rename.get(c, c) for c in s) for s in stacks]
        world.deck = [INDEX[c] for c in deck]
        return world
