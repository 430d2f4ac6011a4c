"""Tracked game state for bots: the engine follows the game from the messages.

A :class:`GameTracker` is built from the ``hello`` (variant, options, seat)
and fed every observation the bot receives. It then answers what a
thinking bot asks: the game and its rules (``tracker.game``), the latest
public view (``tracker.observation``), the cards nobody has shown
(``unseen_cards``), the legal labels of the player to move where they are
public or in a sampled world (``legal``), and full worlds consistent with
everything the seat has seen (``sample(rng)``, see ``games.sampling``)::

    from bots.sdk import TrackingBot, run

    class Searcher(TrackingBot):
        def decide(self, tracker, legal):
            world = tracker.sample(self.rng)
            ...

Standard library and ``games`` only, so it runs inside the sandbox.
"""

from __future__ import annotations

import random
from typing import Any

import games
from bots.sdk.bot import Bot
from games.sampling import WorldSampler


class TrackingError(ValueError):
    """A message the tracker cannot follow (out of order, another variant or seat)."""


class GameTracker:
    """One seat's view of its games, rebuilt from ``hello`` and the observations."""

    def __init__(self, hello: dict[str, Any]) -> None:
        if not isinstance(hello, dict) or hello.get("type", "hello") != "hello":
            raise TrackingError("a tracker starts from the hello message")
        for key in ("variant", "seat"):
            if key not in hello:
                raise TrackingError(f"hello lacks {key!r}")
        try:
            self.game = games.load(hello["variant"], **dict(hello.get("options") or {}))
        except ValueError as exc:
            raise TrackingError(f"hello names a game the engine cannot load: {exc}") from None
        seat = hello["seat"]
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise TrackingError(f"hello seat must be in 0..{n - 1}, got {seat!r}")
        self.seat: int = seat
        self.observation: dict[str, Any] | None = None
        self._sampler: WorldSampler | None = None
        self._last_sampler: WorldSampler | None = None

    # -- following the game ---------------------------------------------------------
    def update(self, observation: dict[str, Any]) -> None:
        """Take the observation of an ``act`` message; raises :class:`TrackingError`
        for one of another variant or seat (the tracker is left as it was)."""
        if not isinstance(observation, dict):
            raise TrackingError(f"an observation must be a dict, got {type(observation).__name__}")
        if observation.get("variant") != self.game.id:
            raise TrackingError(
                f"observation of {observation.get('variant')!r} "
                f"fed to a tracker of {self.game.id!r}"
            )
        if observation.get("seat") != self.seat:
            raise TrackingError(
                f"observation for seat {observation.get('seat')!r}, tracker is seat {self.seat}"
            )
        self.observation = observation
        if self._sampler is not None:
            self._last_sampler = self._sampler
        self._sampler = None

    def _require(self) -> dict[str, Any]:
        if self.observation is None:
            raise TrackingError("no observation yet: feed update() the act's observation first")
        return self.observation

    # -- what a bot asks --------------------------------------------------------------
    @property
    def to_move(self) -> int | None:
        """The seat to move in the latest observation (None once the game is over)."""
        return self._require().get("current_player")

    def sampler(self) -> WorldSampler:
        """The sampler of the latest observation (built once, reused by ``sample``)."""
        obs = self._require()
        if self._sampler is None:
            self._sampler = WorldSampler(self.game, obs, previous=self._last_sampler)
        return self._sampler

    def sample(self, rng: random.Random) -> games.State:
        """A full state consistent with everything this seat has seen."""
        return self.sampler().sample(rng)

    def legal(self, world: games.State | None = None, *, probes: int = 8) -> list[str] | None:
        """Legal labels of the player to move.

        In ``world`` (a sampled state) they are that world's. Without one: this
        seat's own legal labels when it is to move; for another seat the labels
        when they are public, i.e. the same in every world (bids, announcements,
        Money purchases), checked over ``probes`` sampled worlds; None when they
        depend on hidden cards.
        """
        if world is not None:
            return world.legal_actions()
        obs = self._require()
        if obs.get("current_player") is None:
            return []
        rng = random.Random(len(str(obs.get("history"))))
        seen = {tuple(self.sample(rng).legal_actions()) for _ in range(probes)}
        if obs["current_player"] == self.seat or len(seen) == 1:
            return list(seen.pop())
        return None

    def unseen_cards(self) -> list[str]:
        """Cards of the pack this seat has not seen in the current deal (or stacks)."""
        obs = self._require()
        world = self.sample(random.Random(0))
        deck = world.record()["decks"][-1]
        seen = set(obs.get("hand", []))
        seen |= set(obs.get("out_of_play", []))
        history = obs.get("history")
        if isinstance(history, list) and history and isinstance(history[-1], dict):
            actions = history[-1]["actions"]
            labels = [a[1] if isinstance(a, list) else a for a in actions]
        else:  # Money: a flat list of [seat, label, card?]
            labels = [f"play {e[2]}" for e in history or [] if len(e) > 2]
        seen |= {label[5:] for label in labels if label.startswith("play ")}
        return sorted(c for c in deck if c not in seen)

    def voids(self) -> list[list[str]]:
        """Per seat, the suits it showed void in during the current deal (trick games)."""
        obs = self._require()
        n = self.game.num_players
        out: list[set[str]] = [set() for _ in range(n)]
        history = obs.get("history")
        if not (isinstance(history, list) and history and isinstance(history[-1], dict)):
            return [[] for _ in range(n)]
        entry = history[-1]
        pairs = (
            [(a[0], a[1]) for a in entry["actions"]]
            if "seats" not in entry
            else list(zip(entry["seats"], entry["actions"], strict=True))
        )
        trick: list[str] = []
        for seat, label in pairs:
            if not label.startswith("play "):
                continue
            card = label[5:]
            if trick and card[1] != trick[0][1]:
                out[seat].add(trick[0][1])
            trick.append(card)
            if len(trick) == n:
                trick = []
        return [sorted(v) for v in out]


class TrackingBot(Bot):
    """Base of bots that think with a tracker: override :meth:`decide`.

    ``start`` builds the tracker from the hello, ``act`` feeds it the
    observation and asks ``decide(tracker, legal)``; ``act`` before ``hello``
    raises :class:`TrackingError`.
    """

    name = "tracking-bot"
    needs_observation = True

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.tracker: GameTracker | None = None

    def start(self, hello: dict[str, Any]) -> None:
        self.tracker = GameTracker(hello)

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        if self.tracker is None:
            raise TrackingError("act before hello: the tracker has no game yet")
        if observation is None:
            raise TrackingError("a tracking bot needs the observation")
        self.tracker.update(observation)
        return self.decide(self.tracker, legal)

    def decide(self, tracker: GameTracker, legal: list[str]) -> str:
        raise NotImplementedError

    def game_over(self, result: dict[str, Any]) -> None:
        """Called after each game with the ``result`` message."""
