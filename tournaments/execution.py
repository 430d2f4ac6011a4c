"""Running matches on many workers: claim, lease, record, release, fail, reap, enqueue.

A match moves ``pending -> queued -> running -> done`` (or ``failed``):

- :func:`matches_enqueue` marks pending matches ``queued`` and, after the
  transaction commits, sends one ``tournaments.match_run`` task per match.
  ``lease_until`` of a queued match is its requeue deadline: if no worker has
  claimed it by then (its message was lost with the broker), the reaper sends
  it again. A duplicate message is harmless.
- :func:`match_claim` is a guarded status change (a single conditional
  ``UPDATE``): only a queued or pending match, or a running one whose lease
  expired, can be claimed. The claim sets ``claimed_by`` and ``lease_until``
  and bumps ``attempts``; a second delivery of the same task claims nothing.
- :func:`match_record` checks, in the transaction that records the result,
  that the worker still holds the match (running, claimed by it). A stale
  worker whose match was taken over gets its result refused and changes
  nothing. The newly paired matches of the next round are enqueued after commit.
- Bot faults are results (the referee turns them into statuses). Errors of the
  infrastructure (:data:`INFRASTRUCTURE_ERRORS`) raise :class:`InfrastructureFault`;
  the task gives the match back with :func:`match_release` and retries it, or
  fails it with :func:`match_fail` after the last retry. No bot is charged.
- :func:`matches_reap` (periodic) requeues running matches whose lease expired,
  sends queued matches whose deadline passed, enqueues pending matches never
  queued, and gives idle ladders a new batch.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from bots.sandbox.errors import SandboxUnavailable
from tournaments import events, services
from tournaments.models import Competition, Match

log = logging.getLogger(__name__)

#: Failures of the platform, not of a bot: retried, never charged to anyone.
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    SandboxUnavailable,
    OperationalError,
    InterfaceError,
)

RECORDED, SKIPPED, REFUSED, FAILED = "recorded", "skipped", "refused", "failed"

Status = Match.Status
#: Sends the tasks of the given match ids (called after commit).
Sender = Callable[[list[int]], None]


class InfrastructureFault(Exception):
    """Playing or recording a match failed for a reason outside the bots; retry it."""


def worker_name(task_id: str = "") -> str:
    """``host/pid/task``: who holds a claim (fits ``Match.claimed_by``)."""
    return f"{socket.gethostname()}/{os.getpid()}/{task_id}"[:120]


def send_match_tasks(match_ids: list[int]) -> None:
    """One ``tournaments.match_run`` task per id, on the matches queue."""
    from kombu.exceptions import OperationalError as BrokerError

    from tournaments.tasks import match_run

    try:
        for match_id in match_ids:
            match_run.apply_async(args=[match_id], queue=settings.CARDROOM_MATCH_QUEUE)
    except BrokerError as exc:  # the matches stay queued: the reaper sends them again
        log.warning("broker unavailable, matches %s wait for the reaper: %s", match_ids, exc)


def _queue_deadline():
    return timezone.now() + timedelta(seconds=settings.CARDROOM_QUEUE_GRACE_S)


def _mark_queued_and_send(queryset, send: Sender) -> list[int]:
    """Lock the rows of ``queryset`` that nobody else holds, mark them queued, send after commit."""
    with transaction.atomic():
        ids = list(
            queryset.select_for_update(skip_locked=True, of=("self",))
            .order_by("id")
            .values_list("pk", flat=True)
        )
        if ids:
            Match.objects.filter(pk__in=ids).update(
                status=Status.QUEUED, claimed_by="", lease_until=_queue_deadline()
            )
            transaction.on_commit(lambda: send(ids))
    return ids


def matches_enqueue(*, competition: Competition, send: Sender = send_match_tasks) -> list[int]:
    """Queue the pending matches of a running ``competition``; tasks go out after commit.

    Returns the ids queued. Inside an outer transaction nothing is sent until it commits.
    """
    pending = Match.objects.filter(
        competition_id=competition.pk,
        competition__status=Competition.Status.RUNNING,
        status=Status.PENDING,
    )
    ids = _mark_queued_and_send(pending, send)
    if ids:
        _announce_queue_status([competition.pk])
    return ids


def _announce_queue_status(competition_ids: Iterable[int]) -> None:
    """``queue.status`` of each competition once the current transaction commits."""
    for competition_id in competition_ids:
        transaction.on_commit(
            partial(events.announce_queue_status, competition_id=competition_id), robust=True
        )


def _announce_queue_status_of_match(match_id: int) -> None:
    """As :func:`_announce_queue_status`; never raises (the change is already made)."""
    try:
        found = Match.objects.filter(pk=match_id).values_list("competition_id", flat=True)
        _announce_queue_status(list(found[:1]))
    except Exception:
        log.warning("could not announce the queue status of match %s", match_id, exc_info=True)


def competition_launch(
    *, competition: Competition, by=None, send: Sender | None = send_match_tasks
) -> list[Match]:
    """``services.competition_start``, then its first matches queued and sent after commit.

    With ``send=None`` the matches stay pending (for a caller that plays them itself).
    """
    with transaction.atomic():
        matches = services.competition_start(competition=competition, by=by)
        if send is not None:
            matches_enqueue(competition=competition, send=send)
    return matches


def match_claim(*, match_id: int, claimed_by: str, lease_s: float | None = None) -> Match | None:
    """Take ``match_id`` for ``claimed_by`` with a lease; None if it is not claimable.

    Claimable: pending, queued, or running with an expired lease (its worker is
    gone). One conditional UPDATE, so two workers never both succeed.
    """
    now = timezone.now()
    lease = timedelta(seconds=settings.CARDROOM_MATCH_LEASE_S if lease_s is None else lease_s)
    claimable = Q(status__in=[Status.PENDING, Status.QUEUED]) | Q(
        status=Status.RUNNING, lease_until__lt=now
    )
    claimed = Match.objects.filter(claimable, pk=match_id).update(
        status=Status.RUNNING,
        claimed_by=claimed_by,
        lease_until=now + lease,
        attempts=F("attempts") + 1,
    )
    if not claimed:
        return None
    transaction.on_commit(lambda: events.announce_match_started(match_id=match_id), robust=True)
    match = Match.objects.select_related("competition").get(pk=match_id)
    _announce_queue_status([match.competition_id])
    return match


def _holds(match_id: int, claimed_by: str):
    return Match.objects.filter(pk=match_id, status=Status.RUNNING, claimed_by=claimed_by)


def match_release(*, match_id: int, claimed_by: str, error: str, retry_in_s: float) -> bool:
    """Give a held match back to the queue (an infrastructure error); False if not held."""
    deadline = timezone.now() + timedelta(seconds=retry_in_s + settings.CARDROOM_QUEUE_GRACE_S)
    released = bool(
        _holds(match_id, claimed_by).update(
            status=Status.QUEUED, claimed_by="", lease_until=deadline, error=error[:2000]
        )
    )
    if released:
        _announce_queue_status_of_match(match_id)
    return released


def match_fail(*, match_id: int, claimed_by: str, error: str) -> bool:
    """Mark a held match ``failed`` with ``error``; False if ``claimed_by`` no longer holds it."""
    failed = bool(
        _holds(match_id, claimed_by).update(
            status=Status.FAILED, lease_until=None, error=error[:2000], finished_at=timezone.now()
        )
    )
    if failed:
        _announce_queue_status_of_match(match_id)
    return failed


def match_record(
    *,
    match_id: int,
    claimed_by: str,
    result: dict[str, Any],
    send: Sender | None = send_match_tasks,
) -> bool:
    """Record ``result`` if ``claimed_by`` still holds the match, in one transaction.

    Returns False and changes nothing when the lease was taken over (or the
    match is already done). Matches paired by the recording (the next round or
    ladder batch) are queued and sent after commit unless ``send`` is None.
    """
    competition_id = Match.objects.values_list("competition_id", flat=True).get(pk=match_id)
    with transaction.atomic():
        # Lock order as in services.match_record_result: competition, then match.
        competition = Competition.objects.select_for_update().get(pk=competition_id)
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Status.RUNNING or match.claimed_by != claimed_by:
            return False
        recorded = services.match_record_result(match=match, result=result)
        if recorded:
            Match.objects.filter(pk=match_id).update(lease_until=None, error="")
            _announce_queue_status([competition_id])
            if send is not None:
                matches_enqueue(competition=competition, send=send)
    return recorded


def match_execute(
    *,
    match_id: int,
    claimed_by: str,
    send: Sender | None = send_match_tasks,
    lease_s: float | None = None,
) -> str:
    """Claim, play and record one match; returns ``recorded``, ``skipped``, ``refused`` or
    ``failed``.

    ``skipped``: not claimable (done, or held by a live lease: a duplicate
    delivery). ``refused``: the lease was taken over while playing. ``failed``:
    the match cannot be played (e.g. a bot without a ready version, a result
    that does not fit). Raises :class:`InfrastructureFault` for
    :data:`INFRASTRUCTURE_ERRORS`, with the match still held by ``claimed_by``.
    """
    try:
        match = match_claim(match_id=match_id, claimed_by=claimed_by, lease_s=lease_s)
    except INFRASTRUCTURE_ERRORS as exc:
        raise InfrastructureFault(f"{type(exc).__name__}: {exc}") from exc
    if match is None:
        return SKIPPED
    try:
        result = services.match_play(match=match)
        recorded = match_record(match_id=match_id, claimed_by=claimed_by, result=result, send=send)
    except INFRASTRUCTURE_ERRORS as exc:
        raise InfrastructureFault(f"{type(exc).__name__}: {exc}") from exc
    except (ValidationError, ValueError) as exc:
        match_fail(match_id=match_id, claimed_by=claimed_by, error=f"{type(exc).__name__}: {exc}")
        return FAILED
    return RECORDED if recorded else REFUSED


@dataclass
class Reaped:
    """What one pass of :func:`matches_reap` did (match ids)."""

    requeued: list[int]
    failed: list[int]
    resent: list[int]
    enqueued: list[int]
    ladders: list[int]


def matches_reap(*, send: Sender = send_match_tasks) -> Reaped:
    """Recover matches whose worker or message was lost; give idle ladders a new batch.

    Running matches whose lease expired are queued again (or failed after
    ``CARDROOM_MATCH_MAX_ATTEMPTS`` claims); queued matches past their deadline
    are sent again; pending matches of running competitions are queued. Safe to
    run concurrently and repeatedly: rows another reaper holds are skipped.
    """
    now = timezone.now()
    running = Competition.Status.RUNNING
    expired = Match.objects.filter(status=Status.RUNNING, lease_until__lt=now)
    failed = _fail_exhausted(expired)
    requeued = _mark_queued_and_send(expired, send)
    resent = _mark_queued_and_send(
        Match.objects.filter(
            Q(lease_until__lt=now) | Q(lease_until=None),
            status=Status.QUEUED,
            competition__status=running,
        ),
        send,
    )
    enqueued = _mark_queued_and_send(
        Match.objects.filter(status=Status.PENDING, competition__status=running), send
    )
    ladders = [m for c in _idle_ladders() for m in _ladder_batch(c, send)]
    if requeued or failed or resent:
        log.warning("reaper: requeued %s, failed %s, resent %s", requeued, failed, resent)
    touched = [*requeued, *failed, *resent, *enqueued, *ladders]
    if touched:
        _announce_queue_status(
            Match.objects.filter(pk__in=touched)
            .values_list("competition_id", flat=True)
            .distinct()
            .order_by()
        )
    return Reaped(requeued, failed, resent, enqueued, ladders)


def _fail_exhausted(expired) -> list[int]:
    with transaction.atomic():
        ids = list(
            expired.filter(attempts__gte=settings.CARDROOM_MATCH_MAX_ATTEMPTS)
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=ids).update(
            status=Status.FAILED,
            lease_until=None,
            finished_at=timezone.now(),
            error=f"lease expired {settings.CARDROOM_MATCH_MAX_ATTEMPTS} times "
            "(its worker died each time)",
        )
    return ids


def _idle_ladders() -> list[Competition]:
    """Running ladders with no open match (and, paced, none finished within the pause)."""
    open_ = [Status.PENDING, Status.QUEUED, Status.RUNNING]
    ladders = Competition.objects.filter(
        status=Competition.Status.RUNNING, format=Competition.Format.LADDER
    ).exclude(matches__status__in=open_)
    pause = settings.CARDROOM_LADDER_PAUSE_S
    if pause > 0:
        ladders = ladders.exclude(
            matches__finished_at__gt=timezone.now() - timedelta(seconds=pause)
        )
    return list(ladders.distinct())


def _ladder_batch(competition: Competition, send: Sender) -> list[int]:
    with transaction.atomic():
        competition = Competition.objects.select_for_update().get(pk=competition.pk)
        if (
            competition.status != Competition.Status.RUNNING
            or competition.matches.filter(
                status__in=[Status.PENDING, Status.QUEUED, Status.RUNNING]
            ).exists()
        ):
            return []
        # The service's own pairing step: the ladder schedules its next batch.
        services._pair_next(competition)
        transaction.on_commit(
            partial(events.announce_rounds_started, competition_id=competition.pk), robust=True
        )
        return matches_enqueue(competition=competition, send=send)


def competition_progress(*, competition: Competition) -> dict[str, Any]:
    """Match counts by status, games played, the competition's status."""
    counts = dict(competition.matches.values_list("status").annotate(n=Count("id")).order_by())
    competition.refresh_from_db(fields=["status"])
    row = {status: counts.get(status, 0) for status in Status.values}
    row["total"] = sum(counts.values())
    row["games"] = row[Status.DONE] * competition.games_per_match
    row["competition"] = competition.status
    return row
