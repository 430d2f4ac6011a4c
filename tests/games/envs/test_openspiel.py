"""The OpenSpiel wrapper (games/envs/openspiel.py): OpenSpiel's own tests and its IS-MCTS bot."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("pyspiel", reason="the 'rl' extra is not installed: pip install '.[rl]'")

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import games  # noqa: E402
import games.envs.openspiel as cardroom_spiel  # noqa: E402

#: Money games are long (a random game runs to thousands of plays): the tests cap them.
SHORT = {"money_max_plays": 150}


def load(variant: str) -> pyspiel.Game:
    params = SHORT if variant.startswith("money") else {}
    return pyspiel.load_game(cardroom_spiel.game_name(variant), params)


def deal(state, rnd: random.Random) -> None:
    """Play chance outcomes (each with its probability) until a decision or the end."""
    while state.is_chance_node():
        outcomes, weights = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rnd.choices(outcomes, weights)[0])


def play(state, rnd: random.Random, decisions: int) -> None:
    """Deal and decide at random for ``decisions`` decisions (or to the end)."""
    for _ in range(decisions):
        deal(state, rnd)
        if state.is_terminal():
            return
        state.apply_action(rnd.choice(state.legal_actions()))


def test_every_variant_is_registered_under_its_name():
    registered = set(pyspiel.registered_names())
    for variant in games.variants():
        name = "python_cardroom_" + variant.replace("-", "_")
        assert name in registered
        game = pyspiel.load_game(name)
        assert game.num_players() == games.variant_info(variant).players
        assert game.num_distinct_actions() == games.variant_info(variant).num_distinct_actions


def test_options_are_game_parameters_and_bad_ones_are_named():
    game = pyspiel.load_game("python_cardroom_manni_basic", {"manni_tie": "play-on"})
    assert game.cardroom.options["manni.tie"] == "play-on"
    with pytest.raises(Exception, match="sometimes"):
        pyspiel.load_game("python_cardroom_manni_basic", {"manni_tie": "sometimes"})


@pytest.mark.slow
@pytest.mark.parametrize("variant", games.variants())
def test_random_sim_test_passes_serialising_every_state(variant):
    pyspiel.random_sim_test(load(variant), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", games.variants())
def test_a_random_game_matches_the_engine(variant):
    """Chance deals the engine its decks; every decision, tensor and string is the
    engine's, and the record replays to the same ranking."""
    game = load(variant)
    state = game.new_initial_state()
    assert state.is_chance_node()
    rnd = random.Random(7)
    deals = 0
    while not state.is_terminal():
        if state.is_chance_node():
            deal(state, rnd)
            deals += 1
            continue
        engine = state.engine
        assert state.legal_actions() == engine.legal_ids()
        seat = state.current_player()
        tensor = np.array(state.observation_tensor(seat), dtype=np.float32)
        assert np.array_equal(tensor, game.encoder.encode(engine, seat))
        text = json.loads(state.information_state_string(seat))
        assert text == engine.observation(seat)
        assert "history" not in json.loads(state.observation_string(seat))
        state.apply_action(rnd.choice(state.legal_actions()))
    record = state.engine.record()
    assert len(record["decks"]) == deals  # one chance sequence per deal
    replayed = games.replay(record)
    assert state.returns() == pytest.approx(cardroom_spiel.utilities(replayed.ranking()))
    assert sum(state.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("variant", games.variants())
def test_resampled_states_keep_the_seats_information_state(variant):
    game = load(variant)
    state = game.new_initial_state()
    rnd = random.Random(3)
    for _ in range(25):
        deal(state, rnd)
        if state.is_terminal():
            break
        seat = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.legal_actions() == state.legal_actions()
        assert len(world.history()) == len(state.history())  # a history of the same shape
        world.apply_action(world.legal_actions()[0])  # the original is untouched
        assert len(world.history()) == len(state.history()) + 1
        state.apply_action(rnd.choice(state.legal_actions()))


#: The random rollouts' most actions (OpenSpiel's ``RandomRolloutEvaluator(max_length=)``).
ROLLOUT = 60
#: The decisions IS-MCTS takes; the game is then played to its end at random. More than a
#: deal in every variant (a Manni deal is some 50 decisions, a Maniglia deal at most 60
#: with its auction), so the search resamples worlds across a new deal too; a whole
#: Manni game of some 200 deals took the search up to two minutes.
SEARCHED = 150


@pytest.mark.slow
@pytest.mark.parametrize("variant", games.variants())
def test_open_spiels_ismcts_bot_plays_into_a_game_that_then_ends(variant):
    game = load(variant)
    rng = np.random.RandomState(5)
    # Rollouts of at most a deal or so (``max_length``): rolled out to the end of the
    # game, each search would cost the whole rest of a Manni game of many deals.
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng, max_length=ROLLOUT)
    bots = [
        ismcts.ISMCTSBot(
            game=game,
            evaluator=evaluator,
            uct_c=2.0,
            max_simulations=4,
            max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            random_state=rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            use_observation_string=False,
            allow_inconsistent_action_sets=False,
        )
        for _ in range(game.num_players())
    ]
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
            continue
        if searched < SEARCHED:
            action = bots[state.current_player()].step(state)
            searched += 1
        else:
            action = state.legal_actions()[rng.randint(len(state.legal_actions()))]
        assert action in state.legal_actions()
        state.apply_action(action)
    assert sum(state.returns()) == pytest.approx(0.0)


#: Small decks (``manni.ranks``, ``maniglia.ranks``): games small enough for tabular
#: methods. The Maniglia one is one deal with the least auction (docs/training.md).
SMALL = {
    "manni-basic": {"manni_ranks": 3},
    "maniglia-4": {"maniglia_ranks": 1, "maniglia_target": 1, "maniglia_all_pass": "dealer-forced"},
    "maniglia-3": {"maniglia_ranks": 3},
}


def load_small(variant: str) -> pyspiel.Game:
    return pyspiel.load_game(cardroom_spiel.game_name(variant), SMALL[variant])


def test_a_small_deck_is_a_game_parameter_and_a_bad_one_is_named():
    game = pyspiel.load_game("python_cardroom_manni_basic", {"manni_ranks": 3})
    assert game.cardroom.canonical() == "manni-basic(manni.ranks=3)"
    assert (
        game.num_distinct_actions()
        == pyspiel.load_game("python_cardroom_manni_basic").num_distinct_actions()
    )
    game = pyspiel.load_game("python_cardroom_maniglia_4(maniglia_ranks=3)")
    assert game.cardroom.options["maniglia.target"] == 51  # the value of one small deal
    game = pyspiel.load_game(
        "python_cardroom_maniglia_4", {"maniglia_ranks": 3, "maniglia_target": 90}
    )
    assert game.cardroom.options["maniglia.target"] == 90
    with pytest.raises(ValueError, match=r"option manni\.ranks must be one of 3, 6, 9, 12, got 4"):
        pyspiel.load_game("python_cardroom_manni_basic", {"manni_ranks": 4})
    with pytest.raises(ValueError, match=r"option maniglia\.ranks must be one of 3, 6, 9, got 10"):
        pyspiel.load_game("python_cardroom_maniglia_3", {"maniglia_ranks": 10})


@pytest.mark.parametrize("variant", sorted(SMALL))
def test_random_sim_test_passes_with_a_small_deck(variant):
    pyspiel.random_sim_test(load_small(variant), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", sorted(SMALL))
def test_small_deck_resampling_deals_only_the_small_pack(variant):
    game = load_small(variant)
    pack = set(game.cardroom.new_game(0).record()["decks"][0])
    state = game.new_initial_state()
    rnd = random.Random(5)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    while True:
        deal(state, rnd)
        if state.is_terminal():
            break
        seat = state.current_player()
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert all(set(deck) == pack for deck in world.engine.record()["decks"])
        state.apply_action(rnd.choice(state.legal_actions()))


@pytest.mark.parametrize("variant", ["manni-basic", "maniglia-4"])
def test_outcome_sampling_mccfr_runs_on_a_small_deck(variant):
    """A tabular method runs: OpenSpiel's outcome-sampling MCCFR keeps a table of regrets
    per information state; its average policy is a distribution over legal actions."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = load_small(variant)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    np.random.seed(1)
    for _ in range(30):
        solver.iteration()
    assert len(solver._infostates) > 30  # the solver's table
    policy = solver.average_policy()
    state = game.new_initial_state()
    deal(state, random.Random(0))
    probabilities = policy.action_probabilities(state)
    assert set(probabilities) == set(state.legal_actions())
    assert sum(probabilities.values()) == pytest.approx(1.0)
