"""Running matches on many workers: claim, lease, play, record, release, fail, reap, enqueue.

The claims and the giving back live in ``tournaments.worker.claims``, the periodic reaper in
``tournaments.worker.reaping``; this module plays a claimed match and drains a list of them,
and re-exports the names of both so that callers find them here.

A match moves ``pending -> queued -> running -> done`` (or ``failed``):

- The services that pair or free matches queue them (``tournaments.services.queue``):
  pending matches are marked ``queued`` and their tasks sent once the transaction
  commits, one ``tournaments.match_run`` task per match, or for short matches one
  ``tournaments.matches_run`` task for a list, which plays the list's waiting
  matches one after another (:func:`matches_execute`), claiming each on its own,
  and sends one more task for the list to any free worker while at least two
  matches wait. ``lease_until`` of a queued match is its requeue deadline: if no
  worker has claimed it by then (its message was lost with the broker), the reaper
  sends it again. A duplicate message is harmless.
- :func:`match_claim` is a guarded status change (a single conditional
  ``UPDATE``): only a queued or pending match, or a running one whose lease
  expired, can be claimed. The claim sets ``claimed_by`` and ``lease_until``
  and bumps ``attempts``; a second delivery of the same task claims nothing.
- ``services.match_record`` checks, in the transaction that records the result,
  that the worker still holds the match (running, claimed by it). A stale
  worker whose match was taken over gets its result refused and changes
  nothing. The newly paired matches of the next round are queued after commit
  (``services.round_close_if_complete``).
- Bot faults are results (the referee turns them into statuses). Errors of the
  infrastructure (:data:`INFRASTRUCTURE_ERRORS`) raise :class:`InfrastructureFault`;
  the task gives the match back with :func:`match_release` and retries it, or
  fails it with :func:`match_fail` after the last retry. No bot is charged.
- While a match is played, its worker publishes each game as it finishes and the game
  in progress (``tournaments.live.publisher``), so that it can be watched.
- :func:`matches_reap` (periodic) requeues running matches whose lease expired,
  sends queued matches whose deadline passed, enqueues pending matches never
  queued, and gives idle ladders a new batch.

On PostgreSQL the claim and the recording commit without waiting for the WAL to
reach the disk (``synchronous_commit`` off for those two transactions only, unless
``CARDROOM_MATCH_ASYNC_COMMIT`` is false). A commit then returns before its fsync
(about 15 ms on a small VM's disk, with the competition row locked by the rating
sequence until it returns). Nothing is lost that is not replayed: only a crash
of the database server itself can drop such a commit, and then it drops the last
few hundred milliseconds of the WAL, never a transaction without those before it.
A lost claim leaves the match queued or pending (the reaper sends it again); a
lost recording leaves it running under its worker's lease (the reaper requeues it
when the lease expires and it is played again from the same seed), together with
everything that was written after it (the round's closing, the next round's
pairing). A notification of a result that was lost shows on the dashboard until
the next snapshot. Every other write (the API, the organisers, the reaper) keeps
the server's setting.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial

from django.core.exceptions import ValidationError

from config import fairshare, leases, metrics
from tournaments import services
from tournaments.live import publisher as live
from tournaments.models import Competition, Match
from tournaments.services.queue import Sender, send_match_tasks
from tournaments.worker import drain
from tournaments.worker.claims import (
    CLAIMABLE,
    CLAIMED_SEATS,
    FAILED,
    GIVEN_BACK,
    INFRASTRUCTURE_ERRORS,
    RECORDED,
    REFUSED,
    SKIPPED,
    YIELDED,
    ClaimAhead,
    ClaimedSeat,
    InfrastructureFault,
    async_commit_allowed,
    match_claim,
    match_claim_with_seats,
    match_fail,
    match_give_back,
    match_held,
    match_release,
    worker_name,
)
from tournaments.worker.reaping import Reaped, matches_reap
from tournaments.worker.tenants import _day_of, match_tenants, tenants_of

__all__ = [
    "CLAIMABLE",
    "CLAIMED_SEATS",
    "FAILED",
    "GIVEN_BACK",
    "INFRASTRUCTURE_ERRORS",
    "RECORDED",
    "REFUSED",
    "SKIPPED",
    "YIELDED",
    "ClaimAhead",
    "InfrastructureFault",
    "Reaped",
    "async_commit_allowed",
    "match_claim",
    "match_claim_with_seats",
    "match_execute",
    "match_fail",
    "match_give_back",
    "match_release",
    "match_tenants",
    "matches_reap",
    "tenants_of",
    "worker_name",
]

log = logging.getLogger(__name__)

Status = Match.Status


def match_execute(
    *,
    match_id: int,
    claimed_by: str,
    send: Sender | None = send_match_tasks,
    lease_s: float | None = None,
    claimed: ClaimAhead | None = None,
    then: ClaimAhead | None = None,
) -> str:
    """Claim, play and record one match; returns ``recorded``, ``skipped``, ``refused`` or
    ``failed``.

    ``skipped``: not claimable (done, or held by a live lease: a duplicate
    delivery). ``refused``: the match was taken from ``claimed_by`` while it played (its
    lease taken over, or its challenge cancelled: play stops between two decisions,
    ``leases.watch``). ``failed``:
    the match cannot be played (e.g. a bot without a ready version, a result
    that does not fit, or any other error that is not the infrastructure's, which
    is logged: retrying would only hold the match for a lease after another).
    Raises :class:`InfrastructureFault` for :data:`INFRASTRUCTURE_ERRORS`, with the
    match still held by ``claimed_by``.

    ``claimed``: this match's claim sent with the recording before it (made here unless
    ``taken``); ``then``: the next one's, to send with this recording (:class:`ClaimAhead`).
    """
    claim = _claim(match_id, claimed_by, lease_s=lease_s, claimed=claimed)
    if claim is None:
        return SKIPPED
    match, seats = claim
    run = Run(match, seats, claimed_by)
    try:
        result = run.play()
        recording_started = time.perf_counter()
        # A lost asynchronous commit leaves the match held under its lease: replayed.
        recorded = services.match_record(
            match=match,
            played=result,
            claimed_by=claimed_by,
            claimed_seats=seats,
            send=send,
            synchronous_commit=not async_commit_allowed(),
            then=then,
        )
    except BaseException as exc:
        return run.failed(exc)
    finally:
        run.close(unit=then is None or not then.asked)  # asked: ended before the next one's turn
    outcome = RECORDED if recorded else REFUSED
    _match_observed(run.kind, outcome, run.started, recording_started)
    return outcome


class Run:
    """One claimed match played on this worker (:func:`match_execute`, and a list's
    batches: ``tournaments.worker.batches``): from its start, counted in the metrics, its
    worker seconds charged to its tenants (``config.fairshare``), published live and
    watched for a lost claim while it plays."""

    def __init__(self, match: Match, seats: list[ClaimedSeat], claimed_by: str) -> None:
        self.match, self.seats, self.claimed_by = match, seats, claimed_by
        self.kind, self.started = metrics.match_kind(match.competition), time.perf_counter()
        metrics.inc(metrics.MATCHES_STARTED, self.kind)
        self.publisher = live.live_publisher(match=match)
        self.held = leases.watch(partial(match_held, match.pk, claimed_by))
        _begin_unit(match, seats)

    def play(self) -> services.PlayedMatch:
        """Play the match (``services.match_play``), watched."""
        watching = live.play_callbacks(self.publisher, self.held)
        return services.match_play(match=self.match, claimed_seats=self.seats, **watching)

    def close(self, *, unit: bool = True) -> None:
        """Nothing more to watch (played, recorded, failed or given back); with ``unit``,
        its worker seconds end here."""
        if self.publisher is not None:
            self.publisher.close()
            self.publisher = None
        if unit:
            fairshare.end()

    def failed(self, exc: BaseException) -> str:
        """The outcome of an error raised while the match was played or recorded:
        ``refused`` (its claim was lost: cancelled or taken over; nothing to record) or
        ``failed`` (the match cannot be played: marked failed, logged if unexpected).
        Raises :class:`InfrastructureFault` for :data:`INFRASTRUCTURE_ERRORS` (the match
        still held), and raises again ``drain.DrainTimeout`` (the caller gives the match
        back) and what is not an ``Exception``."""
        match_id, claimed_by, kind = self.match.pk, self.claimed_by, self.kind
        if isinstance(exc, INFRASTRUCTURE_ERRORS):
            metrics.inc(metrics.MATCHES_FAILED, kind, "infrastructure")
            raise InfrastructureFault(f"{type(exc).__name__}: {exc}") from exc
        if isinstance(exc, drain.DrainTimeout):
            metrics.inc(metrics.MATCHES_FAILED, kind, "drained")
            raise exc
        if isinstance(exc, leases.ClaimLost):
            _match_observed(kind, REFUSED, self.started, time.perf_counter())
            return REFUSED
        if isinstance(exc, ValidationError | ValueError):
            error = f"{type(exc).__name__}: {exc}"
            match_fail(match_id=match_id, claimed_by=claimed_by, error=error)
            metrics.inc(metrics.MATCHES_FAILED, kind, "invalid")
            return FAILED
        if not isinstance(exc, Exception):
            raise exc
        # No retry would do better: failed now, not held for hours.
        log.error("match %s: unexpected error while playing or recording it", match_id,
                  exc_info=exc)  # fmt: skip
        error = f"unexpected error: {type(exc).__name__}: {exc}"
        match_fail(match_id=match_id, claimed_by=claimed_by, error=error)
        metrics.inc(metrics.MATCHES_FAILED, kind, "unexpected")
        return FAILED

    def observed(self, outcome: str, recording_started: float) -> None:
        _match_observed(self.kind, outcome, self.started, recording_started)


def _claim(
    match_id: int, claimed_by: str, *, lease_s: float | None, claimed: ClaimAhead | None
) -> tuple[Match, list[ClaimedSeat]] | None:
    """The claim of ``match_id`` (sent with the recording before it if ``claimed`` took it,
    else made now): the match and its seats, or None if it is not claimable."""
    try:
        if claimed is not None and claimed.taken:
            return claimed.claim
        return match_claim_with_seats(match_id=match_id, claimed_by=claimed_by, lease_s=lease_s)
    except INFRASTRUCTURE_ERRORS as exc:
        raise InfrastructureFault(f"{type(exc).__name__}: {exc}") from exc


def _begin_unit(match: Match, seats: list[ClaimedSeat]) -> None:
    """The match's worker seconds count for its tenants from now, and the slot it plays
    in for its owners, in the lane of its kind (``config.fairshare``)."""
    users_lane = match.competition.kind == Competition.Kind.CHALLENGE
    lane = fairshare.USERS_LANE if users_lane else fairshare.COMPETITIONS_LANE
    fairshare.begin(match_tenants(match, seats), day_of=_day_of(match), lane=lane)


def _match_observed(kind: str, outcome: str, started: float, recording_started: float) -> None:
    """The metrics of a played match (``config.metrics``): never raises."""
    now = time.perf_counter()

    def update() -> None:
        metrics.MATCHES_FINISHED.labels(kind, outcome).inc()
        metrics.MATCH_DURATION.labels(kind).observe(now - started)
        metrics.RECORDING.labels(kind).observe(now - recording_started)

    metrics.observe(update)


#: Called with a match id and the fault when a match of a list hit an infrastructure fault.
OnFault = Callable[[int, InfrastructureFault], None]
