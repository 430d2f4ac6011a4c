"""Rebuild a stored game step by step, as a spectator sees it (no private hands).

The full view (organisers only, see ``views.game_replay``) adds every seat's hand.
"""

from __future__ import annotations

from typing import Any

import games

#: Observation fields that belong to one seat only (or repeat the whole game).
PRIVATE_FIELDS = frozenset({"hand", "seat", "history"})


def public_view(observation: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in observation.items() if k not in PRIVATE_FIELDS}


def hand_label(seat: int) -> str:
    """The key of ``seat``'s hand in a full view."""
    return f"hand seat {seat}"


def step_view(state: Any, *, full: bool) -> dict[str, Any]:
    """The public view of ``state``; with ``full``, each seat's hand as well."""
    view = public_view(state.observation(0))
    if full:
        for seat in range(state.game.num_players):
            view[hand_label(seat)] = state.observation(seat).get("hand")
    return view


def replay_steps(record: dict[str, Any], *, full: bool = False) -> list[dict[str, Any]]:
    """One step per position of the game: the action that led there and the public view.

    ``record`` is ``GameRecord.record()``; raises ``ValueError`` or
    ``games.IllegalAction`` for a record that does not replay. ``full`` adds every
    seat's hand to each view (never for spectators).
    """
    game = games.load(record["variant"], **record["options"])
    state = game.new_game(record["seed"], dealer=record["dealer"], decks=record["decks"])
    steps = [{"index": 0, "actor": None, "action": None, "view": step_view(state, full=full)}]
    for index, label in enumerate(record["actions"], start=1):
        actor = state.current_player()
        state.apply(label)
        steps.append(
            {
                "index": index,
                "actor": actor,
                "action": label,
                "view": step_view(state, full=full),
            }
        )
    return steps
