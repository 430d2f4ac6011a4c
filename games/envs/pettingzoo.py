"""Every variant as a PettingZoo AEC environment (docs/training.md).

::

    from games.envs.pettingzoo import env

    e = env("manni-basic", manni_tie="play-on")
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else pick(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (agent ``player_k`` sits in seat ``k``).
An observation is ``{"observation": float32 vector, "action_mask": int8 vector}``: the
vector is ``games.envs.encoding.Encoder``'s layout for the family, the mask has one
entry per action id (``Variant.num_distinct_actions``), 1 for the legal ids of the
agent to act and all 0 for every other agent. Actions are the engine's action ids
(``State.legal_ids``). Rewards are 0 until the game ends; then each seat gets its
result ``(seats ranked below it - seats ranked above it) / (players - 1)``, in
``[-1, 1]`` and summing to 0 (partners share a rank, so they share the reward).
``reset(seed=s)`` deals game seed ``s``; a later ``reset()`` without a seed deals the
next seed of a generator seeded by the last given seed, so a run reproduces.
An illegal action raises :class:`games.core.IllegalAction` (a ``ValueError``) naming
it, and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from games.core import Game, IllegalAction
from games.envs.encoding import Encoder
from games.registry import load, variant_info

SEED_RANGE = 2**31 - 1


def env(variant_id: str, render_mode: str | None = None, **options: Any) -> CardroomEnv:
    """The AEC environment of ``variant_id`` with ``options`` (as ``games.load`` takes them).

    Raises ``ValueError`` naming an unknown variant, option or option value.
    """
    return CardroomEnv(load(variant_id, **options), render_mode=render_mode)


def utilities(ranking: list[int]) -> list[float]:
    """Each seat's result in ``[-1, 1]`` from the competition ranks (1 is best)."""
    n = len(ranking)
    if n < 2:
        return [0.0] * n
    return [
        (sum(1 for o in ranking if o > r) - sum(1 for o in ranking if o < r)) / (n - 1)
        for r in ranking
    ]


class CardroomEnv(AECEnv):
    """One Cardroom game as a PettingZoo AEC environment (see the module doc)."""

    metadata = {
        "name": "cardroom_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, game: Game, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.game = game
        self.render_mode = render_mode
        self.variant = variant_info(game.id)
        self.encoder = Encoder(game)
        self.num_actions = self.variant.num_distinct_actions
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (self.encoder.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._seeds = random.Random()
        self.state: Any = None
        self.game_seed: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the AEC API ----------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise ValueError(f"seed must be an int, got {seed!r}")
            self._seeds = random.Random(seed)
            self.game_seed = seed
        else:
            self.game_seed = self._seeds.randrange(SEED_RANGE)
        self.state = self.game.new_game(self.game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        seat = self.state.current_player()
        self.agent_selection = self.possible_agents[seat if seat is not None else 0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        flags = bytearray(self.num_actions)  # filled in Python, then one numpy view
        state = self.state
        if not state.is_over() and state.current_player() == seat:
            for action in state.legal_ids():
                flags[action] = 1
        mask = np.frombuffer(flags, dtype=np.int8)
        return {"observation": self.encoder.encode(state, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        if isinstance(action, np.integer):
            action = int(action)
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalAction(f"action must be an int action id, got {action!r}")
        try:
            state.apply_id(action)  # checks it, changing nothing when it is not legal
        except IllegalAction:
            label = _label(state, action)
            raise IllegalAction(
                f"action {action} ({label}) is not legal for {agent} now "
                f"(legal ids: {state.legal_ids()})"
            ) from None
        self._cumulative_rewards[agent] = 0.0
        if state.is_over():
            results = utilities(state.ranking())
            for a, r in zip(self.possible_agents, results, strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
            self._select()
            self._accumulate_rewards()
        else:
            self._select()  # every reward is 0 until the end: nothing to accumulate
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        seat = self.state.current_player()
        text = f"{self.game.canonical()} seed {self.game_seed}: " + (
            f"ranking {self.state.ranking()}"
            if self.state.is_over()
            else f"seat {seat} to act, legal {self.state.legal_actions()}"
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _label(state: Any, action: int) -> str:
    labels = getattr(state, "LABELS", ()) or getattr(getattr(state, "rules", None), "table", None)
    if hasattr(labels, "labels"):
        labels = labels.labels
    try:
        return repr(labels[action]) if 0 <= action < len(labels) else "no such action"
    except (TypeError, IndexError):
        return "unknown"
