"""The search's playouts: trump and sides from the world, rule-based other decisions,
and the Maniglia auction narrowed to the rule-based bid and its alternative."""

from __future__ import annotations

import random

import games
from bots.builtin.greedy import GreedyBot, strategy_for
from bots.builtin.ismcts import IsmctsBot, alternative
from games.search import Playout, choose
from tests.bots.builtin.arena import hello


def reach(variant: str, seed: int, phase: str, seat: int | None = None):
    """A game of ``variant`` played by greedy until ``phase`` (for ``seat``, if given)."""
    game = games.load(variant)
    state = game.new_game(seed)
    bots = [GreedyBot(s) for s in range(game.num_players)]
    for s, bot in enumerate(bots):
        bot.start(hello(variant, s, game.num_players))
    for _ in range(10_000):
        player = state.current_player()
        observation = state.observation(player)
        legal = state.legal_actions()
        if observation["phase"] == phase and len(legal) > 1 and seat in (None, player):
            return game, state, player
        state.apply(bots[player].act(observation, legal))
    raise AssertionError(f"no {phase} decision reached")


def test_a_playout_from_the_trump_call_plays_its_tricks_with_that_trump():
    game, state, seat = reach("maniglia-3", 3, "trump")
    observation = state.observation(seat)
    policy = Playout(game, observation)
    assert policy.trump == -1  # no trump named yet
    for label, index in (("trump D", 0), ("trump B", 3)):
        world = games.WorldSampler(game, observation).sample(random.Random(1))
        policy.run(world, label, random.Random(2), None)
        assert policy.trump == index
        # The declarer against the rest: the sides the playout's points were counted by.
        assert policy.last_team == [0 if s == seat else 1 for s in range(3)]
    assert policy.shaping(seat) != 0.0


def test_the_playouts_other_decisions_go_to_the_given_rule():
    game, state, seat = reach("maniglia-4", 2, "auction")
    observation = state.observation(seat)
    asked = []
    rule = strategy_for("maniglia-4", {})

    def other(seen, legal):
        asked.append((seen["seat"], seen["phase"], tuple(legal)))
        return rule(seen, legal)

    policy = Playout(game, observation, other=other)
    world = games.WorldSampler(game, observation).sample(random.Random(4))
    policy.run(world, "pass", random.Random(5), None)
    assert asked, "the rule was never asked"
    assert all(phase in ("auction", "trump") for _, phase, _ in asked)
    assert all(legal for _, _, legal in asked)
    # A playout that starts in the auction still plays the deal to its end.
    assert world.deal != state.deal or world.is_over()


def test_the_auction_is_searched_between_the_rule_bid_and_its_alternative():
    variant = "maniglia-4"
    game, state, seat = reach(variant, 6, "auction")
    observation, legal = state.observation(seat), state.legal_actions()
    default = GreedyBot(0)
    default.start(hello(variant, seat, 4))
    rule = default.act(observation, legal)
    other = alternative(observation, legal, rule)
    assert other is not None and other != rule
    assert {rule, other} <= set(legal) and "pass" in (rule, other)
    bot = IsmctsBot(1, iterations=40)
    bot.start(hello(variant, seat, 4))
    label = bot.act(observation, legal)
    assert set(bot.last.values) == {rule, other}
    assert bot.last.worlds == 20
    assert label in (rule, other)
    assert label == (bot.last.label if bot.overrode else rule)


def test_a_rule_phase_is_left_to_the_rule_based_player():
    variant = "maniglia-4"
    game, state, seat = reach(variant, 6, "auction")
    bot = IsmctsBot(1, iterations=40, rule_phases=("auction",))
    bot.start(hello(variant, seat, 4))
    default = GreedyBot(0)
    default.start(hello(variant, seat, 4))
    observation, legal = state.observation(seat), state.legal_actions()
    assert bot.act(observation, legal) == default.act(observation, legal)
    assert bot.last is None and not bot.overrode


def test_money_playouts_run_for_the_horizon_given():
    game, state, seat = reach("money-syria", 1, "purchase")
    observation, legal = state.observation(seat), state.legal_actions()
    sampler = games.WorldSampler(game, observation)
    grown = {}
    for horizon in (10, 80):
        world = sampler.sample(random.Random(3))
        before = len(world.action_labels())
        Playout(game, observation).run(world, legal[0], random.Random(3), horizon)
        grown[horizon] = len(world.action_labels()) - before
    assert 1 < grown[10] <= 11  # the label searched, then at most ``horizon`` actions
    assert grown[10] < grown[80] <= 81
    rng = random.Random(0)
    result = choose(
        lambda: sampler.sample(rng), seat, legal, rng, iterations=len(legal), money_horizon=5
    )
    assert result.worlds == 1 and result.label in legal


def test_variant_settings_apply_unless_given(monkeypatch):
    import bots.builtin.ismcts as ismcts

    monkeypatch.setitem(ismcts.VARIANT_SETTINGS, "money-egypt", {"money_horizon": 7})
    bot = IsmctsBot(0)
    bot.start(hello("money-egypt", 0, 2))
    assert bot.money_horizon == 7 and bot.rule_phases == ismcts.RULE_PHASES
    given = IsmctsBot(0, money_horizon=9, rule_phases=("purchase",))
    given.start(hello("money-egypt", 0, 2))
    assert given.money_horizon == 9 and given.rule_phases == ("purchase",)
    other = IsmctsBot(0)
    other.start(hello("money-jordan", 0, 2))
    assert other.money_horizon == ismcts.MONEY_HORIZON


def test_the_five_player_auction_is_left_to_greedy_by_default():
    game, state, seat = reach("maniglia-5", 6, "auction")
    bot = IsmctsBot(1, iterations=40)
    bot.start(hello("maniglia-5", seat, 5))
    assert bot.rule_phases == ("auction",)
    default = GreedyBot(0)
    default.start(hello("maniglia-5", seat, 5))
    observation, legal = state.observation(seat), state.legal_actions()
    assert bot.act(observation, legal) == default.act(observation, legal)
    assert bot.last is None


def test_money_syria_overrules_greedy_only_at_three_standard_errors():
    bot = IsmctsBot(0)
    bot.start(hello("money-syria", 0, 2))
    assert bot.z == 3.0
    jordan = IsmctsBot(0)
    jordan.start(hello("money-jordan", 0, 2))
    assert jordan.z == 2.0
    given = IsmctsBot(0, z=1.5)
    given.start(hello("money-syria", 0, 2))
    assert given.z == 1.5
