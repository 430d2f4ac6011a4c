"""Tasks go out one way (``config.task_sending``): on the broker, or logged when it is down."""

from __future__ import annotations

import json
import socket
import uuid

import pytest
import redis
from celery import Celery, current_app

from config.task_sending import send_task, send_tasks

TASK = "tournaments.version_test_run"
#: The task of the app whose broker is down (the project's tasks are registered there too).
DOWN_TASK = "tests.task_sending.nothing"


@pytest.fixture
def queue_names():
    """Two private queue names on the test's broker, emptied afterwards."""
    tag = uuid.uuid4().hex[:10]
    names = (f"test-sending-{tag}", f"test-sending-other-{tag}")
    broker = redis.Redis.from_url(current_app.conf.broker_url)
    yield names
    broker.delete(*names)


def waiting(queue: str) -> list[tuple[str, str]]:
    """(task name, arguments) of each message waiting on ``queue`` of the broker."""
    broker = redis.Redis.from_url(current_app.conf.broker_url)
    messages = [json.loads(raw) for raw in broker.lrange(queue, 0, -1)]
    return [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in messages]


def nothing(*args) -> None:
    """The body of the task of the app whose broker is down (never run)."""


@pytest.fixture
def broker_down():
    """A Celery app whose broker is a port nobody listens on, current for the test."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = Celery("down", broker=f"redis://127.0.0.1:{port}/0", set_as_current=False)
    app.conf.task_publish_retry = False
    app.conf.broker_connection_timeout = 0.5
    app.task(name=DOWN_TASK, shared=False)(nothing)
    previous = current_app._get_current_object()
    app.set_current()
    yield app
    previous.set_current()


def test_a_task_sent_waits_on_its_queue_with_its_arguments(queue_names):
    sent = send_task(TASK, [10**9], queue=queue_names[0], countdown=0)

    assert sent is True
    assert waiting(queue_names[0]) == [(TASK, "[1000000000]")]


def test_tasks_sent_together_each_wait_on_their_own_queue(queue_names):
    first, second = queue_names

    sent = send_tasks([(TASK, [1], first), (TASK, [2], second), (TASK, [3], first)])

    assert sent is True
    assert sorted(waiting(first)) == [(TASK, "[1]"), (TASK, "[3]")]
    assert waiting(second) == [(TASK, "[2]")]


def test_a_broker_that_is_down_is_logged_with_what_becomes_of_the_work(broker_down, caplog):
    alone = send_task(DOWN_TASK, [7], queue="anywhere", unsent="version test 7 stays pending")
    together = send_tasks(
        [(DOWN_TASK, [8], "anywhere"), (TASK, [9], "anywhere")],
        unsent="matches [8, 9] wait for the reaper",
    )

    assert alone is False and together is False
    assert f"{DOWN_TASK}[7] not sent (version test 7 stays pending)" in caplog.text
    assert "2 task(s) not sent (matches [8, 9] wait for the reaper)" in caplog.text
    assert caplog.text.count("broker unavailable") == 2
