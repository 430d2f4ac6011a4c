"""Celery tasks: another door into the services (tournaments.execution).

Tasks take ids, re-read the database and are safe to run twice: a second
delivery of ``match_run`` finds the match claimed or done and does nothing.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import asdict

from celery import current_app, shared_task
from django.conf import settings
from django.db import close_old_connections

from config.task_sending import send_task, waiting
from tournaments import drain, execution, version_tests
from tournaments.services import queue as match_queue

log = logging.getLogger(__name__)


def retry_countdown(retries: int) -> float:
    """Exponential backoff with jitter: base * 2**retries, at most ten minutes."""
    base = settings.CARDROOM_MATCH_RETRY_BACKOFF_S * 2**retries
    return min(600.0, base * random.uniform(0.8, 1.2))


@shared_task(bind=True, name="tournaments.match_run", max_retries=None)
def match_run(self, match_id: int) -> str:
    """Claim, play and record match ``match_id``; see :func:`execution.match_execute`.

    Infrastructure faults give the match back and retry with backoff, up to
    ``CARDROOM_MATCH_MAX_RETRIES`` times; then the match is ``failed``.
    A worker that stops (``tournaments.drain``) claims nothing more (the message is sent
    again) and gives back a match still in play at the end of its grace period. Once the
    match is taken, its competition's next waiting matches are sent (turns:
    :func:`queue.competition_top_up`).
    """
    claimed_by = execution.worker_name(self.request.id or "direct")
    if drain.draining():
        match_queue.send_match_tasks([match_id])
        return execution.GIVEN_BACK
    _top_up(match_id)
    try:
        with drain.playing():
            return execution.match_execute(match_id=match_id, claimed_by=claimed_by)
    except drain.DrainTimeout:
        execution.match_give_back(match_id=match_id, claimed_by=claimed_by)
        return execution.GIVEN_BACK
    except execution.InfrastructureFault as fault:
        countdown = _give_back(match_id, claimed_by, fault, retries=self.request.retries)
        if countdown is None:
            return execution.FAILED
        raise self.retry(exc=fault, countdown=countdown) from fault


def _top_up(match_id: int) -> None:
    """The competition's turn goes on (:func:`queue.competition_top_up`); if this
    fails, the reaper sends its waiting matches."""
    try:
        match_queue.competition_top_up(match_id=match_id)
    except execution.INFRASTRUCTURE_ERRORS as exc:
        log.warning("the matches after %s wait for the reaper: %s", match_id, exc)


def _give_back(match_id: int, claimed_by: str, fault: Exception, *, retries: int) -> float | None:
    """After a fault, fail the match (its retries are used up: None) or give it back to
    the queue for a retry in the seconds returned."""
    close_old_connections()  # a broken database connection is dropped, not reused
    error = f"attempt {retries + 1}: {fault}"
    if retries >= settings.CARDROOM_MATCH_MAX_RETRIES:
        execution.match_fail(match_id=match_id, claimed_by=claimed_by, error=error)
        return None
    countdown = retry_countdown(retries)
    # If even this write fails, the lease expires and the reaper requeues the match.
    execution.match_release(
        match_id=match_id, claimed_by=claimed_by, error=error, retry_in_s=countdown
    )
    return countdown


@shared_task(
    bind=True,
    name="tournaments.matches_run",
    max_retries=None,
    # The budget is looked at between matches: a task may run it and one match more.
    soft_time_limit=settings.CARDROOM_MATCH_TIME_LIMIT_S + settings.CARDROOM_TASK_BUDGET_S,
    time_limit=settings.CARDROOM_MATCH_TIME_LIMIT_S + settings.CARDROOM_TASK_BUDGET_S + 30,
)
def matches_run(self, match_ids: list[int], start: int = 0) -> dict[str, str]:
    """Play the waiting matches of ``match_ids`` from position ``start`` on, one after
    another (short matches share a task: :func:`queue.match_tasks`); returns each
    tried match's outcome. While two or more wait it first sends one more such task, so
    that a free worker joins in; a round it closes is sent and played on here. After
    ``CARDROOM_TASK_BUDGET_S`` seconds the rest is sent again.

    A match that hits an infrastructure fault is given back and retried by a
    ``match_run`` task of its own, as if it had been sent alone; a fault outside any
    match (the database gone) retries this task with backoff. A worker that stops
    (``tournaments.drain``) sends what is left again; the competition's matches that wait
    for a turn are sent at the start and at the end (:func:`queue.competition_top_up`).
    """
    if match_ids:
        _top_up(match_ids[0])
    claimed_by = execution.worker_name(self.request.id or "direct")

    def retry_alone(match_id: int, fault: execution.InfrastructureFault) -> None:
        countdown = _give_back(match_id, claimed_by, fault, retries=0)
        if countdown is not None:  # if it cannot be sent, the reaper sends it in time
            _publish(match_run, [match_id], countdown=countdown, retries=1)

    def spread(at: int) -> None:
        _publish(matches_run, [match_ids, at])  # if not, the workers on the list play it

    try:
        drained = execution.matches_execute(
            match_ids=list(match_ids),
            start=start,
            claimed_by=claimed_by,
            on_fault=retry_alone,
            budget_s=settings.CARDROOM_TASK_BUDGET_S,
            spread=spread,
            send=match_queue.send_match_tasks,
            urgent=_more_urgent_work(self.request.delivery_info),
        )
    except execution.INFRASTRUCTURE_ERRORS as exc:
        close_old_connections()
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
    if drained.left:
        match_queue.send_match_tasks(drained.left)
    if match_ids:
        _top_up(match_ids[0])
    return {str(match_id): outcome for match_id, outcome in drained.outcomes.items()}


def _more_urgent_work(delivery_info: dict | None) -> Callable[[], bool] | None:
    """Whether a message waits in a queue this worker takes before the one the running
    task came from (``CARDROOM_QUEUES``' order; the periodic queue aside: it has a worker
    of its own, and the periodic tasks are short); None if there is none, or if the task
    did not come from one of them (called directly)."""
    came_from = (delivery_info or {}).get("routing_key")
    order = [queue for kind, queue in settings.CARDROOM_QUEUES if kind != "periodic"]
    if came_from not in order:
        return None
    consumed = current_app.amqp.queues.consume_from or {}  # the worker's -Q; all if none
    before = [q for q in order[: order.index(came_from)] if not consumed or q in consumed]
    return (lambda: waiting(before)) if before else None


def _publish(task, args: list, **options) -> None:
    """Send ``task`` on the queue of its matches' kind; with the broker down, log it and go
    on (``config.task_sending.send_task``)."""
    first = match_queue.first_match(args)
    queue = match_queue.match_queues([first]).get(first, settings.CARDROOM_MATCH_QUEUE)
    send_task(task.name, args, queue=queue, **options)


@shared_task(name="tournaments.matches_reap", soft_time_limit=120, time_limit=150)
def matches_reap() -> dict[str, list[int]]:
    """Periodic (beat, on ``CARDROOM_PERIODIC_QUEUE``): requeue lost matches, queue pending
    ones, feed idle ladders, send the matches whose turn came."""
    return asdict(execution.matches_reap())


@shared_task(name="tournaments.version_test_run", max_retries=None)
def version_test_run(test_id: int) -> str:
    """Play a slice of version test ``test_id``; see :func:`version_tests.version_test_play`.

    Safe to run twice: a second delivery finds the test held or finished and does nothing.
    A worker that stops gives the test back at the end of its grace period (the deal in
    play is played again from its seed by the next worker: ``tournaments.drain``).
    """
    if drain.draining():
        version_tests.send_version_test_task(test_id)
        return execution.GIVEN_BACK
    try:
        with drain.playing():
            return version_tests.version_test_play(test_id=test_id)
    except drain.DrainTimeout:
        version_tests.version_test_give_back(test_id=test_id)
        return execution.GIVEN_BACK
