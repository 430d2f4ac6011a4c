"""The steps of a replay: each action, the public view after it and its table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import games
from games.cards import FRENCH_INDEX, LATIN_INDEX
from games.money.rules import INDEX as MONEY_INDEX
from games.money.rules import NAMES as MONEY_NAMES
from tournaments.watching.replay import maniglia, manni, money
from tournaments.watching.replay.common import Move, Replay, generic

#: Observation fields that belong to one seat only (or repeat the whole game).
PRIVATE_FIELDS = frozenset({"hand", "seat", "history", "out_of_play"})
#: The pack of each family's variants (``Variant.pack``; ``replay_meta`` reads the
#: variant's own): it decides how cards are drawn.
PACKS = {games.variant_info(v).family: games.variant_info(v).pack for v in games.variants()}
#: Every card label of each family's pack (Money adds the jokers ``X1``, ``X2``).
CARD_LABELS = {
    "manni": frozenset(FRENCH_INDEX),
    "maniglia": frozenset(LATIN_INDEX),
    "money": frozenset(MONEY_INDEX),
}

#: Per family: the table shaper and the view fields it shows (the others go to ``extra``).
TABLES: dict[str, tuple[Callable[..., dict[str, Any]], frozenset[str]]] = {
    "manni": (manni.manni_table, manni.SHOWN),
    "maniglia": (maniglia.maniglia_table, maniglia.SHOWN),
    "money": (money.money_table, money.SHOWN),
}


def replay_meta(record: dict[str, Any], *, names: list[str]) -> dict[str, Any]:
    """What the page needs besides the steps: the seat names and the pack to draw."""
    variant = games.variant_info(record["variant"])
    return {"names": names, "pack": variant.pack, "family": variant.family}


def public_view(observation: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in observation.items() if k not in PRIVATE_FIELDS}


def hand_label(seat: int) -> str:
    """The key of ``seat``'s hand in a full view."""
    return f"hand seat {seat}"


def replay_steps(
    record: dict[str, Any], *, full: bool = False, seats: frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    """One step per position of the game: ``{index, actor, action, view, table}``.

    ``record`` is ``GameRecord.record()``; a forfeit in it is the last step.
    ``full`` adds every seat's private cards to each view and table (never for
    spectators); without it another seat's discard reads ``discard``. ``seats`` adds
    the private cards of those seats only (a seat's owner; Money's stacks stay hidden,
    MONEY-JO-3). Raises
    ``ValueError`` or ``games.IllegalAction`` for a record that does not replay.
    """
    game = games.load(record["variant"], **record["options"])
    replay = Replay(
        variant=game.id,
        family=game.variant.family,
        options=dict(game.options),
        players=game.num_players,
        full=full,
        shown=frozenset() if full or game.variant.family == "money" else frozenset(seats),
    )
    state = game.new_game(record["seed"], dealer=record["dealer"], decks=record["decks"])
    steps = [make_step(state, replay, 0, Move(None, None, None))]
    for index, label in enumerate(record["actions"], start=1):
        actor = state.current_player()
        state.apply(label)
        steps.append(make_step(state, replay, index, Move(actor, label, steps[-1]["view"])))
    forfeit = record.get("forfeit")
    if forfeit is not None:
        reason = forfeit.get("reason", "illegal")
        state.forfeit(forfeit["seat"], reason)
        move = Move(forfeit["seat"], f"forfeit: {reason}", steps[-1]["view"])
        steps.append(make_step(state, replay, len(steps), move))
    return steps


def make_step(state: Any, replay: Replay, index: int, move: Move) -> dict[str, Any]:
    seen = state.observation(0)
    public = public_view(seen)
    history = seen.get("history") or [None]
    move = Move(move.actor, move.label, move.before, history[-1])
    private = private_cards(state, replay) if replay.full or replay.shown else None
    if private is not None and not replay.full:  # only the shown seats' own cards
        private = [areas if s in replay.shown else {} for s, areas in enumerate(private)]
    view = dict(public)
    for seat, areas in enumerate(private or []):
        for name, cards in areas.items():
            view[f"{name} seat {seat}"] = cards
    shape, shown = TABLES[replay.family]
    table = shape(replay, public, move, private)
    labels = CARD_LABELS[replay.family]
    table["extra"] = [[k, generic(v, labels)] for k, v in public.items() if k not in shown]
    if state.is_over():
        table["result"] = {"scores": state.scores(), "ranking": state.ranking()}
    action = move.label
    if action is not None and not replay.full:
        action = public_label(replay.family, action)
    table.setdefault("move", action)  # the move list's line
    return {"index": index, "actor": move.actor, "action": action, "view": view, "table": table}


def public_label(family: str, label: str) -> str:
    """``label`` as the other seats see it: a Manni discard is face down (docs/games/manni.md)."""
    if family == "manni" and label.startswith("discard "):
        return "discard"
    return label


def private_cards(state: Any, replay: Replay) -> list[dict[str, list[str]]]:
    """Per seat, its private cards by name: hand (and cards out of play), or Money's stack."""
    if replay.family == "money":
        # Nobody sees a stack, not even its owner (MONEY-JO-3): only the state knows it.
        return [{"stack": [MONEY_NAMES[c] for c in stack]} for stack in state.stacks]
    out = []
    for seat in range(replay.players):
        observation = state.observation(seat)
        areas = {"hand": observation.get("hand") or []}
        if "out_of_play" in observation:
            areas["out of play"] = observation["out_of_play"]
        out.append(areas)
    return out
