"""Work a worker had started when it died waits again, and says so: an upload, a challenge
(here a quick game) and a version test show ``"resumed": true`` in their ``queue`` object
and "resumed after a restart" on their page, until a worker takes them again.

The worker's death is what ``config.liveness`` sees (a process that beat and stopped);
the periodic tasks that find such work (the validations' requeuing, the reaper) are
called here as a worker's beat would call them.
"""

from __future__ import annotations

import os
import uuid
from datetime import timedelta

import pytest
import redis
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots import services as bot_services
from bots.models import Bot, BotVersion
from bots.services import validation_queue
from bots.services.validation_requeue import bot_versions_requeue
from config import liveness
from tests.factories import builtin_version
from tournaments.models import Challenge, Match, VersionTest
from tournaments.worker import execution, tasks
from tournaments.worker import version_test_slices as version_tests

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("challenge_world"),
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (heartbeats)"),
]

BOT = b"import sys\nfor line in sys.stdin:\n    pass\n"
RESUMED = "resumed after a restart"


@pytest.fixture
def dead_worker():
    """A worker process that beat, then died: claims it made name it as ``host/pid/task``."""
    process = f"dead-{uuid.uuid4().hex[:8]}/4242"
    liveness.beat(process)
    liveness.stop_beating(process)
    yield process
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    for key in client.scan_iter(f"cardroom:*{process}*"):
        client.delete(key)


@pytest.fixture
def site(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def learner(alice) -> Bot:
    bot = Bot.objects.create(owner=alice, name="learner", builtin="random")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    return bot


def test_an_upload_whose_worker_died_says_resumed_after_a_restart(
    alice, as_alice, site, dead_worker
):
    bot = bot_services.bot_create(owner=alice, name="uploaded")
    version = bot_services.bot_version_upload(
        bot=bot, filename="bot.py", content=BOT, variants=["money-jordan"]
    )
    bot_services.bot_version_queue(version=version, send=lambda pk: None)
    # A worker claimed it (its lease, config.leases) and died while validating it.
    report = dict(version.validation_report)
    started = timezone.now()
    report["queue"] = {**report["queue"], "started_at": started.isoformat()}
    BotVersion.objects.filter(pk=version.pk).update(
        validation_report=report,
        claimed_by=f"{dead_worker}/task",
        lease_until=started
        + timedelta(seconds=validation_queue.validation_lease_s(report["queue"])),
    )
    assert as_alice.get(f"/api/bots/{bot.pk}/versions/1/").json()["queue"] is None  # started

    sent: list[int] = []
    assert bot_versions_requeue(older_than_s=600, send=sent.append) == [version.pk]
    assert sent == [version.pk]
    queue = as_alice.get(f"/api/bots/{bot.pk}/versions/1/").json()["queue"]
    assert queue["resumed"] is True and queue["position"] == 1
    page = site.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    assert f"Waiting: {RESUMED}: next in the queue" in page


def test_a_quick_game_whose_worker_died_says_resumed_after_a_restart(
    as_alice, site, learner, dead_worker, django_capture_on_commit_callbacks
):
    asked = as_alice.post(
        "/api/challenges/",
        {"bot": learner.pk, "opponents": ["builtin:greedy"], "variant": "money-jordan", "games": 1},
        format="json",
    ).json()
    assert asked["queue"]["resumed"] is False
    page_url = reverse("bots-web:challenge-detail", args=[asked["id"]])
    assert RESUMED not in site.get(page_url).content.decode()
    match = Challenge.objects.get(pk=asked["id"]).competition.matches.get()
    lease = timezone.now() + timezone.timedelta(minutes=30)  # far from running out
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.RUNNING, claimed_by=f"{dead_worker}/task", attempts=1, lease_until=lease
    )
    assert as_alice.get(f"/api/challenges/{asked['id']}/").json()["queue"] is None  # in play

    sent: list[int] = []
    with django_capture_on_commit_callbacks(execute=True):
        reaped = execution.matches_reap(send=sent.extend)
    assert match.pk in reaped.requeued and match.pk in sent
    queue = as_alice.get(f"/api/challenges/{asked['id']}/").json()["queue"]
    assert queue["resumed"] is True and queue["position"] == 1
    assert f"Waiting: {RESUMED}: next in the queue" in site.get(page_url).content.decode()
    status = site.get(reverse("bots-web:challenge-status", args=[asked["id"]])).json()
    assert status["waiting"].startswith(RESUMED)


def test_a_version_test_whose_worker_died_says_resumed_until_a_worker_takes_it(
    as_alice, site, learner, monkeypatch
):
    monkeypatch.setattr(tasks.version_test_run, "apply_async", lambda *a, **k: None)
    body = {"new": 2, "old": 1, "variant": "money-jordan", "max_games": 400}
    asked = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").json()
    assert asked["queue"]["resumed"] is False
    # A worker played three deals of it, then died: its lease ran out.
    gone = timezone.now() - timezone.timedelta(seconds=1)
    VersionTest.objects.filter(pk=asked["id"]).update(
        status=VersionTest.Status.RUNNING, trials=3, lease_until=gone
    )
    test_url = f"/api/bots/{learner.pk}/sprt/{asked['id']}/"
    assert as_alice.get(test_url).json()["queue"] is None

    assert version_tests.version_tests_reap(send=None) == [asked["id"]]
    queue = as_alice.get(test_url).json()["queue"]
    assert queue["resumed"] is True and queue["position"] == 1
    page = site.get(reverse("bots-web:bot-detail", args=[learner.pk])).content.decode()
    assert f"{RESUMED}: next in the queue" in page

    # A worker takes it again, plays its slice and sends the rest to the back of the
    # queue: no longer a resumed test, and (started) no place shown.
    assert version_tests._claim(asked["id"]) is not None
    assert as_alice.get(test_url).json()["queue"] is None
    VersionTest.objects.filter(pk=asked["id"]).update(
        status=VersionTest.Status.PENDING, lease_until=None
    )
    assert as_alice.get(test_url).json()["queue"] is None
    page = site.get(reverse("bots-web:bot-detail", args=[learner.pk])).content.decode()
    assert RESUMED not in page
