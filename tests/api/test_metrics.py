"""``/metrics``: staff and the bearer token read the platform's figures; nobody else does;
a broken metrics backend takes down neither a request nor a match."""

from __future__ import annotations

import os
import uuid

import pytest
from django.core.management import call_command
from django.test import Client

from config import metrics
from tests.factories import enter_copies, make_user
from tests.factories import metric_sample as sample
from tournaments.models import Competition, Match

pytestmark = pytest.mark.django_db

TOKEN = "metrics-token-for-tests"


def scrape(client: Client, **headers) -> str:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def play_a_round_robin(as_organiser) -> int:
    body = {"name": "Club night", "kind": "tournament", "variant": "manni-basic"}
    body |= {"games_per_match": 3, "duplicate": True, "format": "round-robin"}
    response = as_organiser.post("/api/competitions/", body, format="json")
    assert response.status_code == 201, response.content
    competition_id = response.json()["id"]
    enter_copies(as_organiser, competition_id, greedy=2, random=2)  # four tables of three
    call_command("run_competition", str(competition_id), "--inline")
    return competition_id


@pytest.fixture
def staff_browser(db):
    client = Client()
    client.force_login(make_user("sue", is_staff=True))
    return client


def test_staff_and_the_token_read_the_match_figures_after_a_match_is_played(
    as_organiser, staff_browser, settings
):
    settings.CARDROOM_METRICS_TOKEN = TOKEN
    labels = {"kind": "competition"}
    before = scrape(staff_browser)

    competition_id = play_a_round_robin(as_organiser)
    by_staff = scrape(staff_browser)
    by_token = scrape(Client(), authorization=f"Bearer {TOKEN}")

    done = Match.objects.filter(competition_id=competition_id, status="done").count()
    assert done == 4 and Competition.objects.get(pk=competition_id).status == "finished"
    for text in (by_staff, by_token):
        started = sample(text, "cardroom_matches_started_total", **labels)
        assert started - sample(before, "cardroom_matches_started_total", **labels) == done
        recorded = {**labels, "outcome": "recorded"}
        finished = sample(text, "cardroom_matches_finished_total", **recorded)
        assert finished - sample(before, "cardroom_matches_finished_total", **recorded) == done
        durations = sample(text, "cardroom_match_duration_seconds_count", **labels)
        assert durations - sample(before, "cardroom_match_duration_seconds_count", **labels) == done
        recordings = sample(text, "cardroom_recording_seconds_count", **labels)
        assert recordings - sample(before, "cardroom_recording_seconds_count", **labels) == done
        assert sample(text, "cardroom_recording_seconds_sum", **labels) > 0


def test_anonymous_visitors_plain_users_and_wrong_tokens_are_refused(as_alice, settings, alice):
    settings.CARDROOM_METRICS_TOKEN = TOKEN
    plain = Client()
    plain.force_login(alice)

    refused = [
        Client().get("/metrics"),
        plain.get("/metrics"),
        Client().get("/metrics", headers={"authorization": "Bearer wrong"}),
        Client().get("/metrics", headers={"authorization": f"Token {TOKEN}"}),
    ]

    assert [r.status_code for r in refused] == [404] * 4
    assert all(b"cardroom_" not in r.content for r in refused)


def test_without_a_token_set_no_bearer_is_accepted(settings):
    settings.CARDROOM_METRICS_TOKEN = ""

    response = Client().get("/metrics", headers={"authorization": "Bearer "})

    assert response.status_code == 404


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs the Redis of tests.services")
def test_queue_depth_is_read_from_the_broker_per_queue(staff_browser, settings):
    import redis

    queue = f"tests-matches-{uuid.uuid4().hex[:8]}"
    settings.CARDROOM_MATCH_QUEUE = queue
    settings.CELERY_BROKER_URL = os.environ["REDIS_URL"]
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    client.rpush(queue, "a", "b", "c")
    client.rpush(f"{queue}\x06\x163", "d")
    try:
        text = scrape(staff_browser)
    finally:
        client.delete(queue, f"{queue}\x06\x163")

    kinds = "competition"
    assert sample(text, "cardroom_queue_depth", queue=queue, kinds=kinds) == 4


def test_a_broken_metrics_backend_fails_neither_the_match_nor_the_request(
    as_organiser, staff_browser, monkeypatch, settings
):
    errors_before = metrics.METRICS_ERRORS._value.get()

    def broken(*args, **kwargs):
        raise OSError("the metrics backend is gone")

    for metric in (metrics.MATCHES_STARTED, metrics.MATCHES_FINISHED, metrics.MATCH_DURATION):
        monkeypatch.setattr(metric, "labels", broken)
    monkeypatch.setattr(metrics.WEBSOCKET_CLIENTS, "inc", broken)
    competition_id = play_a_round_robin(as_organiser)
    monkeypatch.setattr(metrics, "generate_latest", broken)
    scraped = staff_browser.get("/metrics")
    page = staff_browser.get("/")

    assert Match.objects.filter(competition_id=competition_id, status="done").count() == 4
    assert scraped.status_code == 503 and page.status_code == 200
    assert metrics.METRICS_ERRORS._value.get() - errors_before >= 4 * 2 + 1


def test_validations_are_counted_by_outcome(staff_browser, alice):
    from bots import services as bot_services
    from bots.models import Bot

    bot = Bot.objects.create(owner=alice, name="quitter")
    version = bot_services.bot_version_upload(
        bot=bot, filename="bot.py", content=b"raise SystemExit('no')\n"
    )
    before = scrape(staff_browser)

    bot_services.bot_version_validate(version=version)
    after = scrape(staff_browser)

    assert version.status == "rejected"
    rejected = sample(after, "cardroom_validations_total", outcome="rejected")
    assert rejected - sample(before, "cardroom_validations_total", outcome="rejected") == 1
    counted = sample(after, "cardroom_validation_duration_seconds_count")
    assert counted - sample(before, "cardroom_validation_duration_seconds_count") == 1
