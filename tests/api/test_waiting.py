"""Where my work is: the ``queue`` object of an upload, a challenge and a version test
through the API (its place among the users' lane's work and an estimated start; null
once it started), and the quick game (``"games": 1``)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from bots import services as bot_services
from bots.models import Bot, BotVersion
from tests.factories import builtin_version
from tournaments.models import Challenge, Match
from tournaments.worker import tasks

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("challenge_world")]

BOT = b"import sys\nfor line in sys.stdin:\n    pass\n"
GREEDY = {"opponents": ["builtin:greedy"], "variant": "money-jordan", "games": 4}


@pytest.fixture
def learner(alice) -> Bot:
    """Alice's bot, whose v1 plays as the built-in random."""
    bot = Bot.objects.create(owner=alice, name="learner", builtin="random")
    builtin_version(bot, 1, "random")
    return bot


def upload(owner, name: str) -> Bot:
    bot = bot_services.bot_create(owner=owner, name=name)
    version = bot_services.bot_version_upload(
        bot=bot, filename="bot.py", content=BOT, variants=["money-jordan"]
    )
    bot_services.bot_version_queue(version=version, send=lambda pk: None)
    return bot


def queue_of(client, bot: Bot, number: int = 1):
    answer = client.get(f"/api/bots/{bot.pk}/versions/{number}/")
    assert answer.status_code == 200, answer.content
    return answer.json()["queue"]


def start(bot: Bot, number: int = 1) -> None:
    """A worker starts the version's validation (what ``_version_claim`` writes)."""
    version = bot.versions.get(number=number)
    report = dict(version.validation_report)
    report["queue"] = {**report["queue"], "started_at": timezone.now().isoformat()}
    BotVersion.objects.filter(pk=version.pk).update(validation_report=report)


def test_uploads_show_their_place_in_the_validations_queue_until_they_start(
    alice, bob, as_alice, as_bob
):
    first = upload(alice, "first")
    second = upload(alice, "second")  # held: alice has one sent already
    theirs = upload(bob, "theirs")

    assert queue_of(as_alice, first) == {
        "position": 1,
        "ahead": 0,
        "estimated_start_s": 0.0,
        "resumed": False,
    }
    # Bob's comes after alice's first (sent before it), not after all of hers.
    assert queue_of(as_bob, theirs)["position"] == 2
    held = queue_of(as_alice, second)
    assert held["ahead"] == 2 and held["position"] == 3
    assert held["estimated_start_s"] > 0

    start(first)
    assert queue_of(as_alice, first) is None  # started: no longer waiting
    after = queue_of(as_bob, theirs)
    assert after["position"] == 1 and after["ahead"] == 0
    # One validation runs now: the next starts in about half a validation.
    assert after["estimated_start_s"] > 0


def test_a_quick_game_is_one_game_played_now_and_shows_its_place_until_it_starts(as_alice, learner):
    asked = as_alice.post(
        "/api/challenges/",
        {"bot": learner.pk, "opponents": ["builtin:greedy"], "variant": "money-jordan", "games": 1},
        format="json",
    )
    assert asked.status_code == 201, asked.content
    quick = asked.json()
    assert quick["games"] == 1 and quick["games_per_match"] == 1 and not quick["duplicate"]
    assert quick["queue"] == {
        "position": 1,
        "ahead": 0,
        "estimated_start_s": 0.0,
        "resumed": False,
    }

    later = as_alice.post("/api/challenges/", {"bot": learner.pk, **GREEDY}, format="json").json()
    assert later["queue"]["position"] == 2 and later["queue"]["ahead"] == 1

    # The quick game's match starts: it is no longer waiting, and the other is next.
    first = Challenge.objects.get(pk=quick["id"])
    Match.objects.filter(competition=first.competition).update(status=Match.Status.RUNNING)
    assert as_alice.get(f"/api/challenges/{quick['id']}/").json()["queue"] is None
    now = as_alice.get(f"/api/challenges/{later['id']}/").json()["queue"]
    assert now["position"] == 1 and now["ahead"] == 0


def test_a_quick_game_in_a_variant_the_version_did_not_pass_is_a_400_naming_why(alice, as_alice):
    bot = Bot.objects.create(owner=alice, name="money-only")
    version = builtin_version(bot, 1, "random")
    version.passes.exclude(variant="money-jordan").delete()
    BotVersion.objects.filter(pk=version.pk).update(variants=["money-jordan"])
    asked = as_alice.post(
        "/api/challenges/",
        {"bot": bot.pk, "opponents": ["builtin:greedy"], "variant": "manni-basic", "games": 1},
        format="json",
    )
    assert asked.status_code == 400, asked.content
    assert "manni-basic" in asked.content.decode()


def test_a_quick_game_against_a_bot_one_may_not_challenge_is_refused(as_alice, bob, learner):
    hidden = Bot.objects.create(owner=bob, name="hidden", builtin="greedy", challengeable=False)
    builtin_version(hidden, 1, "greedy")
    asked = as_alice.post(
        "/api/challenges/",
        {
            "bot": learner.pk,
            "opponents": [f"bot:{hidden.pk}"],
            "variant": "money-jordan",
            "games": 1,
        },
        format="json",
    )
    assert asked.status_code in (400, 404), asked.content
    assert Challenge.objects.count() == 0


def test_a_version_test_shows_its_place_until_its_first_slice(as_alice, alice, monkeypatch):
    monkeypatch.setattr(tasks.version_test_run, "apply_async", lambda *a, **k: None)
    bot = Bot.objects.create(owner=alice, name="tested")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    body = {"new": 2, "old": 1, "variant": "money-jordan", "max_games": 40}
    first = as_alice.post(f"/api/bots/{bot.pk}/sprt/", body, format="json").json()
    second = as_alice.post(f"/api/bots/{bot.pk}/sprt/", body, format="json").json()
    assert first["queue"]["position"] == 1
    assert second["queue"]["position"] == 2 and second["queue"]["estimated_start_s"] > 0


def test_a_challenges_games_count_as_they_end_not_when_their_match_does(as_alice, learner):
    from django.core.cache import caches

    from tournaments.live import publisher as live

    body = {"bot": learner.pk, **GREEDY, "games": 12, "duplicate": False}
    asked = as_alice.post("/api/challenges/", body, format="json").json()
    match = Challenge.objects.get(pk=asked["id"]).competition.matches.get()  # 12 games
    lease = timezone.now() + timezone.timedelta(minutes=5)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.RUNNING, claimed_by="w/1/t", attempts=1, lease_until=lease
    )
    match.refresh_from_db()
    # The worker playing it has published its first three games (tournaments.live.publisher).
    games = [{"index": i} for i in range(3)]
    head = {"claim": live.claim_token(match), "games": games, "current": None}
    caches[live.CACHE].set(live.head_key(match.pk), head, 60)

    progress = as_alice.get(f"/api/challenges/{asked['id']}/").json()["progress"]
    assert progress["games_played"] == 3 and progress["matches_done"] == 0

    # Another claim's games (a retry) are not this one's.
    Match.objects.filter(pk=match.pk).update(attempts=2)
    progress = as_alice.get(f"/api/challenges/{asked['id']}/").json()["progress"]
    assert progress["games_played"] == 0
