"""The other seats of a single-agent environment (``games.envs.gymnasium``).

An opponent is given as

- a built-in player's name (``"random"``, ``"greedy"``, ``"ismcts"``, ``"ismcts-quick"``
  ...: ``bots.builtin``, the platform's own, seeing exactly what a bot sees);
- a bot object (anything with ``act(observation, legal) -> label``, such as a
  ``bots.sdk.Bot``; its ``start(hello)`` is called at the start of every game);
- a policy: any other callable ``policy(observation) -> action id`` that receives its
  seat's observation as the agent receives its own (``{"observation": vector,
  "action_mask": mask}``), so a frozen copy of the agent's policy is an opponent.

:func:`opponent` turns one into an :class:`Opponent`; a bad one is a ``ValueError``
naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from games.core import Game, IllegalAction, State
from games.envs.encoding import Encoder


class Opponent:
    """One seat's player: :meth:`start` at each game, :meth:`act` at each of its turns."""

    name = "opponent"

    def start(self, game: Game, seat: int, seed: int) -> None:
        """A new game begins at ``seat`` (``seed``: the game's, for reproducible players)."""

    def act(self, state: State, seat: int) -> int:
        raise NotImplementedError


class BotOpponent(Opponent):
    """A bot object or a built-in player: observation and legal labels in, a label out."""

    def __init__(self, factory: Callable[[int], Any], name: str) -> None:
        self.factory = factory
        self.name = name
        self.bot: Any = None

    def start(self, game: Game, seat: int, seed: int) -> None:
        self.bot = self.factory(seed)
        start = getattr(self.bot, "start", None)
        if start is not None:
            start(
                {
                    "type": "hello",
                    "protocol": 1,
                    "variant": game.id,
                    "options": dict(game.options),
                    "seat": seat,
                    "players": game.num_players,
                    "match": {"player": seat},
                    "time_control": {"move_ms": 0, "bank_ms": 0},
                }
            )

    def act(self, state: State, seat: int) -> int:
        legal = state.legal_actions()
        observation = (
            state.observation(seat) if getattr(self.bot, "needs_observation", True) else None
        )
        label = self.bot.act(observation, legal)
        if label not in legal:
            raise IllegalAction(
                f"opponent {self.name} at seat {seat} chose {label!r}, not one of {legal}"
            )
        return state.legal_ids()[legal.index(label)]


class PolicyOpponent(Opponent):
    """A callable on the seat's observation dict, returning an action id."""

    def __init__(self, policy: Callable[[dict[str, np.ndarray]], Any], encoder: Encoder) -> None:
        self.policy = policy
        self.encoder = encoder
        self.name = getattr(policy, "__name__", type(policy).__name__)
        self.num_actions = encoder.game.variant.num_distinct_actions

    def act(self, state: State, seat: int) -> int:
        legal = state.legal_ids()
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[legal] = 1
        action = self.policy({"observation": self.encoder.encode(state, seat), "action_mask": mask})
        if isinstance(action, np.integer):
            action = int(action)
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            raise IllegalAction(
                f"opponent {self.name} at seat {seat} chose {action!r}, not a legal id {legal}"
            )
        return action


def _builtin(name: str, seed: int) -> Any:
    from bots import builtin

    return builtin.make(name, seed=seed)


def _same(bot: Any, seed: int) -> Any:
    return bot


def opponent(spec: Any, encoder: Encoder) -> Opponent:
    """The :class:`Opponent` of ``spec`` (a built-in name, a bot or a policy)."""
    if isinstance(spec, Opponent):
        return spec
    if isinstance(spec, str):
        from bots import builtin  # the platform's players: pure, like games

        builtin.make(spec)  # ValueError naming an unknown name and the known ones
        return BotOpponent(partial(_builtin, spec), spec)
    if callable(getattr(spec, "act", None)):
        name = getattr(spec, "name", type(spec).__name__)
        return BotOpponent(partial(_same, spec), str(name))
    if callable(spec):
        return PolicyOpponent(spec, encoder)
    raise ValueError(
        f"an opponent is a built-in player's name, a bot (with act) or a policy "
        f"(a callable), got {spec!r}"
    )
