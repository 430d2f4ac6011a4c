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
parameter default then follows the small deck (the value of one of its deals).

Chance deals the real deals (``games.deals``): the first chance node chooses the
first deal's dealer among the seats, the next ones deal the cards one at a time, each
hand (or other group of deck positions whose order does not matter) in ascending
order, each card with the probability a uniform shuffle gives it. Every deal of the
pack is one path, as likely as any other: ``players * N! / (product of group sizes!)``
paths to the first decision. Each later deal of a multi-deal game is dealt the same
way by chance nodes at the end of the deal before (its dealer follows from the rules),
so no hand tells anything of a later deal. Chance outcomes are the dealer's seat,
then card numbers (``games/cards.py``). Actions are the engine's action
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
same, the cards hidden from it are dealt again at random; its history leads there.

Games and states serialise (``state.serialize()``, ``game.deserialize_state``) and
pickle. A state's Python side is its history (``_World.actions``), replayed and so
checked when it is loaded, and a seal set last checks it against OpenSpiel's own
history: a corrupt text is an error, never another state.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from games.core import Game, State
from games.deals import Dealing, card_names, deal_groups, pack_cards
from games.envs.encoding import Encoder
from games.registry import load, variant_info, variants
from games.sampling import SamplingError

#: Worlds drawn for one resampling before its SamplingError is raised (each draws up to
#: ``games.sampling.MAX_ATTEMPTS`` decks).
RESAMPLE_TRIES = 4

#: The longest game the wrappers announce (OpenSpiel's ``max_game_length``).
MAX_GAME_LENGTH = 1_000_000
PREFIX = "python_cardroom_"


def game_name(variant_id: str) -> str:
    """The OpenSpiel short name of a variant."""
    return PREFIX + variant_id.replace("-", "_")


def _parameter(value: Any) -> Any:
    """An option value as an OpenSpiel parameter: none is ``"none"``; a string OpenSpiel
    would read back as a number (``"5-10-15"``) has ``_`` for ``-`` (``"5_10_15"``)."""
    if value is None:
        return "none"
    if isinstance(value, str) and value and set(value) <= set("+-0123456789"):
        return value.replace("-", "_")
    return value


def _options(variant_id: str, params: dict | None) -> dict[str, Any]:
    """The engine options of the game parameters (OpenSpiel fills in every default).

    A derived option (``Option.derived``: the Maniglia target, the value of one deal of
    the pack in use) at its parameter default is left to the engine, which derives it
    from the others (a small deck's target is its own deal's value). A string value
    written with ``_`` for ``-`` (:func:`_parameter`) is given back its ``-``.
    """
    options = dict(params or {})
    for opt in variant_info(variant_id).options:
        name = opt.name.replace(".", "_")
        value = options.get(name)
        if opt.derived is not None and value == _parameter(opt.default):
            del options[name]
        elif isinstance(value, str) and value.replace("_", "-") in opt.choices:
            options[name] = value.replace("_", "-")
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
        max_chance_outcomes=max(v.players, 54 if v.family == "money" else 52),
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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its name and parameters (``pyspiel.load_game`` makes it again)."""
        return (pyspiel.load_game, (game_name(self.variant_id), self.get_parameters()))

    def state_of_record(self, record: dict[str, Any]) -> CardroomState:
        """The state an engine record (``State.record()``) of this game describes, its
        history the chance outcomes and decisions that lead there."""
        state = self.new_initial_state()
        ids: dict[str, int] = {}
        decks = iter(record["decks"])
        card_of = {name: c for c, name in enumerate(card_names(self.cardroom))}
        state.apply_action(record["dealer"])
        for label in [None, *record["actions"]]:
            if label is not None:
                ids = ids or self.label_ids(state.engine)
                if label not in ids:
                    raise ValueError(f"record action {label!r} is not an action of this game")
                state.apply_action(ids[label])
            world = state._world
            if world.dealing is not None:  # deal the next recorded deck
                deck = [card_of[label] for label in next(decks)]
                order = world.dealing.order
                for i, g in enumerate(world.dealing.ends):
                    begin = world.dealing.ends[i - 1] if i else 0
                    for card in sorted(deck[p] for p in order[begin:g]):
                        state.apply_action(card)
        return state

    def label_ids(self, engine: State) -> dict[str, int]:
        """Action label to action id for this game's engine states."""
        ids = self.__dict__.get("_label_ids")
        if ids is None:
            ids = self.__dict__["_label_ids"] = {a: i for i, a in enumerate(_labels(engine))}
        return ids

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict | None = None
    ) -> CardroomObserver:
        return CardroomObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _World:
    """Everything a state holds: the engine state, the deal being dealt, the actions.

    ``actions`` is the OpenSpiel history (chance outcomes and decisions) that made it;
    a pickled world is that history, replayed (and so checked) when it is loaded.
    """

    __slots__ = ("actions", "dealer", "dealing", "game", "state")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.state: State | None = None  # the engine, from the end of the first deal
        self.dealer: int | None = None  # the first chance outcome
        self.dealing: Dealing | None = None  # the deal in progress at a chance node
        self.actions: list[int] = []

    def __deepcopy__(self, memo: dict) -> _World:
        other = _World.__new__(_World)
        other.game = self.game
        other.state = None if self.state is None else self.state.clone()
        other.dealer = self.dealer
        other.dealing = None if self.dealing is None else self.dealing.copy()
        other.actions = self.actions[:]
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        return (_replayed, (self.game, list(self.actions)))

    def apply(self, action: int) -> None:
        """Apply one OpenSpiel action (a chance outcome or a decision), checked."""
        engine, dealing = self.state, self.dealing
        if type(action) is not int:
            action = int(action)
        if self.dealer is None:
            n = self.game.num_players
            if not 0 <= action < n:
                raise ValueError(f"chance outcome {action} is not a dealer (0..{n - 1})")
            self.dealer = action
            self.dealing = Dealing(deal_groups(self.game, action), pack_cards(self.game))
        elif dealing is not None:
            dealing.deal(action)
            if dealing.complete:
                self._dealt(dealing)
        elif engine is not None:
            engine.apply_id(action)
            if engine.awaiting_deck():
                groups = deal_groups(self.game, engine.dealer)  # type: ignore[attr-defined]
                self.dealing = Dealing(groups, pack_cards(self.game))
        self.actions.append(action)

    def _dealt(self, dealing: Dealing) -> None:
        names = card_names(self.game)
        deck = [names[c] for c in dealing.deck]
        self.dealing = None
        if self.state is None:
            self.state = self.game.new_game(0, dealer=self.dealer, decks=[deck], await_decks=True)
        else:
            self.state.deal_next(deck)


def _replayed(game: Game, actions: list[int]) -> _World:
    """A pickled world back: its history replayed from the start, every action checked."""
    if not isinstance(actions, list):
        raise ValueError(f"a serialised state's actions must be a list, got {actions!r}")
    world = _World(game)
    for i, action in enumerate(actions):
        if type(action) is not int:
            raise ValueError(f"serialised action {i} is not an int: {action!r}")
        try:
            world.apply(action)
        except ValueError as exc:  # IllegalAction too
            raise ValueError(f"serialised action {i} ({action}) does not apply: {exc}") from None
    return world


class _Seal:
    """The last entry of a state's ``__dict__``: OpenSpiel sets it last when it loads a
    serialised state, and the state then checks that its C++ history is its world's."""

    __slots__ = ("cloned",)

    def __init__(self, cloned: bool = False) -> None:
        self.cloned = cloned

    def __deepcopy__(self, memo: dict) -> _Seal:
        return _Seal(cloned=True)  # ``State.clone``: the history is copied after

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Seal, ())


class CardroomState(pyspiel.State):
    """A game in progress: chance nodes deal each deal, then the engine's decisions."""

    def __init__(self, game: CardroomGame) -> None:
        super().__init__(game)
        self._cardroom = game.cardroom
        self._world = _World(game.cardroom)
        self._sealed = _Seal()

    @property
    def _sealed(self) -> _Seal:
        return self.__dict__["_sealed"]

    @_sealed.setter
    def _sealed(self, seal: _Seal) -> None:
        if not isinstance(seal, _Seal):
            raise ValueError(f"not a serialised Cardroom state (seal {seal!r})")
        if not seal.cloned and self.history() != self._world.actions:
            raise ValueError(
                "corrupt serialised state: its history does not match its actions "
                f"({len(self.history())} against {len(self._world.actions)})"
            )
        self.__dict__["_sealed"] = _Seal()

    @property
    def engine(self) -> State | None:
        """The engine state (``None`` until the first deal is dealt)."""
        return self._world.state

    def current_player(self) -> int:
        world = self._world
        engine = world.state
        if engine is None or world.dealing is not None:
            return pyspiel.PlayerId.CHANCE
        if engine.is_over():
            return pyspiel.PlayerId.TERMINAL
        return engine.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        world = self._world
        engine = world.state
        if engine is None or world.dealing is not None or engine.current_player() != player:
            return []
        return engine.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        world = self._world
        if world.dealer is None:
            n = self._cardroom.num_players
            return [(seat, 1.0 / n) for seat in range(n)]
        if world.dealing is None:
            return []
        return world.dealing.outcomes()

    def _apply_action(self, action: int) -> None:
        self._world.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        world = self._world
        if player == pyspiel.PlayerId.CHANCE:
            if world.dealer is None:
                return f"dealer {action}"
            names = card_names(self._cardroom)
            card = names[action] if 0 <= action < len(names) else f"card {action}"
            if world.dealing is None or world.dealing.complete:
                return f"deal {card}"
            return f"deal {card} to {world.dealing.group_name()}"
        engine = world.state
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
        """A state the seat cannot tell from this one (``games.sampling``), its history
        the chance outcomes and decisions that lead to the world drawn."""
        world = self._world
        engine = world.state
        if engine is None or world.dealing is not None or engine.is_over():
            return self.clone()
        try:
            seed = int(probability_sampler() * 2**32)
        except TypeError:
            seed = random.getrandbits(32)
        rng = random.Random(seed)
        for attempt in range(RESAMPLE_TRIES):
            try:
                world = engine.sample_world(player_id, rng)
                break
            except SamplingError:
                # Rejection sampling ran out of decks (many voids and shown cards late
                # in a deal): try again from where the generator is, a few times.
                if attempt == RESAMPLE_TRIES - 1:
                    raise
        return self.get_game().state_of_record(world.record())

    def __str__(self) -> str:
        world = self._world
        if world.state is None:
            dealt = 0 if world.dealing is None else world.dealing.index
            return f"(before the first deal: dealer {world.dealer}, {dealt} cards dealt)"
        return json.dumps(world.state.record(), sort_keys=True)


def utilities(ranking: list[int]) -> list[float]:
    n = len(ranking)
    return [
        (sum(1 for o in ranking if o > r) - sum(1 for o in ranking if o < r)) / (n - 1)
        for r in ranking
    ]


def _labels(engine: State) -> Any:
    labels = engine.LABELS
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
    cls.__module__ = __name__
    globals()[cls.__name__] = cls  # found by name when a game is pickled
    pyspiel.register_game(_game_type(variant_id), cls)


for _variant in variants():
    _register(_variant)
