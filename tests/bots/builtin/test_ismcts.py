"""``ismcts``: legal, reproducible, within its budget, and careful with bad budgets."""

from __future__ import annotations

import random

import pytest

import games
from bots.builtin import make, names
from bots.builtin.ismcts import IsmctsBot
from bots.referee import InProcessPlayer, play_match
from games.search import choose
from tests.bots.builtin.arena import hello


def decisions(variant: str, seed: int, bot_seed: int, count: int, iterations: int = 24) -> list:
    """The first ``count`` choices of an ismcts bot at seat 0 (random bots elsewhere)."""
    game = games.load(variant)
    state = game.new_game(seed)
    bot = IsmctsBot(bot_seed, iterations=iterations)
    bot.start(hello(variant, 0, game.num_players))
    rng = random.Random(seed)
    out = []
    while not state.is_over() and len(out) < count:
        legal = state.legal_actions()
        if state.current_player() == 0 and len(legal) > 1:
            label = bot.act(state.observation(0), legal)
            assert label in legal
            out.append(label)
        else:
            label = rng.choice(legal)
        state.apply(label)
    return out


def test_ismcts_is_a_registered_builtin():
    assert "ismcts" in names()
    assert isinstance(make("ismcts", seed=3), IsmctsBot)


#: Shorter games for the legality run (the rules of play are unchanged).
SHORT = {
    "laugavatnsmanni": {"laug.stop_at": 3},
    "maniglia-3": {"maniglia.target": 30},
    "maniglia-4": {"maniglia.target": 30},
    "maniglia-5": {"maniglia.target": 30},
    "maniglia-4-partners": {"maniglia.target_partners": 8},
    "money-jordan": {"money.max_plays": 300},
    "money-egypt": {"money.max_plays": 300},
    "money-syria": {"money.max_plays": 300},
}


@pytest.mark.parametrize("variant", games.variants())
def test_ismcts_plays_only_legal_moves_through_the_referee(variant):
    n = games.load(variant).num_players
    players = [InProcessPlayer(IsmctsBot(1, iterations=16))] + [
        InProcessPlayer(make("random", seed=s)) for s in range(1, n)
    ]
    result = play_match(variant, players, games_count=1, seed=4, options=SHORT.get(variant))
    statuses = [s["status"] for s in result.games[0].statuses]
    assert statuses == ["ok"] * n, result.games[0].statuses


@pytest.mark.parametrize("variant", ["manni-hornafjordur", "maniglia-4-partners", "money-syria"])
def test_same_seed_same_choices_other_seed_other_worlds(variant):
    first = decisions(variant, 5, bot_seed=9, count=6)
    assert first == decisions(variant, 5, bot_seed=9, count=6)
    assert len(first) >= 3


def test_the_iteration_budget_bounds_the_playouts():
    game = games.load("laugavatnsmanni")
    state = game.new_game(2)
    rng = random.Random(0)
    while state.observation(0)["phase"] != "play" or state.current_player() != 0:
        state.apply(rng.choice(state.legal_actions()))
    legal = state.legal_actions()
    seen = state.observation(0)
    sampler = games.WorldSampler(game, seen)
    for budget in (1, len(legal), 5 * len(legal) + 1):
        result = choose(lambda: sampler.sample(rng), 0, legal, rng, iterations=budget)
        assert result.playouts <= max(budget, len(legal))
        assert result.worlds == max(1, budget // len(legal))
        assert result.label in legal
    timed = choose(lambda: sampler.sample(rng), 0, legal, rng, iterations=10**6, time_ms=30)
    assert 1 <= timed.worlds < 10**6 // len(legal)


def test_bot_budget_is_used_per_decision():
    variant = "maniglia-4-partners"
    bot = IsmctsBot(3, iterations=40)
    game = games.load(variant)
    state = game.new_game(1)
    bot.start(hello(variant, state.current_player(), 4))
    seat = state.current_player()
    legal = state.legal_actions()
    bot.act(state.observation(seat), legal)
    assert bot.last.playouts <= 40
    assert bot.last.worlds == 40 // len(legal)


@pytest.mark.parametrize("bad", [0, -5, True, 2.5, "100"])
def test_a_budget_that_is_not_positive_is_refused(bad):
    with pytest.raises(ValueError, match="iterations must be a positive integer"):
        IsmctsBot(0, iterations=bad)


@pytest.mark.parametrize("bad", [0, -1.0, "fast"])
def test_a_time_budget_that_is_not_positive_is_refused(bad):
    with pytest.raises(ValueError, match="time_ms must be a positive number"):
        IsmctsBot(0, time_ms=bad)


def test_choose_refuses_an_empty_legal_list():
    with pytest.raises(ValueError, match="no legal labels"):
        choose(lambda: None, 0, [], random.Random(0), iterations=5)
