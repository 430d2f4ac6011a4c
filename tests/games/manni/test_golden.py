"""Golden playthroughs: a seed and a fixed move rule pin the whole game, byte for byte.

If one of these changes, a deal pattern, the shuffle or a rule changed: every
stored record would replay differently. Update the pins only on purpose.
"""

from __future__ import annotations

import hashlib
import json

import pytest

import games

PINNED = {
    "manni-basic": "4e8f7be51d3f6a45965a0ad034b89a1f7b5e0a1ed3aaa29981baaecd05e1bcb9",
    "manni-hornafjordur": "30785abdeb091854611615f034754e1c8379994a2756ade6ef4a4942849f0033",
    "laugavatnsmanni": "0fcd323f48a03e43b524ad4c9d3ac9217d4504135e5a795ab9e662983466ceb4",
}


def playthrough(variant: str) -> dict:
    state = games.load(variant).new_game(2026)
    step = 0
    while not state.is_over():
        legal = state.legal_actions()
        state.apply(legal[(step * 7) % len(legal)])
        step += 1
    return state.record()


@pytest.mark.parametrize("variant", sorted(PINNED))
def test_golden_record_is_stable(variant):
    """COMMON-3: the same seed gives the same game on every machine and Python version."""
    record = playthrough(variant)
    digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
    assert digest == PINNED[variant], f"{variant} record changed: {digest}"
