"""Determinised search over sampled worlds (perfect-information Monte Carlo).

The core of the built-in ``ismcts`` player and of the sandboxed example bot
``bots/examples/python-search``: pure Python on the public engine API
(``clone``, ``apply``, ``legal_ids``, ``apply_id``, ``scores``, ``ranking``)
and ``games.sampling``, no framework.

``choose(sample, seat, legal, rng, iterations=...)`` draws worlds consistent
with the seat's view (``sample()`` returns one), tries every legal label in
each world and plays the world out with a fast random playout, and returns
the label with the best mean value. Every label is tried in the same worlds
with the same playout randomness (common random numbers), so differences
between labels are not drowned by the luck of the deal. A playout runs to
the end of the current deal in the trick games (the deal's score is what a
decision changes most) and for a fixed number of actions in Money (a game
of thousands of turns), then values the position for the seat: its score
minus the mean of the other seats' (its team's against the other team), a
finished game adding a bonus for its rank. See docs/search.md.

With an iteration budget the choice is a pure function of the inputs and the
``rng`` state; ``time_ms`` (optional) also stops early on the clock.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.cards import FRENCH_INDEX, FRENCH_SUITS, LATIN_INDEX, LATIN_SUITS
from games.core import State
from games.maniglia.rules import RANK_POINTS
from games.tricks import FRENCH_LAYOUT, LATIN_LAYOUT

#: Actions a Money playout looks ahead before valuing the position.
MONEY_HORIZON = 40
#: Share of a Money playout's decisions that just turn or capture (spending is rare).
MONEY_PLAIN = 0.8
#: Safety cap on a playout's length (a trick deal is far shorter).
MAX_PLAYOUT = 3000
#: Value of finishing first rather than last, in score points.
RANK_BONUS = 20.0
#: Weight of a Maniglia card point taken in a playout, in score points.
POINT_WEIGHT = 0.5


@dataclass
class SearchResult:
    """The chosen label, each label's mean value and the work done."""

    label: str
    values: dict[str, float] = field(default_factory=dict)
    worlds: int = 0
    playouts: int = 0
    #: Per label, its value in each world searched (same worlds for every label).
    samples: dict[str, list[float]] = field(default_factory=dict)

    def better_than(self, other: str, z: float = 2.0) -> bool:
        """Whether ``label`` beats ``other`` by more than ``z`` standard errors of the
        paired per-world differences (False when they are the same label)."""
        if other == self.label or other not in self.samples:
            return other != self.label
        diffs = [a - b for a, b in zip(self.samples[self.label], self.samples[other], strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        if n < 2:
            return mean > 0
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean > z * (var / n) ** 0.5


def check_budget(iterations: object, time_ms: object = None) -> None:
    """``ValueError`` naming a budget that cannot be searched with."""
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
    if time_ms is not None and (
        isinstance(time_ms, bool) or not isinstance(time_ms, int | float) or time_ms <= 0
    ):
        raise ValueError(f"time_ms must be a positive number or None, got {time_ms!r}")


def value_of(state: State, seat: int, teams: Sequence[Sequence[int]] | None = None) -> float:
    """The seat's score minus the mean of its opponents' (plus a rank bonus once over)."""
    scores = state.scores()
    n = len(scores)
    if teams:
        mine = next(t for t in teams if seat in t)
        others = [s for s in range(n) if s not in mine]
    else:
        others = [s for s in range(n) if s != seat]
    value = scores[seat] - sum(scores[s] for s in others) / len(others)
    if state.is_over():
        ranks = state.ranking()
        value += RANK_BONUS * sum(
            (ranks[s] > ranks[seat]) - (ranks[s] < ranks[seat]) for s in others
        )
    return float(value)


class Playout:
    """The playout policy of one decision: informed card play, cautious bidding.

    Card plays follow a simple trick-taking rule (COMMON-5) instead of pure
    chance: follow with the cheapest winning card when an opponent is
    winning, the lowest card otherwise; in a Nullo deal (HORN-4, LAUG-4) stay
    under the winning card when possible; in Maniglia the last player to a
    trick its side wins loads the most points on it. ``EPSILON`` of the
    decisions are random so the worlds are explored. Other decisions (bids,
    trump calls, exchanges, great calls) go to ``other`` (a rule given the
    world's observation for the seat to move and the legal labels) but for
    ``EPSILON`` of them; without ``other`` they take the last legal action
    (``pass`` / ``draw``) with probability ``PASSIVE`` and a random one
    otherwise. A playout that starts before the cards are played takes the
    trump, contract and sides from the world once its play begins. Money
    purchases are mostly the first legal one. The trick in progress is
    tracked from the observation and the actions applied, card ids being the
    engines' play ids (``games.cards``).
    """

    EPSILON = 0.1
    PASSIVE = 0.6

    def __init__(
        self,
        game: Any,
        observation: dict[str, Any],
        *,
        other: Callable[[dict[str, Any], list[str]], str] | None = None,
    ) -> None:
        family = game.variant.family
        self.cards = None
        self.last_taken = None
        self.last_team = None
        if family == "money":
            return
        self.game = game
        self.n = game.num_players
        if game.variant.pack == "latin":
            layout, index, self.suits = LATIN_LAYOUT, LATIN_INDEX, LATIN_SUITS
        else:
            layout, index, self.suits = FRENCH_LAYOUT, FRENCH_INDEX, FRENCH_SUITS
        self.layout = layout
        self.cards = len(layout.suits)
        self.maniglia = family == "maniglia"
        #: A rule for the playouts' other decisions (bids, trump, exchanges): called
        #: with the world's observation for the seat to move and the legal labels.
        self.other = other
        self.root = observation
        self.in_play = observation.get("phase") == "play"
        self._configure(observation)
        trick = observation.get("trick") or []
        self.trick = [(seat, index[card]) for seat, card in trick]
        # Maniglia counts card points (MANIGLIA-GEN-6): the playout keeps the tally
        # so a deal is valued by its points, not only by the contract's outcome.
        self.points = None
        if self.maniglia:
            self.points = [RANK_POINTS[rank] for rank in layout.ranks]
            won = observation.get("card_points") or [0] * self.n
            tricks = observation.get("tricks_won") or [0] * self.n
            self.taken = [won[s] + tricks[s] for s in range(self.n)]

    def _configure(self, observation: dict[str, Any]) -> None:
        """Trump, Nullo ranking and sides as an observation shows them.

        A playout that starts before the cards are played (a bid, a trump call,
        an exchange) configures again from the world once its play begins, so
        its tricks are played with the trump and sides the deal came to.
        """
        game, layout = self.game, self.layout
        trump = observation.get("trump")
        self.trump = self.suits.index(trump) if trump in tuple(self.suits) else -1
        contract = observation.get("contract")
        self.avoid = contract == "nullo"
        ace_low = self.avoid and (
            game.id == "manni-hornafjordur" or game.options.get("laug.nullo_ace_low") is True
        )
        self.strength = list(layout.ranks)
        if ace_low:
            for suit in range(4):
                self.strength[layout.card(suit, 12)] = -1
        self.team = list(range(self.n))
        if game.variant.teams:  # each seat's team number
            self.team = [
                t for s in range(self.n) for t, team in enumerate(game.variant.teams) if s in team
            ]
        elif self.maniglia and observation.get("declarer") is not None:
            d = observation["declarer"]
            self.team = [0 if s == d else 1 for s in range(self.n)]

    def shaping(self, seat: int) -> float:
        """Maniglia: the seat's side's card points in the deal's playout minus the others'."""
        taken, team = self.last_taken, self.last_team
        if taken is None or team is None:
            return 0.0
        mine = sum(t for s, t in enumerate(taken) if team[s] == team[seat])
        return POINT_WEIGHT * (2 * mine - sum(taken)) / len(taken)

    def _winner(self, trick: list[tuple[int, int]]) -> tuple[int, int]:
        # A card beats the winning one when it is stronger in its suit, or a trump on
        # another suit (COMMON-5); the test is written out here and in _card, the
        # playouts' inner loop.
        suits, strength, trump = self.layout.suits, self.strength, self.trump
        seat, win = trick[0]
        for s, c in trick[1:]:
            suit, wsuit = suits[c], suits[win]
            if (strength[c] > strength[win]) if suit == wsuit else suit == trump:
                seat, win = s, c
        return seat, win

    def _cost(self, card: int) -> tuple[bool, int]:
        return (self.layout.suits[card] == self.trump, self.strength[card])

    def _card(self, seat: int, ids: list[int], trick: list, rng: random.Random) -> int:
        if not trick or rng.random() < self.EPSILON:
            return ids[rng.randrange(len(ids))]
        win_seat, win = self._winner(trick)
        suits, strength, trump = self.layout.suits, self.strength, self.trump
        wsuit, top = suits[win], strength[win]
        beating: list[int] = []
        others: list[int] = []
        for c in ids:  # beats the winning card? (as in _winner)
            suit = suits[c]
            if (strength[c] > top) if suit == wsuit else suit == trump:
                beating.append(c)
            else:
                others.append(c)
        cost = self._cost
        if self.avoid:
            if others:
                return max(others, key=strength.__getitem__)
            return min(beating, key=cost)
        if self.team[win_seat] != self.team[seat]:
            if beating:
                return min(beating, key=cost)
        elif self.points is not None and len(trick) == self.n - 1 and others:
            # Maniglia, last to a trick the side wins: load the most points on it
            # (MANIGLIA-GEN-2), keeping trumps.
            points, layout = self.points, self.layout
            return max(
                others, key=lambda c: (layout.suits[c] != trump, points[c], -layout.ranks[c])
            )
        return min(others or ids, key=cost)

    def run(self, state: State, first: str, rng: random.Random, horizon: int | None) -> State:
        """Apply the label ``first`` then play on (to the deal's end, or ``horizon`` actions)."""
        self.last_taken = self.last_team = None
        if self.cards is None:
            state.apply(first)
            return _money_playout(state, rng, horizon)
        in_play = self.in_play
        if not in_play:
            self._configure(self.root)
        trick = list(self.trick)
        deal = getattr(state, "deal", None)
        action = state.LABEL_IDS[first]
        cards, n = self.cards, self.n
        points = self.points
        taken = None if points is None else list(self.taken)
        self.last_taken = taken
        other = self.other
        for _ in range(MAX_PLAYOUT):
            seat = state.current_player()
            state.apply_id(action)
            if action < cards:
                trick.append((seat, action))
                if len(trick) == n:
                    if taken is not None:
                        taken[self._winner(trick)[0]] += 1 + sum(points[c] for _, c in trick)
                    trick = []
            if state.is_over() or getattr(state, "deal", None) != deal:
                break
            ids = state.legal_ids()
            if len(ids) == 1:
                action = ids[0]
            elif ids[0] < cards:
                if not in_play:
                    self._configure(state.observation(state.current_player()))
                    in_play = True
                action = self._card(state.current_player(), ids, trick, rng)
            elif other is not None and rng.random() >= self.EPSILON:
                labels = state.legal_actions()
                label = other(state.observation(state.current_player()), labels)
                action = state.LABEL_IDS[label if label in labels else labels[0]]
            elif rng.random() < self.PASSIVE:
                action = ids[-1]
            else:
                action = ids[rng.randrange(len(ids))]
        self.last_team = list(self.team)
        return state


def _money_playout(state: State, rng: random.Random, horizon: int | None) -> State:
    """Money: the first legal action (``turn``, ``capture``: ACTION-7 order) with
    probability ``MONEY_PLAIN``, else a random one, for ``horizon`` actions."""
    randrange, chance = rng.randrange, rng.random
    for _ in range(horizon if horizon is not None else MAX_PLAYOUT):
        if state.is_over():
            break
        ids = state.legal_ids()
        if len(ids) == 1 or chance() < MONEY_PLAIN:
            state.apply_id(ids[0])
        else:
            state.apply_id(ids[randrange(len(ids))])
    return state


def choose(
    sample: Callable[[], State],
    seat: int,
    legal: Sequence[str],
    rng: random.Random,
    *,
    policy: Playout | None = None,
    iterations: int = 400,
    time_ms: float | None = None,
    teams: Sequence[Sequence[int]] | None = None,
    money_horizon: int = MONEY_HORIZON,
) -> SearchResult:
    """The best of ``legal`` for ``seat`` over worlds drawn by ``sample()``.

    ``iterations`` bounds the playouts (each world costs one per legal label);
    ``money_horizon`` is the length of a Money playout, in actions;
    ``time_ms`` additionally stops after that much wall time (at least one
    world is always searched). Raises ``ValueError`` for an empty ``legal`` or
    a budget that is not positive.
    """
    check_budget(iterations, time_ms)
    legal = list(legal)
    if not legal:
        raise ValueError("no legal labels to choose from")
    result = SearchResult(legal[0], {label: 0.0 for label in legal})
    if len(legal) == 1:
        return result
    deadline = None if time_ms is None else time.perf_counter() + time_ms / 1000
    worlds = max(1, iterations // len(legal))
    samples: dict[str, list[float]] = {label: [] for label in legal}
    for _ in range(worlds):
        world = sample()
        horizon = None if hasattr(world, "deal") else money_horizon
        playout_seed = rng.getrandbits(64)
        if policy is None:
            policy = Playout(world.game, world.observation(seat))
        for label in legal:
            child = world.clone()
            policy.run(child, label, random.Random(playout_seed), horizon)
            samples[label].append(value_of(child, seat, teams) + policy.shaping(seat))
            result.playouts += 1
        result.worlds += 1
        if deadline is not None and time.perf_counter() >= deadline:
            break
    result.samples = samples
    result.values = {label: sum(samples[label]) / result.worlds for label in legal}
    best = max(result.values.values())
    result.label = next(label for label in legal if result.values[label] == best)
    return result
