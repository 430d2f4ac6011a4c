"""Draining a worker: SIGTERM finishes the match in play within the grace period or gives
it back; SIGKILL during a drain loses nothing. Real ``celery -A config worker`` processes
on the real PostgreSQL and Redis, playing built-in bots slow enough to be caught mid-match.
"""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest
from django.db import connection

from tests.factories import enter_builtins, make_competition, process_metric
from tests.workers import SERVICES, Worker, assert_recorded_exactly_once, finished, wait_for
from tournaments import services
from tournaments.models import Competition, GameRecord, Match, RatingEvent
from tournaments.worker import drain, execution, lists

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def slow_match():
    """A tournament of one match of ``ismcts`` bots (a few seconds a game)."""

    def make(games: int) -> Competition:
        comp = make_competition(entries=0, games=games, variant="money-jordan", duplicate=False)
        enter_builtins(comp, 2, "ismcts")
        return comp

    return make


@pytest.fixture
def start(tmp_path, settings):
    """Start a worker (one slot) on private queues of every kind, whose env is given."""
    tag = uuid.uuid4().hex[:10]
    queues = (f"test-drain-matches-{tag}", f"test-drain-other-{tag}")
    settings.CARDROOM_MATCH_QUEUE = queues[0]  # what this process sends goes to them too
    started: list[Worker] = []

    def start_worker(**env: str) -> Worker:
        env = {"CARDROOM_MATCH_LEASE_S": "300", **env}
        worker = Worker(tmp_path, os.environ["REDIS_URL"], queues, **env)
        started.append(worker)
        return worker.start(concurrency=1, beat=False)

    yield start_worker
    for worker in started:
        worker.kill(signal.SIGKILL)
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).delete(*queues)


def stop(worker: Worker, sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to the worker's main process alone (as systemd's KillMode=mixed and
    Docker do), not to its pool processes."""
    os.kill(worker.proc.pid, sig)


def playing(comp: Competition) -> Match:
    wait_for(lambda: comp.matches.filter(status="running").exists(), 90, "the match to start")
    return comp.matches.get()


def nothing_recorded(comp: Competition) -> bool:
    return not (
        GameRecord.objects.filter(match__competition=comp).exists()
        or RatingEvent.objects.filter(entry__competition=comp).exists()
        or any(entry.games for entry in comp.entries.all())
    )


@pytest.mark.slow
def test_a_stopping_worker_finishes_the_match_it_plays_within_its_grace_period(start, slow_match):
    worker = start(CARDROOM_DRAIN_GRACE_S="120")
    comp = slow_match(games=1)
    services.competition_start(competition=comp)
    playing(comp)

    stop(worker)
    assert worker.proc.wait(timeout=120) == 0
    assert finished(comp)
    assert_recorded_exactly_once(comp)
    assert comp.matches.get().attempts == 1
    assert "Warm shutdown" in worker.log.read_text()


@pytest.mark.slow
def test_a_stopping_worker_gives_back_the_match_it_cannot_finish_in_time(start, slow_match):
    worker = start(CARDROOM_DRAIN_GRACE_S="1")
    comp = slow_match(games=12)  # several seconds, compiled Money too: far more than the grace
    services.competition_start(competition=comp)
    playing(comp)

    stop(worker)
    assert worker.proc.wait(timeout=30) == 0  # long before the match could end
    match = comp.matches.get()
    assert (match.status, match.claimed_by, match.attempts) == ("queued", "", 0)
    assert nothing_recorded(comp)  # no game kept, no rating moved: no bot charged

    # The message went back to the queue: the next worker plays it, once.
    start(CARDROOM_DRAIN_GRACE_S="120")
    wait_for(lambda: finished(comp), 180, "the match to be played by the next worker")
    assert_recorded_exactly_once(comp)
    assert comp.matches.get().attempts == 1


@pytest.mark.slow
def test_a_worker_killed_during_its_drain_loses_nothing(start, slow_match, settings):
    # The lease outlives a game or two; the reaper (run here) requeues the match after it.
    worker = start(CARDROOM_DRAIN_GRACE_S="600", CARDROOM_MATCH_LEASE_S="10")
    comp = slow_match(games=12)  # not over before the kill, compiled Money too
    services.competition_start(competition=comp)
    held = playing(comp)

    stop(worker)  # draining: the match plays on within its grace period...
    wait_for(lambda: "Warm shutdown" in worker.log.read_text(), 30, "the drain to begin")
    worker.kill(signal.SIGKILL)  # ...when the machine goes away
    match = comp.matches.get()
    assert (match.status, match.claimed_by) == ("running", held.claimed_by)
    assert nothing_recorded(comp)

    settings.CARDROOM_QUEUE_GRACE_S = 3
    wait_for(lambda: execution.matches_reap().requeued == [match.pk], 90, "the lease to expire")
    start(CARDROOM_DRAIN_GRACE_S="120")  # takes the requeued match's message
    wait_for(lambda: finished(comp), 180, "the match to be played again")
    assert_recorded_exactly_once(comp)


def test_a_process_that_drains_interrupts_only_a_match_in_play():
    drain.reset()
    try:
        drain.begin(0.05)
        assert drain.draining()
        time.sleep(0.1)  # the grace period ends between matches: nothing is interrupted
        with pytest.raises(drain.DrainTimeout), drain.playing():
            pass  # a match that would start now is given back at once
    finally:
        drain.reset()
    assert not drain.draining()


# -- in this process: a list of short matches, the settings --------------------------------


def drained_count() -> float:
    return process_metric("cardroom_matches_failed_total", kind="competition", cause="drained")


def test_a_draining_list_claims_nothing_more_and_gives_back_the_match_cut_off(monkeypatch):
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    services.competition_start(competition=comp, send=lambda ids: None)
    ids = list(comp.matches.order_by("id").values_list("pk", flat=True))
    cut = ids[1]
    play = services.match_play

    def play_then_stop(*, match, **watching):
        if match.pk == cut:  # the grace period ends while this one plays
            drain.begin(0)
            raise drain.DrainTimeout("grace over")
        return play(match=match, **watching)

    sent: list[list[int]] = []
    monkeypatch.setattr(services, "match_play", play_then_stop)
    drained_before = drained_count()
    try:
        drained = lists.matches_execute(
            match_ids=ids, start=0, claimed_by="w/1/t", on_fault=None, budget_s=60,
            spread=None, send=sent.append,
        )  # fmt: skip
    finally:
        drain.reset()

    assert drained.outcomes == {ids[0]: "recorded", cut: "given back"}
    assert drained.left == ids[1:]  # the caller sends them again
    match = Match.objects.get(pk=cut)
    assert (match.status, match.claimed_by, match.attempts) == ("queued", "", 0)
    assert not match.game_records.exists() and not match.rating_events.exists()
    assert Match.objects.filter(pk__in=ids[2:], attempts=0, status="queued").count() == 2
    assert drained_count() - drained_before == 1  # counted: started = finished + failed


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CARDROOM_COMPETITION_WINDOW", "0"),
        ("CARDROOM_DRAIN_GRACE_S", "-1"),
        ("CARDROOM_WORKER_METRICS_PORT", "70000"),  # not a TCP port
    ],
)
def test_an_absurd_queue_setting_is_refused_at_start_with_its_name(name, value):
    import subprocess
    import sys

    from tests.workers import ROOT

    env = {**os.environ, name: value, "DJANGO_SETTINGS_MODULE": "config.settings"}
    run = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode != 0
    assert "ImproperlyConfigured" in run.stderr and name in run.stderr


def test_a_drain_that_cuts_a_statement_short_still_gives_the_match_back_at_once():
    # Under load the grace period may end while the match's process waits on PostgreSQL
    # (its lease's look, the recording): the statement is cut off in the middle, and the
    # connection is left mid-command. The give-back used it, failed, and left the match
    # to its lease (minutes): a fresh-clone CI run found it so.
    comp = make_competition(entries=2, games=1, variant="money-jordan", duplicate=False)
    services.competition_start(competition=comp, send=lambda ids: None)
    match = comp.matches.get()
    assert execution.match_claim(match_id=match.pk, claimed_by="w/1/t") is not None

    try:
        with pytest.raises(drain.DrainTimeout), drain.playing():
            drain.begin(0.2)
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_sleep(3)")  # cut off by the grace's end
    finally:
        drain.reset()

    assert execution.match_give_back(match_id=match.pk, claimed_by="w/1/t", send=lambda ids: None)
    match.refresh_from_db()
    assert (match.status, match.claimed_by, match.attempts) == ("queued", "", 0)
