"""Celery tasks: another door into the services (tournaments.worker.execution).

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

from config import fairshare, pacing
from config.task_sending import send_task, waiting
from tournaments.integrity import chances
from tournaments.models import Competition, VersionTest
from tournaments.services import queue as match_queue
from tournaments.services import version_tests
from tournaments.worker import (
    drain,
    execution,
    lists,
    tenants,
    version_test_requeue,
    version_test_slices,
)
from tournaments.worker import queue_places as work_waiting

log = logging.getLogger(__name__)


def retry_countdown(retries: int) -> float:
    """Exponential backoff with jitter: base * 2**retries, at most ten minutes."""
    base = settings.CARDROOM_MATCH_RETRY_BACKOFF_S * 2**retries
    return min(600.0, base * random.uniform(0.8, 1.2))


@shared_task(bind=True, name="tournaments.match_run", max_retries=None)
def match_run(self, match_id: int, yields: int = 0) -> str:
    """Claim, play and record match ``match_id``; see :func:`execution.match_execute`.

    Paced (``CARDROOM_MATCH_PACE_S``), a competition's match waits in its slot for its
    start (``config.pacing``). A match whose tenants (its competition, its bots' owners)
    used more than their share of worker seconds lately while other work waits gives its
    turn: sent again for a few seconds later, ``yields`` counting how often
    (``config.fairshare``).

    Infrastructure faults give the match back and retry with backoff, up to
    ``CARDROOM_MATCH_MAX_RETRIES`` times; then the match is ``failed``.
    A worker that stops (``tournaments.worker.drain``) claims nothing more (the message is sent
    again) and gives back a match still in play at the end of its grace period. Once the
    match is taken, its competition's next waiting matches are sent (turns:
    :func:`queue.competition_top_up`).
    """
    claimed_by = execution.worker_name(self.request.id or "direct")
    if drain.draining():
        match_queue.send_match_tasks([match_id])
        return execution.GIVEN_BACK
    if _gives_turn(match_id, yields, self.request.delivery_info):
        return execution.YIELDED
    try:
        return _match_play(self, match_id, claimed_by)
    finally:
        fairshare.release_slot()  # the lane's slot _gives_turn took, played or not


def _match_play(task, match_id: int, claimed_by: str) -> str:
    """:func:`match_run` once its turn came: paced, then claimed, played and recorded."""
    if pacing.paced_queue((task.request.delivery_info or {}).get("routing_key")):
        pacing.wait_turn(stop=drain.draining)
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
        countdown = _give_back(match_id, claimed_by, fault, retries=task.request.retries)
        if countdown is None:
            return execution.FAILED
        raise task.retry(exc=fault, countdown=countdown) from fault


def _gives_turn(
    match_id: int,
    yields: int,
    delivery_info: dict | None,
    looked: tuple[bool, bool] | None = None,
) -> bool:
    """If ``match_id``'s tenants used more than their share while lighter work waits for
    this slot, or its owner holds the slots an owner may already while another's work
    waits (``config.fairshare``), send it again for later; True if so (and if a message
    of it sent for later is on its way already: this delivery leaves it to that one).
    How often it gave its turn is counted per match, whichever message brought it (its
    own, or its competition's lists), so that it plays after at most ``MAX_YIELDS``.
    ``looked``: whether its message sent for later is on its way, and whether other work
    waits, as read for a list's batch at once (:func:`_yield_turn`); read here if None."""
    came_from = (delivery_info or {}).get("routing_key")
    if came_from is None:  # called directly: no queue to share
        return False
    unit = f"match:{match_id}"
    users_lane = came_from == settings.CARDROOM_CHALLENGE_QUEUE
    queues = _queues_up_to(came_from)
    on_its_way, others = looked if looked is not None else (None, None)
    if on_its_way is None:
        on_its_way = bool(yields == 0 and fairshare.turn_on_its_way(unit))
    if not yields and on_its_way:
        return True
    if others is None and not users_lane:
        others = waiting(queues)
    if not users_lane and not others:  # nothing else waits: nobody to share with
        return False
    of_match = execution.tenants_of([match_id]).get(match_id, [])
    owners = [t for t in of_match if t and t.startswith("owner:")]
    yields = max(yields, fairshare.turns_given(unit))
    if users_lane:
        owner = owners[0] if owners else None
        found = work_waiting.tenants_waiting(queues)
        why = fairshare.users_unit_gives_turn(
            owner, of_match, yields=yields, others_wait=_others(found, owners), waiting=found
        )
    elif owners or fairshare.heavy():
        found = work_waiting.tenants_waiting(queues)
        theirs = {t for t in found if t.startswith("owner:")} - set(owners)
        why = fairshare.competition_unit_gives_turn(
            of_match, yields=yields, others_wait=bool(theirs) or not owners, waiting=found
        )
    else:  # house bots alone, and nobody over their share
        why = None
    return why is not None and _send_later(match_id, came_from, why=why)


def _others(found: set[str], owners: str | None | list[str]) -> bool:
    """Whether work of an owner other than ``owners`` is among the waiting tenants
    ``found`` (``tournaments.worker.queue_places.tenants_waiting``: accounts linked as one person
    counting as one, a table of house bots alone nobody's); with no owner, any."""
    mine = {owners} if owners is None or isinstance(owners, str) else set(owners)
    return bool({t for t in found if t.startswith("owner:")} - mine)


def _send_later(match_id: int, queue: str, *, why: str) -> bool:
    """Send ``match_id`` again on ``queue`` for a few seconds later (it gives its turn)."""
    turns = fairshare.turn_given(f"match:{match_id}")
    log.info("match %s gives its turn (%s, %d times)", match_id, why, turns)
    return send_task(
        match_run.name,
        [match_id],
        queue=queue,
        kwargs={"yields": turns},
        countdown=fairshare.YIELD_S,
        unsent=f"match {match_id} waits for the reaper",
    )


def _queues_up_to(queue: str) -> list[str]:
    """``queue`` and the queues this worker takes before it (``CARDROOM_QUEUES``' order),
    the periodic queue aside."""
    order = [q for kind, q in settings.CARDROOM_QUEUES if kind != "periodic"]
    if queue not in order:
        return [queue]
    consumed = current_app.amqp.queues.consume_from or {}  # the worker's -Q; all if none
    return [q for q in order[: order.index(queue) + 1] if not consumed or q in consumed]


def _yield_turn(queue: str | None) -> Callable[[int], bool] | None:
    """For a list of matches from ``queue``: asked before each match whether it gives its
    turn (:func:`_gives_turn`, sent on its own for later)."""
    if queue is None:
        return None
    looked: dict[int, tuple[bool, bool]] = {}

    def gives_turn(match_id: int) -> bool:
        fairshare.release_slot()  # a slot taken for the list's last match not played
        return _gives_turn(match_id, 0, {"routing_key": queue}, looked.pop(match_id, None))

    def ahead(match_ids: list[int]) -> None:
        """Read for a batch's matches at once what :func:`_gives_turn` reads for each
        (two round trips to Redis a batch instead of two a match)."""
        looked.clear()
        flags = fairshare.turns_on_their_way([f"match:{i}" for i in match_ids])
        others = waiting(_queues_up_to(queue))
        looked.update((i, (flag, others)) for i, flag in zip(match_ids, flags, strict=True))

    gives_turn.ahead = ahead  # type: ignore[attr-defined]
    return gives_turn


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
    (``tournaments.worker.drain``) sends what is left again; the competition's matches that wait
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
        drained = lists.matches_execute(
            match_ids=list(match_ids),
            start=start,
            claimed_by=claimed_by,
            on_fault=retry_alone,
            budget_s=settings.CARDROOM_TASK_BUDGET_S,
            spread=spread,
            send=match_queue.send_match_tasks,
            urgent=_more_urgent_work(self.request.delivery_info),
            yield_turn=_yield_turn((self.request.delivery_info or {}).get("routing_key")),
        )
    except execution.INFRASTRUCTURE_ERRORS as exc:
        close_old_connections()
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
    finally:
        fairshare.release_slot()  # a slot taken for a match the list did not play
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
    before = [q for q in _queues_up_to(came_from) if q != came_from]
    return (lambda: waiting(before)) if before else None


def _publish(task, args: list, **options) -> None:
    """Send ``task`` on the queue of its matches' kind; with the broker down, log it and go
    on (``config.task_sending.send_task``)."""
    first = match_queue.first_match(args)
    queue = match_queue.match_queues([first]).get(first, settings.CARDROOM_MATCH_QUEUE)
    send_task(task.name, args, queue=queue, **options)


@shared_task(name=chances.TASK, soft_time_limit=600, time_limit=630)
def chances_count(competition_id: int) -> int:
    """Count the soft-play tallies of a competition's games recorded without them
    (``tournaments.integrity.chances``; on the default queue, sent when a round closes); the number
    counted. Safe to run twice: a second run finds nothing left to count."""
    competition = Competition.objects.filter(pk=competition_id).first()
    return 0 if competition is None else chances.count(competition=competition)


@shared_task(name="tournaments.matches_reap", soft_time_limit=120, time_limit=150)
def matches_reap() -> dict[str, list[int]]:
    """Periodic (beat, on ``CARDROOM_PERIODIC_QUEUE``): requeue lost matches, queue pending
    ones, feed idle ladders, send the matches whose turn came; send again the version tests
    whose worker died, and those whose message was lost (their requeue deadline passed)."""
    return {
        "version_tests": version_test_slices.version_tests_reap(),
        "version_tests_resent": version_test_requeue.version_tests_resend(),
        **asdict(execution.matches_reap()),
    }


def _test_gives_turn(test_id: int, owner: str | None, queue: str, yields: int) -> bool:
    """Whether a version test's slice gives its turn (its owner holds a slot of the users'
    lane already, or used more than their share, while other work waits:
    ``config.fairshare``); if so it is sent again for later."""
    found = work_waiting.tenants_waiting(_queues_up_to(queue))
    why = fairshare.users_unit_gives_turn(
        owner, [owner], yields=yields, others_wait=_others(found, owner), waiting=found
    )
    if why is None:
        return False
    return send_task(
        version_test_run.name,
        [test_id],
        queue=queue,
        kwargs={"yields": yields + 1},
        countdown=fairshare.YIELD_S,
        unsent=f"version test {test_id} waits for the reaper",
    )


@shared_task(bind=True, name="tournaments.version_test_run", max_retries=None)
def version_test_run(self, test_id: int, yields: int = 0) -> str:
    """Play a slice of version test ``test_id``; see :func:`version_test_slices.version_test_play`.

    Safe to run twice: a second delivery finds the test held or finished and does nothing.
    A worker that stops gives the test back at the end of its grace period (the deal in
    play is played again from its seed by the next worker: ``tournaments.worker.drain``). Its
    seconds are charged to its bot's owner; an owner over their share lately gives the
    turn to other work that waits (``config.fairshare``), the test sent again for later.
    """
    if drain.draining():
        version_tests.send_version_test_task(test_id)
        return execution.GIVEN_BACK
    (owner,) = tenants.owner_tenants(
        [VersionTest.objects.filter(pk=test_id).values_list("bot__owner_id", flat=True).first()]
    )
    queue = (self.request.delivery_info or {}).get("routing_key")
    if queue is not None and _test_gives_turn(test_id, owner, queue, yields):
        return execution.YIELDED
    fairshare.begin([owner], day_of=owner)
    try:
        with drain.playing():
            return version_test_slices.version_test_play(test_id=test_id)
    except drain.DrainTimeout:
        version_test_slices.version_test_give_back(test_id=test_id)
        return execution.GIVEN_BACK
    finally:
        fairshare.end()
