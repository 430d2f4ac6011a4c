"""Every variant as an OpenSpiel Python game (docs/training.md).

``import games.envs.openspiel`` registers one game per variant, named
``"python_cardroom_" + variant_id.replace("-", "_")``::

    import pyspiel
    import games.envs.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("python_cardroom_manni_basic", {"manni_tie": "play-on"})

The game's parameters are the variant's options, named with ``_`` for ``.``
(``manni.tie`` is ``manni_tie``); an option whose default is none is a string parameter
(``"none"`` or a number such as ``"6"``). A small deck is a parameter too
(``{"manni_ranks": 3}``, ``{"maniglia_ranks": 3}``); the Maniglia target left at its
parameter default then follows the small deck (the value of one of its deals). The
first node is a chance node choosing the deal's seed among
:data:`DEAL_SEEDS` equally likely seeds (the engine deals every later deal of the
game from it: that randomness is inside the engine). Actions are the engine's action
ids (``State.legal_ids``, ``Variant.num_distinct_actions`` of them); utilities are
the PettingZoo wrapper's: ``(seats ranked below - seats ranked above) / (players - 1)``
at the end, zero-sum.

Observations (the observer of ``make_py_observer``):

- tensors, information state and observation alike: the seat's vector of
  ``games.envs.encoding.Encoder`` (the same layout as the PettingZoo observation).
  It summarises the history; it is not a perfect-recall tensor.
- the information-state string: the engine's ``observation(seat)`` as sorted JSON,
  which holds the whole public history and the seat's own cards (perfect recall of
  everything the seat was shown);
- the observation string: the same without ``history``.

``resample_from_infostate(player, sampler)`` returns a state whose world is
``games.sampling``'s ``state.sample_world(player, rng)``: the seat's observation is the
same, the cards hidden from it are dealt again at random.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from games.core import Game, State
from games.envs.encoding import Encoder
from games.registry import load, variant_info, variants

#: How many deal seeds the opening chance node chooses among (equally likely).
DEAL_SEEDS = 1024
#: The longest game the wrappers announce (OpenSpiel's ``max_game_length``).
MAX_GAME_LENGTH = 1_000_000
PREFIX = "python_cardroom_"


def game_name(variant_id: str) -> str:
    """The OpenSpiel short name of a variant."""
    return PREFIX + variant_id.replace("-", "_")


def _parameter(value: Any) -> Any:
    return "none" if value is None else value


def _options(variant_id: str, params: dict | None) -> dict[str, Any]:
    """The engine options of the game parameters (OpenSpiel fills in every default).

    A derived option (``Option.derived``: the Maniglia target, the value of one deal of
    the pack in use) at its parameter default is left to the engine, which derives it
    from the others (a small deck's target is its own deal's value).
    """
    options = dict(params or {})
    for opt in variant_info(variant_id).options:
        name = opt.name.replace(".", "_")
        if opt.derived is not None and options.get(name) == _parameter(opt.default):
            del options[name]
    return options


def _game_type(variant_id: str) -> pyspiel.GameType:
    v = variant_info(variant_id)
    return pyspiel.GameType(
        short_name=game_name(variant_id),
        long_name=f"Cardroom {variant_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=v.players,
        min_num_players=v.players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={
            o.name.replace(".", "_"): _parameter(o.default) for o in v.options
        },
    )


def _game_info(variant_id: str) -> pyspiel.GameInfo:
    v = variant_info(variant_id)
    return pyspiel.GameInfo(
        num_distinct_actions=v.num_distinct_actions,
        max_chance_outcomes=DEAL_SEEDS,
        num_players=v.players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=MAX_GAME_LENGTH,
    )


class CardroomGame(pyspiel.Game):
    """One variant with its options (the game's parameters) as an OpenSpiel game."""

    variant_id = ""

    def __init__(self, params: dict | None = None) -> None:
        super().__init__(_game_type(self.variant_id), _game_info(self.variant_id), params or {})
        self.cardroom: Game = load(self.variant_id, **_options(self.variant_id, params))
        self.encoder = Encoder(self.cardroom)

    def new_initial_state(self) -> CardroomState:
        return CardroomState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict | None = None
    ) -> CardroomObserver:
        return CardroomObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _World:
    """The engine state, copied with ``State.clone`` when OpenSpiel clones a state."""

    __slots__ = ("state",)

    def __init__(self, state: State | None) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict) -> _World:
        return _World(None if self.state is None else self.state.clone())


class CardroomState(pyspiel.State):
    """A game in progress: a chance node until the deal, then the engine's state."""

    def __init__(self, game: CardroomGame) -> None:
        super().__init__(game)
        self._cardroom = game.cardroom
        self._world = _World(None)

    @property
    def engine(self) -> State | None:
        """The engine state (``None`` before the deal's chance node)."""
        return self._world.state

    def current_player(self) -> int:
        engine = self._world.state
        if engine is None:
            return pyspiel.PlayerId.CHANCE
        if engine.is_over():
            return pyspiel.PlayerId.TERMINAL
        return engine.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        engine = self._world.state
        if engine is None or engine.is_over() or engine.current_player() != player:
            return []
        return engine.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / DEAL_SEEDS
        return [(seed, p) for seed in range(DEAL_SEEDS)]

    def _apply_action(self, action: int) -> None:
        if self._world.state is None:
            self._world.state = self._cardroom.new_game(int(action))
        else:
            self._world.state.apply_id(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {action}"
        engine = self._world.state
        labels = _labels(engine) if engine is not None else ()
        return labels[action] if 0 <= action < len(labels) else f"action {action}"

    def is_terminal(self) -> bool:
        engine = self._world.state
        return engine is not None and engine.is_over()

    def returns(self) -> list[float]:
        engine = self._world.state
        if engine is None or not engine.is_over():
            return [0.0] * self._cardroom.num_players
        return utilities(engine.ranking())

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardroomState:
        """A state the seat cannot tell from this one (``games.sampling``)."""
        engine = self._world.state
        clone = self.clone()
        if engine is None or engine.is_over():
            return clone
        try:
            seed = int(probability_sampler() * 2**32)
        except TypeError:
            seed = random.getrandbits(32)
        clone._world = _World(engine.sample_world(player_id, random.Random(seed)))
        return clone

    def __str__(self) -> str:
        engine = self._world.state
        if engine is None:
            return "(before the deal)"
        return json.dumps(engine.record(), sort_keys=True)


def utilities(ranking: list[int]) -> list[float]:
    n = len(ranking)
    return [
        (sum(1 for o in ranking if o > r) - sum(1 for o in ranking if o < r)) / (n - 1)
        for r in ranking
    ]


def _labels(engine: State) -> Any:
    labels = type(engine).LABELS
    if not labels:  # Money: a table per ruleset
        labels = engine.rules.table.labels  # type: ignore[attr-defined]
    return labels


class CardroomObserver:
    """OpenSpiel's PyObserver: the encoder's tensor and the engine's observation as text."""

    def __init__(self, game: CardroomGame, iig_obs_type: Any, params: dict | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        self.encoder = game.encoder
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {
            name: self.tensor[start : start + length] for name, start, length in self.encoder.layout
        }

    def set_from(self, state: CardroomState, player: int) -> None:
        engine = state.engine
        if engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.encoder.encode(engine, player)

    def string_from(self, state: CardroomState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return f"seat {player}: before the deal"
        obs = engine.observation(player)
        if not self.perfect_recall:
            obs.pop("history", None)
        return json.dumps(obs, sort_keys=True, separators=(",", ":"))


def _register(variant_id: str) -> None:
    cls = type(
        f"CardroomGame_{variant_id.replace('-', '_')}", (CardroomGame,), {"variant_id": variant_id}
    )
    pyspiel.register_game(_game_type(variant_id), cls)


for _variant in variants():
    _register(_variant)
