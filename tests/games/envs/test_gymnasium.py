"""The single-agent Gymnasium environment (games/envs/gymnasium.py)."""

from __future__ import annotations

import pickle
import warnings

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install '.[rl]'")
pytest.importorskip("pyspiel", reason="the 'rl' extra is not installed: pip install '.[rl]'")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv  # noqa: E402

import games  # noqa: E402
from games.envs.gymnasium import env  # noqa: E402

SHORT = {"money_max_plays": 150}


def make(variant: str, **kwargs):
    return env(variant, **kwargs, **(SHORT if variant.startswith("money") else {}))


def first_legal(observation) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.mark.parametrize("variant", games.variants())
def test_gymnasiums_checker_passes_and_a_game_plays_to_its_result(variant):
    e = make(variant, opponents="random")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning fails the test
        check_env(e, skip_render_check=True)
    obs, info = e.reset(seed=3)
    done, reward = False, 0.0
    while not done:
        assert obs["action_mask"].any() and e.state.current_player() == info["seat"]
        assert e.action_masks().tolist() == obs["action_mask"].astype(bool).tolist()
        obs, reward, done, truncated, info = e.step(first_legal(obs))
        assert not truncated
    assert not obs["action_mask"].any()
    assert reward == pytest.approx(games.envs.pettingzoo.utilities(e.state.ranking())[info["seat"]])


def test_opponents_are_names_bots_or_policies_and_the_seat_rotates():
    seen: list[int] = []

    def policy(observation):
        seen.append(first_legal(observation))
        return seen[-1]

    class Last:
        name = "last"

        def act(self, observation, legal):
            return legal[-1]

    e = env("maniglia-3", opponents=["greedy", policy])
    seats = [e.reset(seed=4)[1]["seat"], e.reset()[1]["seat"], e.reset()[1]["seat"]]
    assert seats == [1, 2, 0]  # (seed + game) % players
    obs, _ = e.reset(seed=4)
    while not e.state.is_over():
        obs, *_ = e.step(first_legal(obs))
    assert seen  # the policy played its seat
    e = env("manni-basic", opponents=Last(), seat=2)
    assert e.reset(seed=1)[1]["seat"] == 2 and e.reset()[1]["seat"] == 2


def test_a_run_reproduces_from_its_seed():
    def run():
        e = env("manni-basic", opponents="random")
        rewards = []
        obs, _ = e.reset(seed=11)
        for _ in range(3):
            done = False
            while not done:
                obs, reward, done, _, _ = e.step(first_legal(obs))
            rewards.append((e.game_seed, reward))
            obs, _ = e.reset()
        return rewards

    assert run() == run()


def test_an_illegal_action_forfeits_or_raises_naming_it():
    e = env("maniglia-4", opponents="random", seat=0)
    obs, _ = e.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, done, _, info = e.step(illegal)
    assert done and reward == -1.0 and info["illegal"] == illegal
    e = env("maniglia-4", opponents="random", seat=0, illegal="raise")
    obs, _ = e.reset(seed=2)
    before = e.state.record()
    with pytest.raises(games.IllegalAction, match=f"action {illegal} is not legal"):
        e.step(illegal)
    assert e.state.record() == before


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="unknown built-in bot 'nobody'"):
        env("maniglia-3", opponents=["greedy", "nobody"])
    with pytest.raises(ValueError, match=r"seat must be a seat in 0\.\.2 or None, got 3"):
        env("maniglia-3", seat=3)
    with pytest.raises(ValueError, match="give 2 opponents"):
        env("maniglia-3", opponents=["greedy"])
    with pytest.raises(ValueError, match="an opponent is .* got 7"):
        env("maniglia-3", opponents=[7, "random"])
    with pytest.raises(ValueError, match="unknown option"):
        env("maniglia-3", nonsense=1)
    e = env("maniglia-3", opponents=[lambda obs: 999, "random"], seat=0)
    with pytest.raises(games.IllegalAction, match="opponent <lambda> at seat 1 chose 999"):
        obs, _ = e.reset(seed=0)  # seat 1 may open the auction before the agent acts
        e.step(first_legal(obs))


def test_the_environment_pickles_mid_game():
    e = env("manni-basic", opponents="greedy")
    obs, _ = e.reset(seed=5)
    for _ in range(5):
        obs, *_ = e.step(first_legal(obs))
    copy = pickle.loads(pickle.dumps(e))
    assert copy.state.record() == e.state.record()
    a, b = copy.step(first_legal(obs)), e.step(first_legal(obs))
    assert np.array_equal(a[0]["observation"], b[0]["observation"]) and a[1:4] == b[1:4]


@pytest.mark.parametrize("vector", [SyncVectorEnv, AsyncVectorEnv])
def test_vector_environments_step_batches(vector):
    envs = vector([lambda: env("maniglia-4", opponents="random") for _ in range(2)])
    try:
        obs, info = envs.reset(seed=[1, 2])
        assert obs["observation"].shape == (
            2,
            envs.single_observation_space["observation"].shape[0],
        )
        finished = 0
        for _ in range(60):
            # After a game's end the next step resets that environment (its action unused).
            actions = np.array(
                [first_legal({"action_mask": m}) if m.any() else 0 for m in obs["action_mask"]]
            )
            obs, rewards, done, truncated, info = envs.step(actions)
            finished += int(done.sum())
            assert obs["action_mask"].shape == (2, envs.single_action_space.n)
        assert finished >= 2  # games end and the vector resets them
    finally:
        envs.close()
