"""Fixtures shared across the test packages (none is used unless a test asks for it)."""

from __future__ import annotations

import signal
import sys
import uuid

import pytest


@pytest.fixture(autouse=True)
def _close_the_live_matches_connection():
    """The live fan-out's matches lane reads on a thread of its own
    (``tournaments.sockets.fanout.MATCHES_THREAD``), whose database connection outlives the
    test that used it: closed after it, so that the test database can be dropped."""
    yield
    fanout = sys.modules.get("tournaments.sockets.fanout")
    if fanout is not None and fanout.MATCHES_THREAD._threads:
        from django.db import connections

        fanout.MATCHES_THREAD.submit(connections.close_all).result(timeout=10)


@pytest.fixture
def challenge_world(monkeypatch) -> list:
    """The built-in bots a challenge may name, and the challenges' match tasks kept
    instead of sent (after commit): the tests play the worker. The messages kept."""
    from bots.services import builtin_bots_ensure
    from tournaments.worker import tasks

    builtin_bots_ensure()
    messages: list = []
    for task in (tasks.match_run, tasks.matches_run):
        monkeypatch.setattr(task, "apply_async", lambda args, **kw: messages.append(args))
    return messages


@pytest.fixture
def queues():
    """Two private queue names for this test's workers (emptied afterwards)."""
    from tests.workers import periodic_queue, redis_url

    tag = uuid.uuid4().hex[:10]
    names = (f"test-matches-{tag}", f"test-default-{tag}")
    yield names
    import redis

    redis.Redis.from_url(redis_url()).delete(*names, periodic_queue(names))


@pytest.fixture
def workers(tmp_path, queues, settings):
    """``start(broker=None, env={}, **kwargs)``: a real worker on :func:`queues`, killed
    when the test ends (:class:`tests.workers.Worker`)."""
    from tests.workers import WORKER_ENV, Worker, redis_url

    # Matches queued from this process carry the same short requeue deadline as the
    # workers' own (Worker's environment): a message lost with the broker is resent
    # by the reaper within seconds, not after the production grace of an hour.
    settings.CARDROOM_QUEUE_GRACE_S = int(WORKER_ENV["CARDROOM_QUEUE_GRACE_S"])
    started: list = []

    def start(broker: str | None = None, **kwargs):
        worker = Worker(tmp_path, broker or redis_url(), queues, **kwargs.pop("env", {}))
        started.append(worker)
        return worker.start(**kwargs)

    yield start
    for worker in started:
        worker.kill(signal.SIGKILL)


@pytest.fixture
def one_rate_window(monkeypatch):
    """The rate limits' clock (``config.throttles``: fixed windows) held in the middle of
    one minute, so that a test's requests are counted in one window whatever the wall
    clock: three requests a few seconds apart crossed a minute's end now and then under
    a loaded CI machine, and the third, counted in a new window, was served."""
    import time
    from types import SimpleNamespace

    from config import throttles

    held = time.time() // 3600 * 3600 + 30.0
    monkeypatch.setattr(throttles, "time", SimpleNamespace(time=lambda: held))
    return held
