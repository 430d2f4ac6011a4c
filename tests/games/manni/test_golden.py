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
    "manni-basic": "3bb3c5a011fc826032300aef1192cba14afd9017505c19ed75c86f8e047afe86",
    "manni-hornafjordur": "30785abdeb091854611615f034754e1c8379994a2756ade6ef4a4942849f0033",
    "laugavatnsmanni": "0fcd323f48a03e43b524ad4c9d3ac9217d4504135e5a795ab9e662983466ceb4",
}


#: Golden games that open with a scripted sequence, then follow the same move rule.
#: The move rule alone never reaches LAUG-7 step 3's late overcall (seed 2026
#: reaches "A declines after D's call" once, with B's great call already used).
OPENINGS = {
    "laugavatnsmanni": (
        ("announce clubs", "pass", "great diamonds", "pass", "great spades"),  # EX-LAUG-6
        "2223326e76067252ab959d57e72cfd607f0547a6bf3573f1d62c394e3e66baef",
    ),
}


def playthrough(variant: str, opening: tuple[str, ...] = ()) -> dict:
    state = games.load(variant).new_game(2026)
    for label in opening:
        state.apply(label)
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


@pytest.mark.parametrize("variant", sorted(OPENINGS))
def test_golden_record_after_a_scripted_opening_is_stable(variant):
    """COMMON-3, LAUG-7, EX-LAUG-6: B overcalls the dealer late in deal 1, then the move rule."""
    opening, pinned = OPENINGS[variant]
    record = playthrough(variant, opening)
    assert record["actions"][: len(opening)] == list(opening)
    digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
    assert digest == pinned, f"{variant} record changed: {digest}"
