"""Allowances count what was played, seen through the API as an author would: a request
refused while games were reserved is accepted once a cancel, an SPRT's early decision or
a failed match gave back what was not played, and the refusal names what was used."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.factories import builtin_version, play_to_the_end
from tournaments.models import Challenge, VersionTest
from tournaments.worker import execution, tasks

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("challenge_world")]

GREEDY = {"opponents": ["builtin:greedy"], "variant": "money-jordan"}


@pytest.fixture
def learner(alice) -> Bot:
    """Alice's bot: v1 plays as the built-in random, v2 as greedy (it beats v1)."""
    bot = Bot.objects.create(owner=alice, name="learner", builtin="random")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    return bot


def ask(client, bot: Bot, games: int):
    return client.post("/api/challenges/", {"bot": bot.pk, **GREEDY, "games": games}, format="json")


def refused(response, allowance: str, used: int) -> bool:
    body = response.json()
    return (
        response.status_code == 429
        and body["allowance"] == allowance
        and body["used"] == used
        and f"Allowance {allowance} reached: {used} of" in body["detail"]
    )


def play_first_match(challenge_id: int) -> None:
    first = Challenge.objects.get(pk=challenge_id).competition.matches.order_by("id").first()
    assert execution.match_execute(match_id=first.pk, claimed_by="test", send=None) == "recorded"


def test_a_challenge_cancelled_through_the_api_gives_back_the_games_it_did_not_play(
    as_alice, learner, settings
):
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 2_000
    big = ask(as_alice, learner, games=1_000).json()
    assert ask(as_alice, learner, games=1_000).status_code == 201  # 2,000 reserved
    assert refused(ask(as_alice, learner, games=20), "challenge_games_per_day", used=2_000)
    play_first_match(big["id"])  # one match of it played
    played = as_alice.get(f"/api/challenges/{big['id']}/").json()["progress"]["games_played"]
    assert 0 < played < 1_000

    assert as_alice.post(f"/api/challenges/{big['id']}/cancel/").status_code == 200

    # What it played counts; the rest is free again, to the game.
    free = 1_000 - played
    assert ask(as_alice, learner, games=free).status_code == 201
    assert refused(ask(as_alice, learner, games=1), "challenge_games_per_day", used=2_000)


def test_a_failed_match_of_a_challenge_gives_its_games_back_through_the_api(
    as_alice, learner, settings
):
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 20
    challenge = ask(as_alice, learner, games=16).json()  # two matches of eight games
    assert refused(ask(as_alice, learner, games=8), "challenge_games_per_day", used=16)
    failing = Challenge.objects.get(pk=challenge["id"]).competition.matches.order_by("id").first()
    execution.match_claim(match_id=failing.pk, claimed_by="w")

    execution.match_fail(match_id=failing.pk, claimed_by="w", error="its worker's sandbox broke")

    assert ask(as_alice, learner, games=8).status_code == 201  # 8 reserved + 8 asked


def test_an_sprt_that_decides_early_counts_the_games_it_played_through_the_api(
    as_alice, learner, settings, monkeypatch
):
    monkeypatch.setattr(tasks.version_test_run, "apply_async", lambda *a, **k: None)
    settings.CARDROOM_ALLOWANCE_VERSION_TEST_GAMES_PER_DAY = 30_000
    url = f"/api/bots/{learner.pk}/sprt/"
    body = {"new": 2, "old": 1, "variant": "manni-basic", "elo1": 50.0, "max_games": 20_000}
    first = as_alice.post(url, body, format="json").json()
    assert refused(
        as_alice.post(url, body, format="json"), "version_test_games_per_day", used=20_000
    )
    test = VersionTest.objects.get(pk=first["id"])
    VersionTest.objects.filter(pk=test.pk).update(seed=20261201)  # fixed deals: no flake

    play_to_the_end(test, slice_s=3600)

    done = as_alice.get(f"{url}{first['id']}/").json()
    assert done["decision"] == "H1" and done["games"] < 20_000
    # The games it played count, not the 20,000 it might have: another test fits.
    assert as_alice.post(url, body, format="json").status_code == 201
    left = 30_000 - done["games"] - 20_000
    asked = as_alice.post(url, {**body, "max_games": left + 1}, format="json")
    assert refused(asked, "version_test_games_per_day", used=done["games"] + 20_000)
