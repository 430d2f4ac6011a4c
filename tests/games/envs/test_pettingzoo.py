"""The PettingZoo wrapper (games/envs/pettingzoo.py): PettingZoo's own tests, for every variant."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("pettingzoo", reason="the 'rl' extra is not installed: pip install '.[rl]'")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, performance_benchmark, seed_test  # noqa: E402

import games  # noqa: E402
from games.envs.encoding import Encoder  # noqa: E402
from games.envs.pettingzoo import env  # noqa: E402
from tests.games.oracles import FAMILIES  # noqa: E402

CASES = [
    pytest.param(variant, options, id=f"{variant}-{json.dumps(options, sort_keys=True)}")
    for module in FAMILIES.values()
    for variant, options in module.CASES
]


@pytest.mark.parametrize("variant", games.variants())
def test_pettingzoo_api_and_seed_tests_pass(variant):
    api_test(env(variant), num_cycles=200)
    seed_test(lambda: env(variant), num_cycles=200)


def play(e, seed: int, rnd: random.Random, limit: int = 100_000) -> list[float]:
    """Play one game with random legal actions; return the final rewards per agent."""
    e.reset(seed=seed)
    total = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        total[agent] += reward
        assert obs["observation"].shape == (e.encoder.size,)
        assert obs["observation"].dtype == np.float32
        assert np.all(np.abs(obs["observation"]) <= 1.0)
        if termination or truncation:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert sorted(legal.tolist()) == e.state.legal_ids()
        e.step(int(rnd.choice(legal.tolist())))
        steps += 1
        assert steps < limit
    return [total[a] for a in e.possible_agents]


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_every_option_set_plays_to_the_end_with_zero_sum_rewards(variant, options):
    e = env(variant, **options)
    rewards = play(e, 11, random.Random(1))
    assert abs(sum(rewards)) < 1e-9
    assert all(-1.0 <= r <= 1.0 for r in rewards)
    ranking = e.state.ranking()
    best = [r for r, rank in zip(rewards, ranking, strict=True) if rank == 1]
    assert max(rewards) in best
    if e.game.variant.teams:
        for team in e.game.variant.teams:
            assert len({rewards[s] for s in team}) == 1


@pytest.mark.parametrize("variant", games.variants())
def test_a_seed_reproduces_the_game(variant):
    records = []
    for _ in range(2):
        e = env(variant)
        play(e, 42, random.Random(5))
        records.append(e.state.record())
        # A reset without a seed deals the next game of the seeded sequence.
        e.reset()
        records.append(e.state.record()["seed"])
    assert records[0] == records[2] and records[1] == records[3]
    assert records[0]["seed"] == 42
    assert records[1] != 42


@pytest.mark.parametrize("variant", games.variants())
def test_an_illegal_action_raises_and_changes_nothing(variant):
    e = env(variant)
    e.reset(seed=3)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = (json.dumps(e.state.record()), e.agent_selection, dict(e.rewards))
    for bad in (illegal, -1, e.num_actions, "play AS", 1.5, None):
        with pytest.raises(games.IllegalAction, match="action"):
            e.step(bad)
    assert (json.dumps(e.state.record()), e.agent_selection, dict(e.rewards)) == before
    assert np.array_equal(e.observe(e.agent_selection)["action_mask"], obs["action_mask"])


def test_unknown_variant_and_options_are_named():
    with pytest.raises(ValueError, match="'no-such-game'"):
        env("no-such-game")
    with pytest.raises(ValueError, match="'manni_colour'"):
        env("manni-basic", manni_colour="red")
    with pytest.raises(ValueError, match="'sometimes'"):
        env("manni-basic", manni_tie="sometimes")
    with pytest.raises(ValueError, match="'3d'"):
        env("manni-basic", render_mode="3d")


@pytest.mark.parametrize("variant", games.variants())
def test_the_hand_block_is_the_seats_hand(variant):
    e = env(variant)
    e.reset(seed=9)
    enc = e.encoder
    names = {i: name for name, i in enc.cards.items()}
    for seat, agent in enumerate(e.possible_agents):
        vector = e.observe(agent)["observation"]
        obs = e.state.observation(seat)
        if enc.family == "money":
            start = enc.offsets["pile"]
            pile = {names[i] for i in np.flatnonzero(vector[start : start + len(names)])}
            assert pile == set(obs["pile"])
        else:
            start = enc.offsets["hand"]
            hand = {names[i] for i in np.flatnonzero(vector[start : start + len(names)])}
            assert hand == set(obs["hand"])
        phase = enc.offsets["phase"]
        assert vector[phase + enc.phases.index(obs["phase"])] == 1.0


def test_layouts_are_contiguous_and_documented():
    for variant in games.variants():
        enc = Encoder(games.load(variant))
        position = 0
        for _name, start, length in enc.layout:
            assert start == position and length > 0
            position += length
        assert position == enc.size


@pytest.mark.slow
def test_performance_benchmark_runs():
    performance_benchmark(env("manni-basic"))


SMALL_DECKS = [
    ("manni-basic", {"manni_ranks": 3}),
    ("manni-basic", {"manni_ranks": 6}),
    ("maniglia-3", {"maniglia_ranks": 3}),
    ("maniglia-4", {"maniglia_ranks": 2}),
]


@pytest.mark.parametrize(("variant", "options"), SMALL_DECKS)
def test_small_decks_pass_the_api_and_seed_tests(variant, options):
    api_test(env(variant, **options), num_cycles=200)
    seed_test(lambda: env(variant, **options), num_cycles=200)


@pytest.mark.parametrize(("variant", "options"), SMALL_DECKS)
def test_a_small_deck_keeps_the_full_layout_and_masks_only_its_cards(variant, options):
    """The observation and the action space are the full deck's (a policy's shapes do not
    change with the option); a card outside the small pack is never in a hand, a trick or
    the mask."""
    e = env(variant, **options)
    full = env(variant)
    assert e.encoder.size == full.encoder.size
    assert e.action_space(e.possible_agents[0]).n == full.action_space(e.possible_agents[0]).n
    ranks = next(iter(options.values()))
    order = "23456789TJQKA" if variant.startswith("manni") else "23456JNKA7"
    absent = {i for name, i in e.encoder.cards.items() if name[0] in order[: len(order) - ranks]}
    labels = type(e.game.new_game(0)).LABELS
    e.reset(seed=3)
    rnd = random.Random(3)
    for _agent in e.agent_iter():
        obs, _, termination, truncation, _ = e.last()
        vector = obs["observation"]
        for name in ("hand", "trick", "played"):
            _, start, length = next(f for f in e.encoder.layout if f[0] == name)
            ones = {
                (i - start) % len(e.encoder.cards)
                for i in np.flatnonzero(vector[start : start + length])
            }
            assert not ones & absent, name
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        played = [labels[a][5:] for a in legal if labels[a].startswith("play ")]
        assert not {e.encoder.cards[c] for c in played} & absent
        e.step(None if termination or truncation else int(rnd.choice(legal)))


def test_a_bad_small_deck_is_named():
    with pytest.raises(ValueError, match=r"option manni\.ranks must be one of 3, 6, 9, 12, got 5"):
        env("manni-basic", manni_ranks=5)
    with pytest.raises(ValueError, match=r"option maniglia\.ranks must be one of 5, 10, got 3"):
        env("maniglia-5", maniglia_ranks=3)


@pytest.mark.parametrize("variant", games.variants())
def test_the_incremental_vector_is_the_rebuilt_one_at_every_step(variant):
    """``Encoder.encode`` keeps each seat's vector up to date through card play; at every
    step of a random game (a new deal, a bid, a forfeit included) it equals the vector
    built afresh from the observation, for every seat."""
    game = games.load(variant, **({"money.max_plays": 200} if "money" in variant else {}))
    kept, fresh = Encoder(game), Encoder(game)
    state = game.new_game(9)
    rnd = random.Random(9)
    for step in range(400):
        for seat in range(game.num_players):
            rebuilt = fresh._encode(state, state.shared_observation(seat), seat)
            assert np.array_equal(kept.encode(state, seat), rebuilt), f"step {step} seat {seat}"
        if state.is_over():
            break
        if step == 390:
            state.forfeit(state.current_player())
            continue
        state.apply_id(rnd.choice(state.legal_ids()))
    assert kept.incremental == (game.variant.family != "money")


@pytest.mark.parametrize("variant", games.variants())
def test_the_environment_pickles_to_an_equal_one_mid_game(variant):
    import pickle

    e = env(variant, **({"money_max_plays": 200} if "money" in variant else {}))
    e.reset(seed=4)
    for _ in range(12):
        obs, *_ = e.last()
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    copy = pickle.loads(pickle.dumps(e))
    assert copy.state.record() == e.state.record()
    assert copy.agent_selection == e.agent_selection and copy.game_seed == e.game_seed
    for _ in range(5):  # both go on alike
        mine, theirs = e.last(), copy.last()
        assert np.array_equal(mine[0]["observation"], theirs[0]["observation"])
        assert np.array_equal(mine[0]["action_mask"], theirs[0]["action_mask"])
        action = int(np.flatnonzero(mine[0]["action_mask"])[0])
        e.step(action)
        copy.step(action)
