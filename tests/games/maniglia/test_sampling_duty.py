"""Maniglia's worlds keep the duty to beat (MANIGLIA-GEN-5) out of the hands they deal.

A seat that played a card it could not have played with another card in hand cannot
hold that card: the sampler keeps such cards out of its hand as it keeps a void's.
Checked against the truth (the real hands never hold a card said to be out of them)
and by what it is for: late in a deal, where those duties are most of what is known of
a hand, a world is found within a few draws.
"""

from __future__ import annotations

import random

import pytest

import games
from games import sampling
from games.maniglia.sampling import duty_forbidden

#: The trick-taking Maniglias, with both readings of the duty to beat.
CASES = [
    ("maniglia-3", {}),
    ("maniglia-4", {}),
    ("maniglia-4", {"maniglia.overtake": "strict"}),
    ("maniglia-4-partners", {}),
    ("maniglia-4-partners", {"maniglia.overtake": "strict"}),
    ("maniglia-5", {}),
]


def late_positions(variant: str, options: dict, count: int, seed: int):
    """Positions of random games in the card play of their first deal, from its middle
    on (where the duties have piled up), with the seat to play."""
    game = games.load(variant, **options)
    rng = random.Random(seed)
    found = 0
    while found < count:
        state = game.new_game(rng.getrandbits(32))
        while not state.is_over() and state.deal_number() == 1:
            seen = state.observation(state.current_player())
            played = sum(1 for _, a in seen["history"][-1]["actions"] if a.startswith("play "))
            if seen["phase"] == "play" and played >= len(seen["hand"]) * seen["players"] // 2:
                yield game, state
                found += 1
                break
            state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_no_real_hand_holds_a_card_the_duty_keeps_out_of_it(variant, options):
    checked = 0
    for _, state in late_positions(variant, options, 40, seed=7):
        seat = state.current_player()
        seen = state.observation(seat)
        actions = seen["history"][-1]["actions"]
        unknown = [
            c
            for other in range(seen["players"])
            if other != seat
            for c in state.observation(other)["hand"]
        ]
        for other, cards in duty_forbidden(seen, actions, unknown).items():
            held = set(state.observation(other)["hand"])
            assert not held & cards, (variant, options, other, sorted(held & cards))
            checked += len(cards)
    assert checked > 0  # the duty did keep cards out somewhere


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_late_in_a_deal_a_world_is_found_within_a_few_draws(variant, options, monkeypatch):
    # Rejection alone needed thousands of draws here, and sometimes found none.
    monkeypatch.setattr(sampling, "MAX_ATTEMPTS", 10)
    rng = random.Random(3)
    for game, state in late_positions(variant, options, 150, seed=11):
        seat = state.current_player()
        seen = state.observation(seat)
        world = games.sample_world(game, seen, rng)
        assert world.observation(seat) == seen
