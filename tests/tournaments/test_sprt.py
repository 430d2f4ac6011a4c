"""Is the new version better than the old one: duplicate deals fed to the SPRT until it decides."""

from __future__ import annotations

import itertools
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from bots.referee.specs import player_from_spec
from tournaments.ratings.confidence import Sprt
from tournaments.worker.sprt_deals import deal_scores, trial_seed, version_test


def maker(spec: str):
    return lambda seed, index: player_from_spec(spec, seed=seed, index=index)


def scores(new: str, old: str, variant: str = "manni-basic", seed: int = 1, **kw):
    return deal_scores(variant, maker(new), maker(old), maker("builtin:random"), seed=seed, **kw)


def test_trials_are_deals_at_every_rotation_scored_on_the_grid_and_repeatable():
    first = list(itertools.islice(scores("builtin:greedy", "builtin:random"), 6))
    again = list(itertools.islice(scores("builtin:greedy", "builtin:random"), 6))
    assert first == again
    assert all(0 <= s <= 1 and (s * 6) == round(s * 6) for s in first)  # 3 seats: 1/6 steps
    assert trial_seed(1, 0) != trial_seed(1, 1) != trial_seed(2, 1)


def test_a_clearly_better_version_is_accepted_and_the_test_stops():
    test = Sprt(elo0=0, elo1=50)
    results = list(
        version_test(
            scores("builtin:greedy", "builtin:random"), test=test, players=3, max_trials=500
        )
    )
    assert results[-1].decision == "H1"
    assert len(results) < 100 and results[-1].score > 0.6


def test_an_equal_version_is_rejected_and_the_test_stops():
    test = Sprt(elo0=0, elo1=50)
    results = list(
        version_test(
            scores("builtin:random", "builtin:random"), test=test, players=3, max_trials=500
        )
    )
    assert results[-1].decision == "H0"
    assert len(results) < 500


def test_a_partnership_version_partners_itself():
    pairs = scores("builtin:greedy", "builtin:random", variant="maniglia-4-partners")
    first = list(itertools.islice(pairs, 3))
    assert all((s * 8) == round(s * 8) for s in first) and sum(first) / 3 > 0.5


def test_the_command_prints_the_test_as_it_goes_and_its_verdict():
    out = StringIO()
    call_command(
        "sprt",
        "builtin:greedy",
        "builtin:random",
        "--variant",
        "manni-basic",
        "--elo1",
        "50",
        "--seed",
        "1",
        "--every",
        "5",
        stdout=out,
    )
    text = out.getvalue()
    assert "LLR bounds [-2.94, 2.94]" in text and "seed 1" in text
    assert text.strip().splitlines()[-1].startswith("H1 accepted: the new version is better")


def test_the_command_stops_undecided_at_the_cap():
    out = StringIO()
    call_command(
        "sprt",
        "builtin:greedy",
        "builtin:random",
        "--variant",
        "money-jordan",
        "--elo0",
        "0",
        "--elo1",
        "2",
        "--max-games",
        "8",
        "--seed",
        "3",
        stdout=out,
    )
    assert "undecided after 8 games" in out.getvalue()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--variant", "chess"], "unknown variant 'chess'"),
        (["--variant", "manni-basic", "--elo0", "5", "--elo1", "0"], "elo0 < elo1"),
        (["--variant", "manni-basic", "--alpha", "0"], "alpha"),
        (["--variant", "manni-basic", "--max-games", "2"], "--max-games must be at least 3"),
    ],
)
def test_the_command_names_bad_input(args, words):
    with pytest.raises(CommandError, match=words):
        call_command("sprt", "builtin:greedy", "builtin:random", *args, stdout=StringIO())


def test_the_command_names_an_unknown_bot():
    with pytest.raises(CommandError, match="nope"):
        call_command(
            "sprt", "builtin:nope", "builtin:random", "--variant", "manni-basic", stdout=StringIO()
        )
