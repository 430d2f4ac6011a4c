"""Work a dead worker held resumes within seconds (``config.liveness``), and the
periodic queue never holds more than one message of each periodic task (``config.beat``).

A validation in flight when its worker died used to wait ``CARDROOM_VALIDATE_GRACE_S``
(ten minutes) and a match its lease (``CARDROOM_MATCH_LEASE_S``, half an hour) before
anyone played them again.
"""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest
import redis
from django.contrib.auth import get_user_model
from django.utils import timezone

from config import liveness
from tests.factories import enter_builtins, make_competition
from tests.workers import SERVICES, Worker, assert_recorded_exactly_once, finished, wait_for
from tournaments import services
from tournaments.models import Match
from tournaments.worker import execution

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
]

#: A bot whose every decision takes a quarter of a second: its validation lasts long
#: enough to kill its worker in the middle of it, and passes.
SLOW = """import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        time.sleep(0.25)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""


@pytest.fixture
def names():
    """Keys of processes of this test alone."""
    tag = uuid.uuid4().hex[:8]
    yield tag
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    for key in client.scan_iter(f"cardroom:*:{tag}*"):
        client.delete(key)


def test_a_process_that_beat_and_stopped_is_gone_one_that_never_beat_is_not(names):
    alive, dead, never = f"{names}-a/1", f"{names}-d/2", f"{names}-n/3"
    liveness.beat(alive)
    liveness.beat(dead)
    liveness.stop_beating(dead)  # its heartbeat ran out
    claims = [f"{alive}/task-1", f"{dead}/task-2", f"{never}/task-3", ""]
    assert liveness.gone(claims) == {f"{dead}/task-2"}
    assert liveness.gone([]) == set()


@pytest.mark.django_db(transaction=True)
def test_the_reaper_queues_again_at_once_a_match_whose_worker_process_died(names):
    comp = make_competition(entries=0, games=1, variant="money-jordan", duplicate=False)
    enter_builtins(comp, 2, "random")
    services.competition_start(competition=comp, send=None)
    match = comp.matches.first()
    dead, alive = f"{names}-d/7/task", f"{names}-a/8/task"
    liveness.beat(liveness.process_of(dead))
    liveness.stop_beating(liveness.process_of(dead))
    liveness.beat(liveness.process_of(alive))
    lease = timezone.now() + timezone.timedelta(minutes=30)  # far from running out
    Match.objects.filter(pk=match.pk).update(status="running", claimed_by=dead, lease_until=lease)
    other = comp.matches.exclude(pk=match.pk).first()
    if other is not None:
        Match.objects.filter(pk=other.pk).update(
            status="running", claimed_by=alive, lease_until=lease
        )
    sent: list[int] = []
    reaped = execution.matches_reap(send=sent.extend)
    assert match.pk in reaped.requeued and match.pk in sent
    match.refresh_from_db()
    assert match.status == "queued"
    if other is not None:  # a live worker keeps its match
        other.refresh_from_db()
        assert other.status == "running" and other.pk not in reaped.requeued


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_validation_whose_worker_is_killed_is_resumed_within_seconds_and_done_once(
    tmp_path, settings
):
    from bots import services as bot_services

    tag = uuid.uuid4().hex[:8]
    queues = (f"test-v-{tag}",)
    env = {
        "CARDROOM_REQUEUE_EVERY_S": "1",
        "CARDROOM_TASK_LOG_LEVEL": "INFO",
    }
    owner = get_user_model().objects.create_user(f"u{tag}", password="pw-123456789")
    bot = bot_services.bot_create(owner=owner, name=f"slow-{tag}")
    version = bot_services.bot_version_upload(
        bot=bot, filename="bot.py", content=SLOW.encode(), variants=["money-jordan"]
    )
    first = Worker(tmp_path, os.environ["REDIS_URL"], queues, **env).start(concurrency=1)
    second = None
    try:
        settings.CARDROOM_VALIDATE_QUEUE = first.env["CARDROOM_VALIDATE_QUEUE"]
        bot_services.bot_version_queue(version=version)

        def started_by() -> str:
            version.refresh_from_db()
            return version.claimed_by  # its claim (config.leases)

        killed_worker = wait_for(started_by, 120, "the validation to start")
        time.sleep(1.0)  # in the middle of it
        first.kill(signal.SIGKILL)
        killed_at = time.monotonic()
        second = Worker(tmp_path, os.environ["REDIS_URL"], queues, **env).start(concurrency=1)

        def resumed() -> bool:
            version.refresh_from_db()
            queue = version.validation_report.get("queue") or {}
            return bool(queue.get("resumed_at")) or version.status != "validating"

        wait_for(resumed, 60, "the validation to be resumed")
        resumed_after = time.monotonic() - killed_at
        version.refresh_from_db()
        assert (version.validation_report.get("queue") or {}).get(
            "resumed_at"
        ), version.validation_report
        wait_for(lambda: started_by() not in ("", killed_worker), 60, "the second worker")
        wait_for(lambda: version.refresh_from_db() or version.status != "validating", 240, "end")
        assert version.status == "ready", version.validation_report
        # Within seconds, not the ten minutes of CARDROOM_VALIDATE_GRACE_S: the heartbeat
        # of the dead process lasts liveness.ALIVE_S, the requeuing runs every second.
        assert resumed_after < liveness.ALIVE_S + 20, resumed_after
        log = second.log.read_text()
        assert log.count("bots.version_validate[") >= 1
    finally:
        first.kill(signal.SIGKILL)
        if second is not None:
            second.kill(signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_match_whose_worker_is_killed_is_played_again_within_seconds_and_once(tmp_path):
    tag = uuid.uuid4().hex[:8]
    queues = (f"test-m-{tag}",)
    lease = {"CARDROOM_MATCH_LEASE_S": "1800", "CARDROOM_REAP_EVERY_S": "1"}
    # Long enough to be killed in play: two games of ismcts take about 0.4 s on the
    # compiled engine, and the match was over before the kill (found "done", attempts 1).
    comp = make_competition(entries=0, games=16, variant="money-jordan", duplicate=False)
    enter_builtins(comp, 2, "ismcts")
    first = Worker(tmp_path, os.environ["REDIS_URL"], queues, **lease).start(concurrency=1)
    second = None
    try:
        services.competition_start(competition=comp, send=first.send)
        running = comp.matches.filter(status="running")
        killed = wait_for(lambda: running.values_list("pk", flat=True).first(), 90, "a match")
        time.sleep(0.5)
        first.kill(signal.SIGKILL)
        killed_at = time.monotonic()
        assert comp.matches.get(pk=killed).status == "running"  # killed in play
        second = Worker(tmp_path, os.environ["REDIS_URL"], queues, **lease).start(concurrency=1)
        again = comp.matches.filter(pk=killed, attempts__gte=2)
        wait_for(again.exists, 60, "the match to be claimed again", logs=(first, second))
        again_after = time.monotonic() - killed_at
        wait_for(lambda: finished(comp), 300, "the competition to finish")
        assert again_after < liveness.ALIVE_S + 20, again_after  # not the 30-minute lease
        assert_recorded_exactly_once(comp)
    finally:
        first.kill(signal.SIGKILL)
        if second is not None:
            second.kill(signal.SIGKILL)
