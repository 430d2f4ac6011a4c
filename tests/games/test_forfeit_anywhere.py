"""A game forfeited at any point still answers every seat's observation and replays
(FORFEIT-2), whatever phase the forfeit interrupted."""

from __future__ import annotations

import json
import random

import pytest

import games


@pytest.mark.parametrize("variant", games.variants())
def test_a_game_forfeited_at_any_point_is_observed_by_every_seat_and_replays(variant):
    game = games.load(variant)
    kinds = set()  # the kinds of decision a forfeit cut short
    for seed in range(40):
        state = game.new_game(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 120)):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_over():
            continue
        kinds.add(state.legal_actions()[0].split()[0])
        state.forfeit(state.current_player())

        views = [state.observation(seat) for seat in range(game.num_players)]

        assert all(json.loads(json.dumps(view)) == view for view in views)
        assert games.replay(state.record()).observation(0) == views[0]
    assert kinds
    if game.variant.family != "money" and variant != "maniglia-4-partners":
        assert len(kinds) > 1  # before the card play too (choice, exchange, bidding)
