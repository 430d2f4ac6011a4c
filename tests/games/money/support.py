"""Helpers for Money tests: explicit positions and filler numerals."""

from __future__ import annotations

import games
from games.money.state import MoneyState

NUMERALS = [r + s for s in "SHDC" for r in "A23456789T"]


def position(variant_id: str, options: dict | None = None, **kwargs) -> MoneyState:
    """A state built by ``MoneyState.from_position`` for ``variant_id``."""
    game = games.load(variant_id, **(options or {}))
    return game.variant.state_class.from_position(game, **kwargs)


def filler(n: int, *avoid: list[str]) -> list[str]:
    """``n`` numeral labels not in any of the ``avoid`` lists."""
    used = {c for group in avoid for c in group}
    out = [c for c in NUMERALS if c not in used][:n]
    assert len(out) == n
    return out
