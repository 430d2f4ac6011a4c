"""Every variant as a single-agent Gymnasium environment (docs/training.md).

::

    from games.envs.gymnasium import env

    e = env("maniglia-3", opponents=["greedy", "random"], seat=None)
    obs, info = e.reset(seed=7)
    done = False
    while not done:
        action = pick(obs["action_mask"])  # any legal id
        obs, reward, done, truncated, info = e.step(action)

The agent plays one seat; the other seats are played by ``opponents`` (one per other
seat, in seat order after the agent's, or a single one for all: built-in players'
names, bot objects or policies, ``games.envs.opponents``). ``seat`` is the agent's seat,
or None: the seat then rotates, game ``k`` after a ``reset(seed=s)`` sitting at
``(s + k) % players``.

- Actions: ``Discrete(num_distinct_actions)``, the engine's action ids.
- Observations: ``{"observation": float32 vector, "action_mask": int8 vector}`` (the
  PettingZoo observation of the agent's seat; the mask is all 0 once the game is over);
  ``info`` holds ``seat``, and ``action_masks()`` returns the mask as booleans.
- Rewards: 0 until the game ends, then the agent's result ``(seats ranked below it -
  seats ranked above it) / (players - 1)`` in [-1, 1]; ``terminated`` at the end.
  Nothing truncates (every game ends by the rules; Money games by ``money.max_plays``).
- An illegal action forfeits the game, as on the platform (FORFEIT-2): the agent ranks
  last, ``info["illegal"]`` names the action. With ``illegal="raise"`` it raises
  ``games.IllegalAction`` instead and changes nothing.
- ``reset(seed=s)`` deals the game of seed ``s``, as ``games.load(...).new_game(s)``;
  a ``reset()`` without a seed deals a seed drawn from the environment's generator,
  so a run reproduces from its first seed. A game that ends before the agent's first
  decision (only a Maniglia partnership game can) is skipped for the next.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from games.core import Game, IllegalAction
from games.envs.encoding import Encoder
from games.envs.opponents import Opponent, opponent
from games.envs.pettingzoo import SEED_RANGE, utilities
from games.registry import load

ILLEGAL = ("forfeit", "raise")


def env(
    variant_id: str,
    opponents: Any = "random",
    seat: int | None = None,
    *,
    illegal: str = "forfeit",
    render_mode: str | None = None,
    **options: Any,
) -> CardroomGymEnv:
    """The single-agent environment of ``variant_id`` with ``options`` (as ``games.load``).

    Raises ``ValueError`` naming an unknown variant, option, opponent or a bad seat.
    """
    return CardroomGymEnv(
        load(variant_id, **options), opponents, seat, illegal=illegal, render_mode=render_mode
    )


class CardroomGymEnv(gymnasium.Env):
    """One seat of a Cardroom game against fixed opponents (see the module doc)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Game,
        opponents: Any = "random",
        seat: int | None = None,
        *,
        illegal: str = "forfeit",
        render_mode: str | None = None,
    ) -> None:
        n = game.num_players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise ValueError(f"seat must be a seat in 0..{n - 1} or None, got {seat!r}")
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be a seat in 0..{n - 1} or None, got {seat!r}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {ILLEGAL}, got {illegal!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.game = game
        self.encoder = Encoder(game)
        self.num_actions = game.variant.num_distinct_actions
        specs = list(opponents) if isinstance(opponents, list | tuple) else [opponents] * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(
                f"{game.id} has {n} seats: give {n - 1} opponents (or one for all), "
                f"got {len(specs)}"
            )
        self.opponents: list[Opponent] = [opponent(s, self.encoder) for s in specs]
        self.fixed_seat = seat
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (self.encoder.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(self.num_actions)
        self.state: Any = None
        self.seat = 0 if seat is None else seat
        self.game_seed: int | None = None
        self._first_seat = 0
        self._games = 0
        self._players: dict[int, Opponent] = {}

    # -- the Gymnasium API --------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        n = self.game.num_players
        if seed is not None:
            self._first_seat, self._games = seed % n, 0
            game_seed = seed
        else:
            game_seed = int(self.np_random.integers(SEED_RANGE))
        while True:
            self._deal(game_seed)
            if not self.state.is_over():
                break
            game_seed = int(self.np_random.integers(SEED_RANGE))
        return self._observe(), {"seat": self.seat}

    def _deal(self, game_seed: int) -> None:
        n = self.game.num_players
        self.seat = (
            (self._first_seat + self._games) % n if self.fixed_seat is None else (self.fixed_seat)
        )
        self._games += 1
        self.game_seed = game_seed
        self.state = self.game.new_game(game_seed)
        others = [(self.seat + k) % n for k in range(1, n)]
        self._players = dict(zip(others, self.opponents, strict=True))
        for seat, player in self._players.items():
            player.start(self.game, seat, game_seed * n + seat)
        self._play_others()

    def _play_others(self) -> None:
        state, players, seat = self.state, self._players, self.seat
        while not state.is_over():
            current = state.current_player()
            if current == seat:
                return
            state.apply_id(players[current].act(state, current))

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        state, seat = self.state, self.seat
        if state is None:
            raise RuntimeError("call reset() before step()")
        if state.is_over():
            raise RuntimeError("the game is over: call reset()")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, np.integer):
            action = int(action)
        info: dict[str, Any] = {"seat": seat}
        legal = state.legal_ids()
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            if self.illegal == "raise":
                raise IllegalAction(
                    f"action {action!r} is not legal for seat {seat} now (legal ids: {legal})"
                )
            info["illegal"] = action
            state.forfeit(seat, "illegal")  # FORFEIT-2: the offender is last
        else:
            state.apply_id(action)
            self._play_others()
        reward = 0.0
        if state.is_over():
            reward = float(utilities(state.ranking())[seat])
        return self._observe(), reward, state.is_over(), False, info

    def action_masks(self) -> np.ndarray:
        """The legal ids of the agent now, as booleans (what masked learners ask for)."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        flags = bytearray(self.num_actions)  # filled in Python, then one numpy view
        state = self.state
        if not state.is_over() and state.current_player() == self.seat:
            for action in state.legal_ids():
                flags[action] = 1
        return np.frombuffer(flags, dtype=np.int8)

    def _observe(self) -> dict[str, np.ndarray]:
        return {
            "observation": self.encoder.encode(self.state, self.seat),
            "action_mask": self._mask(),
        }

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        state = self.state
        head = f"{self.game.canonical()} seed {self.game_seed}, agent at seat {self.seat}: "
        if state.is_over():
            return head + f"ranking {state.ranking()}"
        return head + f"seat {state.current_player()} to act, legal {state.legal_actions()}"
