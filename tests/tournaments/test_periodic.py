"""Beat's periodic tasks (``config.beat``): at most one message of each waits in the broker,
and one is sent again as soon as the last one started."""

from __future__ import annotations

import os
import re
import signal
import time
import uuid

import pytest
import redis

from tests.workers import SERVICES, Worker, periodic_queue, wait_for

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]

EVERY_S = {"CARDROOM_REAP_EVERY_S": "1", "CARDROOM_REQUEUE_EVERY_S": "1"}


def test_with_no_worker_on_the_periodic_queue_it_holds_one_message_of_each_task(tmp_path):
    tag = uuid.uuid4().hex[:8]
    queues = (f"test-p-{tag}",)
    periodic = periodic_queue(queues)
    # The worker runs beat but listens to its match queue only: nobody takes periodic work.
    worker = Worker(
        tmp_path,
        os.environ["REDIS_URL"],
        queues,
        CARDROOM_PERIODIC_QUEUE=periodic,
        **EVERY_S,
    )
    worker.listen = queues
    worker.start(concurrency=1)
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    try:
        wait_for(lambda: client.llen(periodic) >= 2, 30, "beat to send the periodic tasks")
        time.sleep(6)  # six periods more
        assert client.llen(periodic) == 2  # the reaper and the validations' requeuing, once
    finally:
        worker.kill(signal.SIGKILL)
        client.delete(periodic)


def test_a_periodic_task_is_sent_again_each_period_once_the_last_one_started(tmp_path):
    tag = uuid.uuid4().hex[:8]
    queues = (f"test-p-{tag}",)
    worker = Worker(
        tmp_path, os.environ["REDIS_URL"], queues, CARDROOM_TASK_LOG_LEVEL="INFO", **EVERY_S
    )
    worker.start(concurrency=1)
    try:
        done = re.compile(r"Task tournaments\.matches_reap\[[^\]]+\] succeeded")
        wait_for(lambda: len(done.findall(worker.log.read_text())) >= 1, 30, "a first reaper")
        first = len(done.findall(worker.log.read_text()))
        time.sleep(6)
        # About one a second: each one's start let beat send the next.
        assert len(done.findall(worker.log.read_text())) - first >= 3, worker.log.read_text()[
            -2000:
        ]
    finally:
        worker.kill(signal.SIGKILL)


class _App:
    """What ``config.beat`` reads of a Celery app: its broker's URL."""

    class conf:  # the shape of Celery's app.conf
        broker_url = os.environ.get("REDIS_URL", "")


def test_two_asking_at_once_send_one_even_before_its_message_reaches_the_queue(settings):
    from config import beat

    tag = uuid.uuid4().hex[:8]
    settings.CARDROOM_PERIODIC_QUEUE = queue = f"test-p-{tag}-periodic"
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    key = beat.waiting_key("tournaments.matches_reap")
    try:
        # A starting worker and beat ask together: the first marks and sends; the second
        # finds the mark before the first's message is in the queue, and sends nothing.
        assert beat.one_waits(_App, "tournaments.matches_reap", queue=queue, period_s=1) is False
        assert beat.one_waits(_App, "tournaments.matches_reap", queue=queue, period_s=1) is True
        # A mark older than FRESH_S whose message is in no queue (taken by a worker that
        # died) is replaced: one is sent.
        client.set(key, repr(time.time() - beat.FRESH_S - 1))
        assert beat.one_waits(_App, "tournaments.matches_reap", queue=queue, period_s=1) is False
        # An old mark whose message still waits is believed.
        client.set(key, repr(time.time() - beat.FRESH_S - 1))
        client.rpush(queue, b'{"headers": {"task": "tournaments.matches_reap"}}')
        assert beat.one_waits(_App, "tournaments.matches_reap", queue=queue, period_s=1) is True
    finally:
        client.delete(key, queue)
