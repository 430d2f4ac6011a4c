"""A trained policy as a bot (bots/sdk/policy.py): the vector a bot builds from its messages
is the one training saw, the best-scored legal label is played, weights that do not fit
are refused in words; the example plays in the sandbox and beats random."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the 'rl' extra is not installed: pip install '.[rl]'")

import games  # noqa: E402
from bots import builtin, sandbox  # noqa: E402
from bots.referee import InProcessPlayer, play_match  # noqa: E402
from bots.sdk.policy import PolicyBot, PolicyError, forward, load, save  # noqa: E402
from games.envs.encoding import Encoder, action_labels  # noqa: E402

EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "python-trained"


@pytest.mark.parametrize("variant", games.variants())
def test_the_vector_of_an_observation_message_is_the_vector_of_the_state(variant):
    game = games.load(variant)
    from_state, from_message = Encoder(game), Encoder(game)
    labels = action_labels(game)
    state, rng = game.new_game(11), random.Random(11)
    for _ in range(120):
        if state.is_over():
            break
        for seat in range(game.num_players):
            message = json.loads(json.dumps(state.observation(seat)))  # as the protocol sends
            assert np.array_equal(
                from_state.encode(state, seat), from_message.encode_observation(message, seat)
            )
        ids = state.legal_ids()
        assert [labels[i] for i in ids] == state.legal_actions()
        state.apply_id(rng.choice(ids))


def one_hot_policy(path: Path, variant: str, favourite: str) -> None:
    """A network that scores every action 0 but ``favourite`` (1)."""
    game = games.load(variant)
    size, actions = Encoder(game).size, game.variant.num_distinct_actions
    bias = np.zeros(actions)
    bias[action_labels(game).index(favourite)] = 1.0
    save(path, [(np.zeros((size, 4)), np.zeros(4)), (np.zeros((4, actions)), bias)], variant)


def test_the_bot_plays_the_best_scored_legal_label_and_only_legal_ones(tmp_path):
    game = games.load("maniglia-3")
    state = game.new_game(5)
    seat = state.current_player()
    legal = state.legal_actions()
    favourite = legal[-1]
    one_hot_policy(tmp_path / "w.npz", "maniglia-3", favourite)
    bot = PolicyBot(tmp_path / "w.npz")
    bot.start({"variant": "maniglia-3", "options": {}, "seat": seat})

    assert bot.act(state.observation(seat), legal) == favourite
    others = [label for label in legal if label != favourite]
    assert bot.act(state.observation(seat), others) in others  # the favourite is not legal


def test_weights_that_do_not_fit_the_variant_are_refused_in_words(tmp_path, capsys):
    one_hot_policy(tmp_path / "w.npz", "maniglia-3", "pass")
    bot = PolicyBot(tmp_path / "w.npz")

    with pytest.raises(PolicyError) as refused:
        bot.start({"variant": "manni-basic", "options": {}, "seat": 0})

    assert "w.npz does not fit manni-basic: it takes 362 observation numbers" in str(refused.value)
    assert "trained for maniglia-3" in str(refused.value)
    assert "does not fit manni-basic" in capsys.readouterr().err  # what validation reports


def test_a_file_that_is_not_a_policy_is_refused_in_words(tmp_path):
    (tmp_path / "junk.npz").write_bytes(b"not numpy")
    with pytest.raises(PolicyError, match="cannot read the weights file"):
        load(tmp_path / "junk.npz")
    np.savez(tmp_path / "plain.npz", w0=np.zeros((2, 2)))
    with pytest.raises(PolicyError, match="is not a cardroom-mlp-1 weights file"):
        load(tmp_path / "plain.npz")
    save(
        tmp_path / "bad.npz",
        [(np.zeros((3, 4)), np.zeros(4)), (np.zeros((5, 2)), np.zeros(2))],
        "x",
    )
    with pytest.raises(PolicyError, match="layer 1 takes 5 inputs, layer 0 gives 4"):
        load(tmp_path / "bad.npz")


def test_the_weights_saved_are_the_weights_loaded(tmp_path):
    rng = np.random.default_rng(3)
    layers = [
        (rng.normal(size=(6, 5)), rng.normal(size=5)),
        (rng.normal(size=(5, 3)), rng.normal(size=3)),
    ]
    save(tmp_path / "w.npz", layers, "maniglia-4")
    loaded, variant = load(tmp_path / "w.npz")
    x = rng.normal(size=6).astype(np.float32)
    assert variant == "maniglia-4"
    assert np.allclose(forward(loaded, x), forward(layers, x), atol=1e-5)


def test_the_example_beats_random_in_duplicate_matches():
    """Deterministic: an argmax policy and seeded random players, on fixed deals."""
    rewards = []
    for seed in range(4):
        players = [InProcessPlayer(PolicyBot(EXAMPLE / "weights.npz"), "trained")] + [
            InProcessPlayer(builtin.make("random", seed=seed + k), f"random-{k}") for k in (1, 2)
        ]
        result = play_match("maniglia-3", players, games_count=6, seed=seed, duplicate=True)
        for played in result.games:
            rank = played.ranking[played.seats.index(0)]
            rewards.append(sum((r > rank) - (r < rank) for r in played.ranking) / 2)
    assert sum(rewards) / len(rewards) > 0.3, rewards  # random in its seat would score 0


@pytest.mark.slow
@pytest.mark.skipif(not sandbox.available(), reason="uploaded bots need the sandbox")
def test_the_example_plays_in_the_sandbox_with_its_numpy(tmp_path):
    from django.core.management import call_command

    out = tmp_path / "m.json"
    call_command(
        "match", "maniglia-3", str(EXAMPLE), "builtin:random", "builtin:random",
        "--games", "3", "--duplicate", "--seed", "2", "--json", str(out),
    )  # fmt: skip
    data = json.loads(out.read_text())
    statuses = [s["status"] for g in data["games"] for s in g["statuses"]]
    assert statuses == ["ok"] * 9, data["logs"][0][-2000:]
