"""The engine contract shared by every game (DESIGN.md section 2).

A :class:`Game` is a variant with its options fixed; ``Game.new_game`` deals a
:class:`State`. States are mutated in place by ``apply``; ``clone`` copies them.
Every action is a label string (RULES.md section 12); engines keep integer
action ids internally and expose them as the fast path ``legal_ids`` /
``apply_id`` that built-in bots use; ``playout`` plays random legal actions to
the end (the loop search bots run) and ``clone`` copies a state cheaply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

RECORD_FORMAT = 1


class RandomSource(Protocol):
    """What ``State.playout`` draws from: ``random.Random`` or anything alike."""

    def random(self) -> float: ...


class IllegalAction(ValueError):
    """An action that is not in the current legal list (FORFEIT-1).

    Raised by ``State.apply`` / ``State.apply_id``; the state is unchanged.
    """


@dataclass(frozen=True)
class Option:
    """A named per-game option (COMMON-8) with its default and allowed values.

    ``choices`` lists the allowed values of an enumerated option; for other
    options ``parse`` turns a raw value into the canonical one or raises
    ``ValueError``. ``derived``, when set, computes the value of an option the
    game was not given from the other options' values (e.g. a target that is
    the value of one deal of the pack in use); ``default`` is then its value
    under the other options' defaults.
    """

    name: str
    default: Any
    choices: tuple[Any, ...] = ()
    parse: Callable[[Any], Any] | None = None
    doc: str = ""
    derived: Callable[[dict[str, Any]], Any] | None = None

    def canonical(self, value: Any) -> Any:
        if self.parse is not None:
            return self.parse(value)
        if value in self.choices and type(value) is type(self.default):
            return value
        allowed = ", ".join(repr(c) for c in self.choices)
        raise ValueError(f"option {self.name} must be one of {allowed}, got {value!r}")


def parse_bool(name: str) -> Callable[[Any], bool]:
    def parse(value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if value in ("true", "false"):
            return value == "true"
        raise ValueError(f"option {name} must be true or false, got {value!r}")

    return parse


def parse_int(name: str, low: int, high: int, *, allow_none: bool = False) -> Callable:
    def parse(value: Any) -> int | None:
        if allow_none and value in (None, "none"):
            return None
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            extra = " or none" if allow_none else ""
            raise ValueError(
                f"option {name} must be an integer in {low}..{high}{extra}, " f"got {value!r}"
            )
        return value

    return parse


#: The packs a variant's cards come from (``Variant.pack``, COMMON-4, ``games/cards.py``).
PACKS = ("french", "latin")
#: How the dealer moves between deals (``Variant.dealer_rotation``, COMMON-1, COMMON-2).
DEALER_ROTATIONS = ("left", "right", "alternate")
#: The seat step of the next deal's dealer within a game, for the rotations that have one.
DEALER_STEPS = {"left": 1, "right": -1}


@dataclass(frozen=True)
class Variant:
    """A registered variant: its id, table size and options, its state class and metadata.

    The metadata (docs/engine.md, after OpenSpiel's ``GameType`` / ``GameInfo``):

    - ``teams``: the seat groups that share a result, e.g. ``((0, 2), (1, 3))``;
      ``()`` when everyone plays alone (``partnership`` is ``bool(teams)``).
    - ``pack``: the pack the cards come from, one of :data:`PACKS`.
    - ``dealer_rotation``: how the dealer moves between deals, one of
      :data:`DEALER_ROTATIONS`: ``"left"`` (the next deal in a game is dealt by
      ``dealer + 1``), ``"right"`` (by ``dealer - 1``), ``"alternate"`` (one deal per
      game, so the engine never moves the dealer; the match alternates it: its deal
      number ``k`` is dealt by seat ``k % 2``).
    - ``num_distinct_actions``: the size of the action-id space of ``legal_ids`` /
      ``apply_id``; every id is below it for every option configuration.
    - ``worlds``: how worlds consistent with an observation are drawn
      (``games.sampling.WorldSampler``): ``worlds(game, observation, previous)``
      analyses one observation and returns an object whose ``sample(rng)`` draws a
      full state; ``previous`` is what it returned for an earlier observation of the
      same game and seat (it may reuse what still holds), or None. Each family
      states its own (``games/<family>/sampling.py``); None: no world sampling.

    The defaults (``()``, ``""``, ``""``, ``0``, None: unstated) keep a variant built
    without them valid; every registered variant states them all.
    """

    id: str
    family: str
    players: int
    options: tuple[Option, ...]
    state_class: type[State]
    summary: str = ""
    fixed: dict[str, Any] = field(default_factory=dict)
    teams: tuple[tuple[int, ...], ...] = ()
    pack: str = ""
    dealer_rotation: str = ""
    num_distinct_actions: int = 0
    worlds: Callable[[Game, dict[str, Any], Any], Any] | None = field(
        default=None, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.teams:
            seats = sorted(s for team in self.teams for s in team)
            sizes = {len(team) for team in self.teams}
            if len(self.teams) < 2 or seats != list(range(self.players)) or len(sizes) != 1:
                raise ValueError(
                    f"variant {self.id}: teams must split seats 0..{self.players - 1} "
                    f"into two or more equal groups, got {self.teams!r}"
                )
        if self.pack and self.pack not in PACKS:
            raise ValueError(f"variant {self.id}: pack must be one of {PACKS}, got {self.pack!r}")
        if self.dealer_rotation and self.dealer_rotation not in DEALER_ROTATIONS:
            raise ValueError(
                f"variant {self.id}: dealer_rotation must be one of {DEALER_ROTATIONS}, "
                f"got {self.dealer_rotation!r}"
            )
        n = self.num_distinct_actions
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"variant {self.id}: num_distinct_actions must be >= 0, got {n!r}")

    @property
    def partnership(self) -> bool:
        """True when seats play in teams (``teams`` is not empty)."""
        return bool(self.teams)

    def option(self, name: str) -> Option | None:
        for opt in self.options:
            if opt.name == name:
                return opt
        return None


class Game:
    """A variant with its option values fixed (one event's configuration)."""

    def __init__(self, variant: Variant, options: dict[str, Any]) -> None:
        self.variant = variant
        self.options = self._resolve(variant, options)

    @staticmethod
    def _resolve(variant: Variant, given: dict[str, Any]) -> dict[str, Any]:
        values = {opt.name: opt.default for opt in variant.options}
        given_names: set[str] = set()
        for raw_name, value in given.items():
            name = raw_name if "." in raw_name else raw_name.replace("_", ".", 1)
            if name in variant.fixed:
                raise ValueError(
                    f"option {name} is fixed by variant {variant.id} " f"and cannot be set"
                )
            opt = variant.option(name)
            if opt is None:
                known = ", ".join(o.name for o in variant.options) or "none"
                raise ValueError(
                    f"unknown option {raw_name!r} for variant {variant.id} "
                    f"(known options: {known})"
                )
            values[name] = opt.canonical(value)
            given_names.add(name)
        for opt in variant.options:
            if opt.derived is not None and opt.name not in given_names:
                values[opt.name] = opt.derived(values)
        return values

    @property
    def id(self) -> str:
        return self.variant.id

    @property
    def num_players(self) -> int:
        return self.variant.players

    def canonical(self) -> str:
        """``variant(name=value,...)`` listing the options that differ from defaults."""
        changed = [
            f"{o.name}={_option_text(self.options[o.name])}"
            for o in self.variant.options
            if self.options[o.name] != o.default
        ]
        return f"{self.id}({','.join(changed)})" if changed else self.id

    def new_game(
        self,
        seed: int,
        *,
        dealer: int | None = None,
        decks: Sequence[Sequence[str]] | None = None,
        await_decks: bool = False,
    ) -> State:
        """Deal a new game. Raises ``ValueError`` for a bad seed, dealer or deck.

        ``decks`` deal the first deals (card labels, top card first); the later deals
        are shuffled from ``seed``, unless ``await_decks``: then each later deal waits
        for its deck (``State.awaiting_deck``, ``State.deal_next``), and ``decks`` must
        hold at least the first deal's.
        """
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an int, got {seed!r}")
        if dealer is not None and (
            isinstance(dealer, bool)
            or not isinstance(dealer, int)
            or not 0 <= dealer < self.num_players
        ):
            raise ValueError(
                f"dealer must be a seat in 0..{self.num_players - 1}, " f"got {dealer!r}"
            )
        if decks is not None and not isinstance(decks, list | tuple):
            raise ValueError(f"decks must be a list of decks, got {type(decks).__name__}")
        if await_decks and not decks:
            raise ValueError("await_decks needs the first deal's deck in decks")
        state = self.variant.state_class.new(self, seed, dealer, decks)
        if await_decks:
            state.await_decks()
        return state

    def __deepcopy__(self, memo: dict) -> Game:
        return self  # fixed once made: copies of a state share it

    def __repr__(self) -> str:
        return f"<Game {self.canonical()}>"


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


def forfeit_view(forfeited: tuple[int, str] | None) -> dict[str, Any] | None:
    """A forfeit as records and observations show it: ``{"seat", "reason"}`` or None."""
    return None if forfeited is None else {"seat": forfeited[0], "reason": forfeited[1]}


def _slot_copier(cls: type) -> Callable[[Any], Any]:
    """``State.clone`` for ``cls`` as one straight-line function (made once per class).

    Every slot is copied, a list or dict one level deep (``.copy()``); a slot the
    engine has not set yet stays unset. Unrolled, this is about twice as quick
    as a loop over the slot names with ``getattr`` / ``setattr``.
    """
    slots = [
        _mangled(c, n)
        for c in cls.__mro__
        for n in _slot_names(c)
        if n not in ("__dict__", "__weakref__")
    ]
    lines = ["def clone(self):", "    other = new(cls)"]
    for name in dict.fromkeys(slots):
        if not name.isidentifier():
            raise TypeError(f"slot {name!r} of {cls.__name__} is not an identifier")
        lines += [
            "    try:",
            f"        value = self.{name}",
            "    except AttributeError:",  # a field the engine has not set yet
            "        pass",
            "    else:",
            f"        other.{name} = value.copy() if value.__class__ in nested else value",
        ]
    lines.append("    return other")
    # ``cls.__new__``: ``object.__new__`` for a Python class, its own for a compiled one.
    namespace: dict[str, Any] = {"new": cls.__new__, "cls": cls, "nested": (list, dict)}
    exec(compile("\n".join(lines), f"<{cls.__name__}.clone>", "exec"), namespace)
    return namespace["clone"]


def _slot_names(owner: type) -> tuple[str, ...]:
    """The slots ``owner`` itself declares; a class compiled by mypyc lists its own
    attributes and its compiled bases' in ``__mypyc_attrs__`` instead (build_engines.py).
    """
    names = owner.__dict__.get("__slots__") or owner.__dict__.get("__mypyc_attrs__", ())
    return (names,) if isinstance(names, str) else tuple(names)


def _mangled(owner: type, name: str) -> str:
    """The attribute name of slot ``name`` of class ``owner`` (private names are mangled)."""
    if name.startswith("__") and not name.endswith("__"):
        return f"_{owner.__name__.lstrip('_')}{name}"
    return name


def competition_ranks(values: Sequence[int | float]) -> list[int]:
    """Standard competition ranking (1, 2, 2, 4), higher value is better."""
    return [1 + sum(1 for other in values if other > v) for v in values]


class State:
    """Base of every engine state; subclasses implement the abstract hooks.

    Subclasses provide ``LABELS`` (action id -> label) and ``LABEL_IDS``
    (label -> id), ``legal_ids``, ``apply_id``, ``current_player`` and the rest.
    """

    LABELS: ClassVar[Sequence[str]] = ()
    LABEL_IDS: ClassVar[dict[str, int]] = {}

    game: Game
    seed: int

    # -- construction -----------------------------------------------------
    @classmethod
    def new(
        cls, game: Game, seed: int, dealer: int | None, decks: Sequence[Sequence[str]] | None
    ) -> State:
        raise NotImplementedError

    # -- the public API ---------------------------------------------------
    def current_player(self) -> int | None:
        raise NotImplementedError

    def is_over(self) -> bool:
        raise NotImplementedError

    def legal_ids(self) -> list[int]:
        """Legal action ids in the documented stable order (the fast path)."""
        raise NotImplementedError

    def apply_id(self, action: int) -> None:
        """Apply a legal action id; raises :class:`IllegalAction` otherwise."""
        raise NotImplementedError

    def legal_actions(self) -> list[str]:
        labels = self.LABELS
        return [labels[a] for a in self.legal_ids()]

    def playout(self, rng: RandomSource, *, deal_only: bool = False) -> None:
        """Play uniformly random legal actions to the end of the game (the fast path).

        Each action is ``ids[int(rng.random() * len(ids))]`` with ``ids = legal_ids()``,
        so a playout leaves exactly the state (record included) that this loop over
        ``legal_ids`` / ``apply_id`` leaves; engines inline it for card play. ``rng``
        is anything with a ``random()`` method returning floats in [0, 1), such as
        ``random.Random(seed)``: the engine draws from nothing else. With
        ``deal_only`` the playout stops once the current deal is scored (before the
        next deal's first decision), or at the end of the game.
        """
        random, is_over, legal_ids, apply_id = (
            rng.random,
            self.is_over,
            self.legal_ids,
            self.apply_id,
        )
        if not deal_only:
            while not is_over():
                ids = legal_ids()
                apply_id(ids[int(random() * len(ids))])
            return
        deal = self.deal_number()
        while not is_over() and self.deal_number() == deal:
            ids = legal_ids()
            apply_id(ids[int(random() * len(ids))])

    def deal_number(self) -> int:
        """The number of the deal in progress (1 for the first); one-deal games keep 1."""
        return 1

    # -- decks given deal by deal (``Game.new_game(await_decks=True)``) ---------
    def await_decks(self) -> None:
        """From now on each deal after the given decks waits for :meth:`deal_next`.

        A game of one deal (Money) never waits: its deck is the first one given.
        """

    def awaiting_deck(self) -> bool:
        """True between deals of a state waiting for its next deck (nobody is to act,
        ``current_player()`` is None, ``legal_ids()`` is empty, the game is not over)."""
        return False

    def deal_next(self, deck: Sequence[str]) -> None:
        """Deal the deal the state waits for from ``deck`` (card labels, top card first).

        Raises ``ValueError`` when the state is not waiting or the deck is not a deck
        of the game's pack (naming the card).
        """
        raise ValueError("the state is not waiting for a deck (awaiting_deck() is False)")

    def apply(self, label: str) -> None:
        """Apply the action ``label``.

        Raises :class:`IllegalAction` (naming the label) when it is not in
        ``legal_actions()`` or the game is over; the state is then unchanged.
        """
        try:
            action = self.LABEL_IDS[label]
        except (KeyError, TypeError):  # unknown or unhashable
            self._reject(label)
        self.apply_id(action)

    def _reject(self, label: object) -> None:
        if self.is_over():
            raise IllegalAction(f"{label!r}: the game is over")
        raise IllegalAction(
            f"{label!r} is not a legal action for seat "
            f"{self.current_player()} now (legal: {self.legal_actions()})"
        )

    def scores(self) -> list[int]:
        raise NotImplementedError

    def ranking(self) -> list[int]:
        raise NotImplementedError

    def observation(self, seat: int) -> dict[str, Any]:
        raise NotImplementedError

    def shared_observation(self, seat: int) -> dict[str, Any]:
        """``observation(seat)`` without copying the public history: for encoding at once.

        Equal to ``observation(seat)``, key order included (so the same JSON),
        but the elements of its ``history`` list may be the state's own objects,
        kept between calls and extended as actions are applied: what the
        engines build for a decision then costs the actions since the last one,
        not the whole game. Read-only, and good until the next action: the
        last element's lists grow in place as the game goes on (every other
        element is final). Every other field is fresh, as in ``observation``.
        The referee encodes it before it applies the next action; anything
        that keeps or changes an observation calls ``observation``, which is
        always a fresh structure. The default here is ``observation(seat)``.
        """
        return self.observation(seat)

    def clone(self) -> State:
        """An independent copy: every slot copied, lists and dicts one level deep.

        Engines whose state nests mutable containers deeper override this.
        """
        cls = type(self)
        copier = cls.__dict__.get("_copier")
        if copier is None:
            copier = cls._copier = _slot_copier(cls)
        return copier(self)

    def record(self) -> dict[str, Any]:
        raise NotImplementedError

    def _record_of(
        self,
        dealer: int,
        decks: list[list[str]],
        actions: list[str],
        forfeited: tuple[int, str] | None,
    ) -> dict[str, Any]:
        """The record every engine returns (DESIGN.md section 2), forfeit included."""
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "variant": self.game.id,
            "options": dict(self.game.options),
            "seed": self.seed,
            "dealer": dealer,
            "decks": decks,
            "actions": actions,
        }
        if forfeited is not None:
            record["forfeit"] = forfeit_view(forfeited)
        return record

    def forfeit(self, seat: int, reason: str = "illegal") -> None:
        """End the game because ``seat`` acted illegally (FORFEIT-2)."""
        raise NotImplementedError

    def _check_seat(self, seat: object) -> int:
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1}, got {seat!r}")
        return seat
