"""Rebuild a stored game step by step, as a spectator sees it (no private hands)."""

from __future__ import annotations

from typing import Any

import games

#: Observation fields that belong to one seat only (or repeat the whole game).
PRIVATE_FIELDS = frozenset({"hand", "seat", "history"})


def public_view(observation: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in observation.items() if k not in PRIVATE_FIELDS}


def replay_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One step per position of the game: the action that led there and the public view.

    ``record`` is ``GameRecord.record()``; raises ``ValueError`` or
    ``games.IllegalAction`` for a record that does not replay.
    """
    game = games.load(record["variant"], **record["options"])
    state = game.new_game(record["seed"], dealer=record["dealer"], decks=record["decks"])
    steps = [{"index": 0, "actor": None, "action": None, "view": public_view(state.observation(0))}]
    for index, label in enumerate(record["actions"], start=1):
        actor = state.current_player()
        state.apply(label)
        steps.append(
            {
                "index": index,
                "actor": actor,
                "action": label,
                "view": public_view(state.observation(0)),
            }
        )
    return steps
