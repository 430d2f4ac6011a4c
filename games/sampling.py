"""Sampled worlds: full states consistent with what one seat has seen.

``sample_world(game, observation, rng)`` returns a :class:`~games.core.State`
whose ``observation(seat)`` equals the given observation: the seat's own
cards, the public history, the counts it saw, the voids shown by failures to
follow suit and the cards known to be out of play all agree, and the hidden
cards (other hands, stocks, face-down discards, unturned Money stacks) are
dealt at random among the places they may be. A search bot samples many
worlds per decision and plays each one out with the fast path
(``legal_ids`` / ``apply_id`` / ``clone``).

A world is built through the public engine API only: one deck per deal
(``Game.new_game(..., decks=...)``) and the history's labels, hidden
discards filled in with the sampled cards, applied in order. Each family
module (``games/<family>/sampling.py``) turns an observation into *deal
plans* (what is known and what is free in each deal) and a plan into a deck
and labels; this module holds the shared parts: the exact uniform deal of
unknown cards under void constraints (``games.hidden_cards``, whose names are
importable from here) and the world builder. Where sampling
is uniform and where it is not is written in ``docs/sampling.md``.

:class:`WorldSampler` does the analysis of one observation once and then
samples many worlds from it cheaply (earlier deals are fixed once per
sampler: they do not change the future, only the running scores).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.core import DEALER_STEPS, Game, IllegalAction, State
from games.hidden_cards import (
    ConstrainedDeal,
    DealPlan,
    SamplingError,
    deal_layout,
    place,
)

#: Attempts per world before giving up: a rejected world is one whose replay met
#: an action the sampled cards make illegal (a constraint not modelled exactly).
MAX_ATTEMPTS = 2000
#: Attempts per earlier deal and contract class while fixing the earlier deals.
PER_DEAL_ATTEMPTS = 6
#: Rounds of fixing the earlier deals before giving up; each round draws again
#: only the contract classes not found legal yet (some are legal in few draws).
PREFIX_ROUNDS = 40


# -- worlds -----------------------------------------------------------------------------


def check_observation(game: Game, observation: Any) -> int:
    """Validate ``observation`` for ``game``; return its seat. Raises ``ValueError``."""
    if not isinstance(game, Game):
        raise ValueError(f"game must be a games.Game, got {type(game).__name__}")
    if not isinstance(observation, dict):
        raise ValueError(f"an observation must be a dict, got {type(observation).__name__}")
    variant = observation.get("variant")
    if variant != game.id:
        raise ValueError(f"observation is of variant {variant!r}, not of {game.id!r}")
    seat = observation.get("seat")
    n = game.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"observation seat must be in 0..{n - 1}, got {seat!r}")
    if observation.get("phase") == "over" or observation.get("current_player") is None:
        raise ValueError("the game is over: there is no hidden state left to sample")
    if "history" not in observation:
        raise ValueError("observation lacks its history")
    return seat


class WorldSampler:
    """Analyse one observation once; ``sample(rng)`` then returns fresh worlds.

    Raises ``ValueError`` (a :class:`SamplingError` for an inconsistent
    observation) naming the problem.
    """

    def __init__(
        self, game: Game, observation: dict[str, Any], previous: WorldSampler | None = None
    ) -> None:
        self.seat = check_observation(game, observation)
        self.game = game
        self.observation = observation
        worlds = game.variant.worlds
        if worlds is None:
            raise ValueError(f"no world sampling for variant {game.id} (Variant.worlds)")
        same_game = (
            previous is not None
            and previous.game.canonical() == game.canonical()
            and previous.seat == self.seat
        )
        reusable = previous._worlds if same_game else None  # type: ignore[union-attr]
        self._worlds: Any = worlds(game, observation, reusable)

    def hint(self) -> Any:
        """What a later sampler of the same game may reuse (Money: a consistent deck)."""
        return getattr(self._worlds, "deck", None)

    def sample(self, rng: random.Random) -> State:
        """One world, drawn with ``rng`` (a ``random.Random``)."""
        if not isinstance(rng, random.Random):
            raise ValueError(f"rng must be a random.Random, got {type(rng).__name__}")
        return self._worlds.sample(rng)


class TrickWorlds:
    """Worlds of a trick-taking game: earlier deals fixed once, the current one resampled.

    The state just before the last action of the previous deal is kept; each
    world clones it, hands it the current deal's deck and applies the rest.
    Handing over the deck needs one engine detail (``given_decks``); without
    it every world is replayed from the start.
    """

    def __init__(self, game: Game, observation: dict[str, Any], plans: list[DealPlan]) -> None:
        self.game = game
        self.observation = observation
        self.plans = plans
        self.checked = False
        self.first_dealer = first_dealer(game, observation)
        self.prefix: State | None = None
        self.prefix_decks: list[list[str]] = []
        self.prefix_actions: list[str] = []
        self.tail: list[str] = []  # the previous deal's last action
        #: per earlier deal, contract class -> (tally, (deck, labels)) found legal so far
        self.found: list[dict[Any, tuple]] = []

    def reuse(self, other: TrickWorlds) -> None:
        """Keep ``other``'s earlier deals when this observation has the same ones
        (a later decision of the same deal): they need not be searched again."""
        earlier = self.observation["history"][:-1]
        if other.prefix is None or other.observation["history"][:-1] != earlier:
            return
        self.prefix, self.prefix_decks = other.prefix, other.prefix_decks
        self.prefix_actions, self.tail = other.prefix_actions, other.tail

    def _replay(self, decks: list[list[str]], actions: list[str]) -> State | None:
        state = self.game.new_game(0, dealer=self.first_dealer, decks=decks)
        try:
            for label in actions:
                state.apply(label)
        except IllegalAction:
            return None
        return state

    def _legal_draw(self, plan: DealPlan, rng: random.Random, cls: Any = None) -> tuple | None:
        """A (deck, labels) of ``plan`` whose deal replays legally on its own, or None.

        An earlier deal's cards are all known (played), so legality depends only
        on what the observation leaves open there (an unseen contract card).
        """
        dealer = plan.deal.dealer if hasattr(plan, "deal") else plan.dealer  # type: ignore
        for _ in range(PER_DEAL_ATTEMPTS):
            drawn = plan.draw(rng) if cls is None else plan.draw_class(rng, cls)  # type: ignore
            if drawn is None:
                continue
            deck, labels = drawn
            state = self.game.new_game(0, dealer=dealer, decks=[deck])
            try:
                for label in labels:
                    state.apply(label)
            except IllegalAction:
                continue
            return deck, labels, state
        return None

    def _build_prefix(self, rng: random.Random) -> None:
        """Fix the earlier deals: for each, a deck whose deal replays legally.

        Where a plan has contract classes (a Hornafjordur contract card of an
        earlier deal is not in the observation) every legal class is tried and
        its tallies (HORN-8) read; a choice of classes is then drawn among those
        whose tallies add up to what the seat saw, no earlier deal ending the
        game (HORN-9).
        """
        plans = self.plans[:-1]
        if not any(hasattr(plan, "classes") for plan in plans):
            self._build_prefix_in_order(plans, rng)
            return
        if len(self.found) != len(plans):
            self.found = [{} for _ in plans]
        for _ in range(PREFIX_ROUNDS):
            for plan, found in zip(plans, self.found, strict=True):
                for cls in plan.classes() if hasattr(plan, "classes") else [None]:
                    if cls in found:
                        continue
                    drawn = self._legal_draw(plan, rng, cls)
                    if drawn is not None:
                        deck, labels, state = drawn
                        found[cls] = (self._tally(state), (deck, labels))
            options = [list(found.values()) for found in self.found]
            if all(options):
                try:
                    chosen = self._choose_tallies(options, rng)
                except SamplingError:
                    continue  # a class the tallies need is still missing: draw again
                break
        else:
            if not all(options):
                raise SamplingError("no consistent deal found for an earlier deal")
            raise SamplingError("no choice of earlier contracts gives the tallies seen")
        decks = [deck for deck, _ in chosen]
        actions = [label for _, labels in chosen for label in labels]
        state = self.game.new_game(0, dealer=self.first_dealer, decks=decks)
        for label in actions[:-1]:
            state.apply(label)
        self.prefix, self.prefix_decks = state, decks
        self.prefix_actions, self.tail = actions[:-1], actions[-1:]

    def _build_prefix_in_order(self, plans: list, rng: random.Random) -> None:
        """Earlier deals whose rules depend on what came before (deal numbers, used
        contracts): each deck is checked by replaying the game up to its deal."""
        decks: list[list[str]] = []
        actions: list[str] = []
        for plan in plans:
            for _ in range(PER_DEAL_ATTEMPTS):
                deck, labels = plan.draw(rng)
                if self._replay([*decks, deck], [*actions, *labels]) is not None:
                    break
            else:
                raise SamplingError("no consistent deal found for an earlier deal")
            decks.append(deck)
            actions += labels
        state = self._replay(decks, actions[:-1])
        assert state is not None
        self.prefix, self.prefix_decks = state, decks
        self.prefix_actions, self.tail = actions[:-1], actions[-1:]

    def _tally(self, state: State) -> tuple:
        if "plus" not in self.observation:
            return ()
        seen = state.observation(0)
        return (*seen["plus"], *seen["minus"])

    def _choose_tallies(self, options: list, rng: random.Random) -> list:
        """One option per deal whose tallies sum to the observation's (dynamic programming)."""
        obs = self.observation
        if "plus" not in obs:
            return [rng.choice(found)[1] for found in options]
        target = (*obs["plus"], *obs["minus"])
        n = self.game.num_players
        reach: list[dict[tuple, list]] = [{(0,) * len(target): []}]
        for i, found in enumerate(options):
            nxt: dict[tuple, list] = {}
            for total, _ in reach[-1].items():
                for k, (tally, _) in enumerate(found):
                    new = tuple(a + b for a, b in zip(total, tally, strict=True))
                    if any(a > b for a, b in zip(new, target, strict=True)):
                        continue
                    if i < len(options) - 1 and max(new[:n]) >= 10:  # HORN-9: it went on
                        continue
                    nxt.setdefault(new, []).append((total, k))
            reach.append(nxt)
        if target not in reach[-1]:
            raise SamplingError("no choice of earlier contracts gives the tallies seen")
        picks = []
        total = target
        for i in range(len(options), 0, -1):
            total, k = rng.choice(reach[i][total])
            picks.append(options[i - 1][k][1])
        return picks[::-1]

    def sample(self, rng: random.Random) -> State:
        for _ in range(MAX_ATTEMPTS // 10):
            if len(self.plans) > 1 and self.prefix is None:
                self._build_prefix(rng)
            world = self._sample_current(rng)
            if self.checked:
                return world
            # Once per sampler: the earlier deals must give the scores the seat saw
            # (a Hornafjordur contract card of an earlier deal is not in the history).
            if world.observation(self.observation["seat"]) == self.observation:
                self.checked = True
                return world
            self.prefix, self.found = None, []
        raise SamplingError("no world reproduces the observation")

    def _sample_current(self, rng: random.Random) -> State:
        for _ in range(MAX_ATTEMPTS):
            deck, labels = self.plans[-1].draw(rng)
            world = self._start(deck, rng.getrandbits(48))
            try:
                for label in self.tail + labels:
                    world.apply(label)
            except IllegalAction:
                continue
            return world
        raise SamplingError("no consistent deal found for the current deal")

    def _start(self, deck: list[str], seed: int) -> State:
        prefix = self.prefix
        if prefix is not None and isinstance(getattr(prefix, "given_decks", None), list):
            world = prefix.clone()
            world.given_decks = [*prefix.given_decks, _card_numbers(world, deck)]
            world.seed = seed  # later deals come from the world's own seed
            return world
        world = self.game.new_game(seed, dealer=self.first_dealer, decks=[*self.prefix_decks, deck])
        for label in self.prefix_actions:
            world.apply(label)
        return world


def _card_numbers(state: State, deck: list[str]) -> list[int]:
    from games.cards import FRENCH_INDEX, LATIN_INDEX

    index = LATIN_INDEX if state.game.variant.pack == "latin" else FRENCH_INDEX
    return [index[c] for c in deck]


def first_dealer(game: Game, observation: dict[str, Any]) -> int:
    """The game's first dealer, from the current one and the deals since (COMMON-2)."""
    history = observation["history"]
    if game.variant.family == "maniglia":  # its history names every deal's dealer
        return history[0]["dealer"]
    rotation = game.variant.dealer_rotation
    if rotation == "alternate":  # one deal per game: its dealer is the first
        return observation["dealer"]
    deals = observation["deal"]
    step = DEALER_STEPS[rotation]  # the seat step from one deal's dealer to the next
    return (observation["dealer"] - step * (deals - 1)) % game.num_players


def sample_world(game: Game, observation: dict[str, Any], rng: random.Random) -> State:
    """A full state consistent with ``observation`` (of ``game``), drawn with ``rng``.

    Raises ``ValueError`` for an observation of another variant, a seat out of
    range, a finished game or an observation no deal can explain.
    """
    return WorldSampler(game, observation).sample(rng)


def state_sample_world(self: State, seat: int, rng: random.Random) -> State:
    """``State.sample_world(seat, rng)``: a world built only from ``observation(seat)``."""
    return sample_world(self.game, self.observation(seat), rng)


# -- helpers for the family modules -------------------------------------------------------


def trick_worlds(
    deal_plans: Callable[[Game, dict[str, Any]], list[DealPlan]],
) -> Callable[[Game, dict[str, Any], Any], TrickWorlds]:
    """The ``Variant.worlds`` of a trick-taking family whose ``deal_plans(game,
    observation)`` gives one plan per deal: :class:`TrickWorlds` of those plans, keeping
    the earlier deals of the previous sampler of the same game when they still hold."""

    def worlds(game: Game, observation: dict[str, Any], previous: Any) -> TrickWorlds:
        built = TrickWorlds(game, observation, deal_plans(game, observation))
        if isinstance(previous, TrickWorlds):
            built.reuse(previous)
        return built

    return worlds


__all__ = [
    "MAX_ATTEMPTS",
    "PER_DEAL_ATTEMPTS",
    "PREFIX_ROUNDS",
    "ConstrainedDeal",
    "DealPlan",
    "SamplingError",
    "TrickWorlds",
    "WorldSampler",
    "check_observation",
    "deal_layout",
    "first_dealer",
    "place",
    "sample_world",
    "state_sample_world",
    "trick_worlds",
]
