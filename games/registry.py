"""The variant registry: ``load``, ``variants`` and ``replay``."""

from __future__ import annotations

from typing import Any

from games.core import Game, IllegalAction, State, Variant

_VARIANTS: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    if variant.id in _VARIANTS:
        raise ValueError(f"variant {variant.id} registered twice")
    _VARIANTS[variant.id] = variant
    return variant


def variants() -> list[str]:
    """The ids of every registered variant, sorted."""
    return sorted(_VARIANTS)


def variant_info(variant_id: str) -> Variant:
    try:
        return _VARIANTS[variant_id]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown variant {variant_id!r} " f"(known: {', '.join(variants())})"
        ) from None


def load(variant_id: str, **options: Any) -> Game:
    """The game ``variant_id`` with ``options`` (dotted names or ``a_b`` keywords)."""
    return Game(variant_info(variant_id), options)


# -- pickling (``games/__init__.py`` sets these as the classes' ``__reduce__``) ----
def reduce_variant(variant: Variant) -> tuple[Any, ...]:
    """A variant pickles as its id: the registry's comes back (its options hold code)."""
    return (variant_info, (variant.id,))


def reduce_game(game: Game) -> tuple[Any, ...]:
    """A game pickles as its variant id and options."""
    return (load_options, (game.id, dict(game.options)))


def reduce_state(state: State) -> tuple[Any, ...]:
    """A state pickles as its record, replayed (every action checked) when loaded."""
    return (restore, (state.record(), bool(getattr(state, "deck_wait", False))))


def load_options(variant_id: str, options: dict[str, Any]) -> Game:
    """``load`` with the options as one dict (dotted names): how a pickled game comes back."""
    return Game(variant_info(variant_id), options)


def restore(record: dict[str, Any], await_decks: bool = False) -> State:
    """A pickled state back: ``replay(record)``, still waiting for decks if it was."""
    return replay(record, await_decks=await_decks)


def replay(record: dict[str, Any], *, await_decks: bool = False) -> State:
    """Rebuild the state a record describes by replaying every action.

    Raises ``ValueError`` for a malformed record and ``IllegalAction`` if an
    action in it is not legal where it stands.
    """
    if not isinstance(record, dict):
        raise ValueError(f"a record must be a dict, got {type(record).__name__}")
    missing = [
        k for k in ("variant", "options", "seed", "dealer", "decks", "actions") if k not in record
    ]
    if missing:
        raise ValueError(f"record lacks {', '.join(missing)}")
    game = load(record["variant"], **record["options"])
    state = game.new_game(
        record["seed"], dealer=record["dealer"], decks=record["decks"], await_decks=await_decks
    )
    for i, label in enumerate(record["actions"]):
        try:
            state.apply(label)
        except IllegalAction as exc:
            raise IllegalAction(f"record action {i}: {exc}") from None
    forfeit = record.get("forfeit")
    if forfeit is not None:
        state.forfeit(forfeit["seat"], forfeit.get("reason", "illegal"))
    return state
