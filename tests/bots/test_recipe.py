"""The recipe of docs/training.md (bots/examples/python-recipe): its training command runs
end to end on a tiny configuration and writes weights the bot loads and plays with; a
policy weighing only greedy's choice plays greedy's games; weights that do not fit are
refused in words. (How well the committed weights play is measured by bench.trained.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the 'rl' extra is not installed: pip install '.[rl]'")

from bots import builtin  # noqa: E402
from bots.referee import InProcessPlayer, play_match  # noqa: E402

RECIPE = Path(__file__).parents[2] / "bots" / "examples" / "python-recipe"
sys.path.insert(0, str(RECIPE))

import recipe  # noqa: E402
import train  # noqa: E402


def table(bot, variant: str, seed: int, games: int):
    others = [
        InProcessPlayer(builtin.make("greedy", seed=seed + k), f"greedy-{k}")
        for k in range(1, 3 if variant.startswith("maniglia") else 2)
    ]
    return play_match(
        variant, [InProcessPlayer(bot, "recipe"), *others], games_count=games, seed=seed,
        duplicate=True,
    )  # fmt: skip


def test_the_training_command_writes_weights_the_bot_plays(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert (
        train.main(["--games", "maniglia-3=2,money-jordan=2", "--jobs", "1", "--out", str(out)])
        == 0
    )

    printed = capsys.readouterr().out
    assert "maniglia-3 auction:" in printed and "money-jordan purchase:" in printed
    weights = recipe.load_weights(out)
    assert set(weights) == {"maniglia-3", "money-jordan"}
    assert len(weights["maniglia-3"]["auction"]) == len(recipe.FEATURES["maniglia/auction"])
    for variant in ("maniglia-3", "money-jordan"):
        result = table(recipe.RecipeBot(out), variant, seed=4, games=6)
        assert {s["status"] for g in result.games for s in g.statuses} == {"ok"}, variant


def test_weight_on_greedys_choice_alone_plays_greedys_games(tmp_path):
    only_greedy = {
        "maniglia-3": {"auction": [1.0] + [0.0] * 10, "play": [1.0, 0.0, 0.0]},
        "money-jordan": {"purchase": [1.0] + [0.0] * 7},
    }
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"format": recipe.FORMAT, "variants": only_greedy}))
    for variant in ("maniglia-3", "money-jordan"):
        ours = table(recipe.RecipeBot(path), variant, seed=9, games=6)
        theirs = table(builtin.make("greedy", seed=9), variant, seed=9, games=6)
        assert [g.record["actions"] for g in ours.games] == [
            g.record["actions"] for g in theirs.games
        ], variant


def test_weights_that_do_not_fit_are_refused_in_words(tmp_path, capsys):
    path = tmp_path / "w.json"
    path.write_text(
        json.dumps({"format": recipe.FORMAT, "variants": {"maniglia-3": {"auction": [1]}}})
    )
    with pytest.raises(
        recipe.RecipeError, match="maniglia-3 auction has 1 weights, the recipe has 11"
    ):
        recipe.load_weights(path)
    path.write_text(json.dumps({"format": recipe.FORMAT, "variants": {"money-jordan": {}}}))
    bot = recipe.RecipeBot(path)
    with pytest.raises(
        recipe.RecipeError,
        match="w.json does not fit maniglia-3: it holds weights for money-jordan",
    ):
        bot.start({"variant": "maniglia-3", "options": {}, "seat": 0})
    assert "does not fit maniglia-3" in capsys.readouterr().err
    path.write_text("[]")
    with pytest.raises(recipe.RecipeError, match="is not a cardroom-linear-1 file"):
        recipe.load_weights(path)
