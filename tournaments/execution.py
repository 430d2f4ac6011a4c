"""Running matches on many workers: claim, lease, record, release, fail, reap, enqueue.

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
  in progress (``tournaments.live``), so that it can be watched.
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

import functools
import json
import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F
from django.utils import timezone

from bots.models import Bot
from bots.sandbox.errors import SandboxUnavailable
from config import metrics
from tournaments import drain, events, leases, live, recording, selectors, services
from tournaments.formats.common import PARTNER_TABLE_SIZE
from tournaments.models import Competition, Entry, Match, MatchSeat
from tournaments.services import ClaimedSeat
from tournaments.services.queue import (
    TASK_LIST_MAX,
    Sender,
    announce_queue_status,
    announce_queue_status_of_match,
    mark_queued_and_send,
    queue_deadline,
    send_match_tasks,
    top_up,
)

log = logging.getLogger(__name__)

#: Failures of the platform, not of a bot: retried, never charged to anyone.
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    SandboxUnavailable,
    OperationalError,
    InterfaceError,
)

RECORDED, SKIPPED, REFUSED, FAILED = "recorded", "skipped", "refused", "failed"
#: The outcome of a match given back unplayed by a worker that stops (tournaments.drain).
GIVEN_BACK = "given back"

Status = Match.Status


class InfrastructureFault(Exception):
    """Playing or recording a match failed for a reason outside the bots; retry it."""


def worker_name(task_id: str = "") -> str:
    """``host/pid/task``: who holds a claim (fits ``Match.claimed_by``)."""
    return f"{socket.gethostname()}/{os.getpid()}/{task_id}"[:120]


def _async_commit_allowed() -> bool:
    """True if the transaction about to start may commit without waiting for the disk
    (see the module docstring): PostgreSQL, the setting on, and no caller's transaction
    around it (whose other writes the setting would cover too)."""
    return (
        connection.vendor == "postgresql"
        and settings.CARDROOM_MATCH_ASYNC_COMMIT
        and not connection.in_atomic_block
    )


#: The statuses a match is claimed from besides running with an expired lease (``leases``).
CLAIMABLE = (Status.PENDING, Status.QUEUED)


@functools.cache
def _claim_sql(condition: str, *, with_competition: bool, async_commit: bool = False) -> str:
    """The claim: one ``UPDATE ... RETURNING`` of the match row if it is claimable
    (``condition``: ``leases.claimable_sql``); on PostgreSQL the competition's columns come
    back in the same statement (``c_<column>``). With ``async_commit`` the statement (its
    own transaction) sets ``synchronous_commit`` off for itself, so the claim stays one
    statement."""
    quote = connection.ops.quote_name
    table = quote(Match._meta.db_table)
    columns = ", ".join(quote(f.column) for f in Match._meta.concrete_fields)
    competitions = quote(Competition._meta.db_table)
    update = (
        f"UPDATE {table} SET status = %s, claimed_by = %s, lease_until = %s, "
        "attempts = attempts + 1 "
        f"WHERE id = %s AND {condition} "
        # A paused competition's matches wait (services.competition_pause).
        f"AND NOT EXISTS (SELECT 1 FROM {competitions} p "
        f"WHERE p.id = {table}.competition_id AND p.status = %s) "
        + ("AND set_config('synchronous_commit', 'off', true) = 'off' " if async_commit else "")
        + f"RETURNING {columns}"
    )
    if not with_competition:
        return update
    picked = ", ".join(f"claimed.{quote(f.column)}" for f in Match._meta.concrete_fields)
    theirs = ", ".join(
        f"c.{quote(f.column)} AS {quote('c_' + f.column)}"
        for f in Competition._meta.concrete_fields
    )
    return (
        f"WITH claimed AS ({update}) SELECT {picked}, {theirs}, "
        f"({_claimed_seats_sql()}) AS {quote(CLAIMED_SEATS)} FROM claimed "
        f"JOIN {quote(Competition._meta.db_table)} c ON c.id = claimed.competition_id"
    )


#: The attribute of a claimed match that holds its seats as the claim read them.
CLAIMED_SEATS = "claimed_seats"


def _claimed_seats_sql() -> str:
    """The claimed match's seats in seat order, as one JSON array of
    ``[seat, entry, mu, sigma, builtin, the bot's name as str(bot) gives it]``; the bot
    is the one at that seat (``Entry.bot_at``: a team's partner at its side's second seat)."""
    quote = connection.ops.quote_name
    users = get_user_model()
    username = users._meta.get_field(users.USERNAME_FIELD).column
    second = PARTNER_TABLE_SIZE // 2
    return (
        "SELECT json_agg(json_build_array(s.seat, s.entry_id, e.mu, e.sigma, b.builtin, "
        f"CASE WHEN b.owner_id IS NULL THEN b.name ELSE u.{quote(username)} || '/' || b.name END)"
        f" ORDER BY s.seat) FROM {quote(MatchSeat._meta.db_table)} s "
        f"JOIN {quote(Entry._meta.db_table)} e ON e.id = s.entry_id "
        f"JOIN {quote(Bot._meta.db_table)} b ON b.id = CASE WHEN e.partner_id IS NOT NULL "
        f"AND s.seat >= {second} THEN e.partner_id ELSE e.bot_id END "
        f"LEFT JOIN {quote(users._meta.db_table)} u ON u.id = b.owner_id "
        "WHERE s.match_id = claimed.id"
    )


def _instance(model, values):
    """A ``model`` instance from the database values of its concrete fields, in order."""
    fields = model._meta.concrete_fields
    values = [
        f.from_db_value(v, None, connection) if hasattr(f, "from_db_value") else v
        for f, v in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [f.attname for f in fields], values)


def _match_from_claim(row) -> tuple[Match, list[ClaimedSeat]]:
    """The claimed match from the claim's row (see :func:`_claim_sql`), with its
    competition attached, and its seats (in seat order)."""
    split = len(Match._meta.concrete_fields)
    match = _instance(Match, row[:split])
    match.competition = _instance(Competition, row[split:-1])
    seats = row[-1]
    if isinstance(seats, str):
        seats = json.loads(seats)
    return match, [ClaimedSeat(*seat) for seat in seats or ()]


def match_claim(*, match_id: int, claimed_by: str, lease_s: float | None = None) -> Match | None:
    """Take ``match_id`` for ``claimed_by`` with a lease; None if it is not claimable
    (:func:`match_claim_with_seats`, without the seats)."""
    claim = match_claim_with_seats(match_id=match_id, claimed_by=claimed_by, lease_s=lease_s)
    return None if claim is None else claim[0]


def match_claim_with_seats(
    *, match_id: int, claimed_by: str, lease_s: float | None = None
) -> tuple[Match, list[ClaimedSeat]] | None:
    """Take ``match_id`` for ``claimed_by`` with a lease: the match and its seats as the
    claim read them (on PostgreSQL; elsewhere no seat); None if it is not claimable.

    Claimable (``tournaments.leases``): pending, queued, or running with an expired lease
    (its worker is gone), unless its competition is paused. One conditional
    ``UPDATE ... RETURNING`` (the claim and the read of the claimed row, on PostgreSQL with
    its competition and its seats with their entries' ratings, in one statement), so two
    workers never both succeed. The seats go to ``services.match_play`` and
    ``services.match_record``
    (``claimed_seats``), which then need not read them again.
    """
    now = timezone.now()
    lease_s = settings.CARDROOM_MATCH_LEASE_S if lease_s is None else lease_s
    claim = leases.claimed(Match, lease_s=lease_s, now=now)
    condition, condition_params = leases.claimable_sql(Match, waiting=CLAIMABLE, now=now)
    adapt = connection.ops.adapt_datetimefield_value
    params = [
        claim["status"],
        claimed_by,
        adapt(claim["lease_until"]),
        match_id,
        *condition_params,
        Competition.Status.PAUSED,
    ]
    with_competition = connection.vendor == "postgresql"
    sql = _claim_sql(
        condition, with_competition=with_competition, async_commit=_async_commit_allowed()
    )
    if with_competition:
        with recording.prepared_cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        match, seats = _match_from_claim(row)
    else:
        claimed = list(Match.objects.raw(sql, params))
        if not claimed:
            return None
        match, seats = claimed[0], []
    transaction.on_commit(
        partial(
            events.notify,
            competition_id=match.competition_id,
            changes=[events.MATCH_STARTED],
            match_id=match_id,
        ),
        robust=True,
    )
    return match, seats


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
        announce_queue_status_of_match(match_id)
    return released


def match_give_back(*, match_id: int, claimed_by: str, send: Sender = send_match_tasks) -> bool:
    """Give a held match back unplayed because its worker stops (``tournaments.drain``):
    queued again and sent at once, its claim not counted as an attempt (the match did
    nothing wrong) and nothing recorded, so no bot is charged. False if ``claimed_by``
    no longer holds it (it was recorded meanwhile, or taken over) or the database cannot
    be reached (the lease gives it back later): then nothing changes."""
    try:
        with transaction.atomic():
            given = bool(
                _holds(match_id, claimed_by).update(
                    status=Status.QUEUED,
                    claimed_by="",
                    lease_until=queue_deadline(),
                    attempts=F("attempts") - 1,
                )
            )
            if given:
                transaction.on_commit(lambda: send([match_id]))
    except INFRASTRUCTURE_ERRORS as exc:
        log.warning("match %s not given back (its lease will): %s", match_id, exc)
        return False
    if given:
        announce_queue_status_of_match(match_id)
    return given


def match_fail(*, match_id: int, claimed_by: str, error: str) -> bool:
    """Mark a held match ``failed`` with ``error``; False if ``claimed_by`` no longer holds it."""
    error = error.replace("\x00", "\N{REPLACEMENT CHARACTER}")  # no NUL in a text column
    failed = bool(
        _holds(match_id, claimed_by).update(
            status=Status.FAILED, lease_until=None, error=error[:2000], finished_at=timezone.now()
        )
    )
    if failed:
        announce_queue_status_of_match(match_id)
        _close_challenge_of(match_id)
    return failed


def _close_challenge_of(match_id: int) -> None:
    """Close the challenge of ``match_id`` if that was its last open match (a failed match
    ends its part of a challenge: nothing waits on it, unlike a round)."""
    found = Match.objects.filter(
        pk=match_id, competition__kind=Competition.Kind.CHALLENGE
    ).values_list("competition_id", flat=True)
    for competition_id in found:
        services.challenge_close_if_settled(competition_id=competition_id)


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
    that does not fit, or any other error that is not the infrastructure's, which
    is logged: retrying would only hold the match for a lease after another).
    Raises :class:`InfrastructureFault` for :data:`INFRASTRUCTURE_ERRORS`, with the
    match still held by ``claimed_by``.
    """
    try:
        claim = match_claim_with_seats(match_id=match_id, claimed_by=claimed_by, lease_s=lease_s)
    except INFRASTRUCTURE_ERRORS as exc:
        raise InfrastructureFault(f"{type(exc).__name__}: {exc}") from exc
    if claim is None:
        return SKIPPED
    match, seats = claim
    kind, started = metrics.match_kind(match.competition), time.perf_counter()
    metrics.inc(metrics.MATCHES_STARTED, kind)
    publisher = live.live_publisher(match=match)
    try:
        result = services.match_play(match=match, claimed_seats=seats, **_watching(publisher))
        recording_started = time.perf_counter()
        # A lost asynchronous commit leaves the match held under its lease: replayed.
        recorded = services.match_record(
            match=match,
            played=result,
            claimed_by=claimed_by,
            claimed_seats=seats,
            send=send,
            synchronous_commit=not _async_commit_allowed(),
        )
    except INFRASTRUCTURE_ERRORS as exc:
        metrics.inc(metrics.MATCHES_FAILED, kind, "infrastructure")
        raise InfrastructureFault(f"{type(exc).__name__}: {exc}") from exc
    except drain.DrainTimeout:  # the caller gives it back (a BaseException: not below)
        metrics.inc(metrics.MATCHES_FAILED, kind, "drained")
        raise
    except (ValidationError, ValueError) as exc:
        match_fail(match_id=match_id, claimed_by=claimed_by, error=f"{type(exc).__name__}: {exc}")
        metrics.inc(metrics.MATCHES_FAILED, kind, "invalid")
        return FAILED
    except Exception as exc:  # no retry would do better: failed now, not held for hours
        log.exception("match %s: unexpected error while playing or recording it", match_id)
        error = f"unexpected error: {type(exc).__name__}: {exc}"
        match_fail(match_id=match_id, claimed_by=claimed_by, error=error)
        metrics.inc(metrics.MATCHES_FAILED, kind, "unexpected")
        return FAILED
    finally:
        if publisher is not None:  # recorded, failed or given back: nothing more to watch
            publisher.close()
    outcome = RECORDED if recorded else REFUSED
    _match_observed(kind, outcome, started, recording_started)
    return outcome


def _match_observed(kind: str, outcome: str, started: float, recording_started: float) -> None:
    """The metrics of a played match (``config.metrics``): never raises."""
    now = time.perf_counter()

    def update() -> None:
        metrics.MATCHES_FINISHED.labels(kind, outcome).inc()
        metrics.MATCH_DURATION.labels(kind).observe(now - started)
        metrics.RECORDING.labels(kind).observe(now - recording_started)

    metrics.observe(update)


def _watching(publisher: live.LivePublisher | None) -> dict[str, Any]:
    """The callbacks of ``services.match_play`` that publish the match as it is played."""
    if publisher is None:
        return {}
    return {"on_game": publisher.game_finished, "on_action": publisher.action_applied}


#: Called with a match id and the fault when a match of a list hit an infrastructure fault.
OnFault = Callable[[int, InfrastructureFault], None]


@dataclass
class Drained:
    """What :func:`matches_execute` did: each tried match's outcome (``recorded``,
    ``skipped``, ``refused``, ``failed`` or ``fault``) in the order tried, and the ids
    it left for later."""

    outcomes: dict[int, str]
    left: list[int]


#: How often a list of matches looks whether more urgent work waits (one round trip to
#: the broker): a more urgent task waits at most this long and one match more.
URGENT_LOOK_S = 0.05


def matches_execute(
    *,
    match_ids: list[int],
    start: int,
    claimed_by: str,
    on_fault: OnFault,
    budget_s: float,
    spread: Callable[[int], None] | None = None,
    send: Sender | None = send_match_tasks,
    urgent: Callable[[], bool] | None = None,
) -> Drained:
    """Play the matches of ``match_ids`` that are still waiting, one after another, from
    position ``start`` on (and round to the ones before it), until none is left or
    ``budget_s`` seconds have passed, or until ``urgent()`` says that more urgent work
    waits (asked between two matches, at most every :data:`URGENT_LOOK_S` seconds). The
    caller sends what is left again, behind the queue's other work, so that a long list
    never keeps a worker from other competitions, nor from a kind of work it takes first.

    If at least two matches wait, ``spread`` is first called with the position where
    another worker should start on the same list (halfway through what waits), so that
    a free worker joins in; that one does the same, and so on while matches wait.

    When a result closes its round, the next round's matches are sent (``send``) for
    the other workers, and played here too after the list, with no wait for a message;
    so are those of a round another worker paired ahead when this list ran dry
    (:func:`_pair_ahead`).

    Each match is claimed on its own (:func:`match_execute`): one that another worker
    took meanwhile is skipped. A skip means this worker has run into another one
    playing the same list from there on, so instead of trying that worker's matches
    one by one it reads again which matches of the list still wait and goes on from the
    middle of them (:func:`_after_skip`): two workers on a list meet a handful of
    times, not once a match. An :class:`InfrastructureFault` of one match goes to
    ``on_fault`` (which gives it back for a retry of its own) and the next is tried.
    A fault outside any match (reading the list) raises.

    A worker that drains (``tournaments.drain``) claims nothing more: what waits is left
    for the caller to send again; a match interrupted at the end of the drain's grace
    period is given back (:func:`match_give_back`) and left too."""
    deadline = time.monotonic() + budget_s
    look_at = time.monotonic() + URGENT_LOOK_S

    def give_way() -> bool:  # the budget is spent, or more urgent work waits
        nonlocal look_at
        now = time.monotonic()
        if now >= deadline:
            return True
        if urgent is None or now < look_at:
            return False
        look_at = now + URGENT_LOOK_S
        return urgent()

    outcomes: dict[int, str] = {}
    lists: list[tuple[list[int], int]] = [(list(match_ids), start)]

    def send_and_keep(ids: list[int]) -> None:
        send(ids)
        lists.append((list(ids), 0))

    def join(ids: list[int]) -> None:  # another worker plays them from the start
        lists.append((list(ids), len(ids) // 2))

    then = None if send is None else send_and_keep
    first = True
    ids: list[int] = []
    while lists or (
        then is not None and not drain.draining() and _pair_ahead(ids, then, join) and lists
    ):
        # (inside an outer transaction the round paired ahead is sent, and kept here,
        # only once it commits: then this list ends)
        ids, at = lists.pop(0)
        order = _waiting_from(ids, at)
        if first and len(order) >= 2 and spread is not None and not drain.draining():
            spread(ids.index(order[len(order) // 2]))
        first = False
        tried: set[int] = set()
        while order:
            if (outcomes and give_way()) or drain.draining():
                return Drained(outcomes, order + [i for rest, _ in lists for i in rest])
            match_id = order.pop(0)
            tried.add(match_id)
            try:
                with drain.playing():
                    outcome = match_execute(match_id=match_id, claimed_by=claimed_by, send=then)
            except drain.DrainTimeout:
                outcomes[match_id] = GIVEN_BACK
                match_give_back(match_id=match_id, claimed_by=claimed_by, send=lambda ids: None)
                rest = [match_id, *order, *(i for more, _ in lists for i in more)]
                return Drained(outcomes, rest)
            except InfrastructureFault as fault:
                outcomes[match_id] = "fault"
                on_fault(match_id, fault)
                continue
            outcomes[match_id] = outcome
            if outcome == SKIPPED and order:
                order = _after_skip(ids, match_id, tried)
    return Drained(outcomes, [])


def _after_skip(match_ids: list[int], skipped: int, tried: set[int]) -> list[int]:
    """What a worker plays of the list ``match_ids`` after finding ``skipped`` taken.

    Another worker took it, and goes on along the list from there. The matches of the
    list that still wait (and that this one has not tried), from ``skipped`` on, are
    split in two: the other worker keeps the first half, this one takes the second
    half first, then the first half's leftovers (``[3, 4, 5, 6]`` gives ``[5, 6, 3, 4]``).
    """
    waiting = [i for i in _waiting_from(match_ids, match_ids.index(skipped)) if i not in tried]
    half = len(waiting) // 2
    return waiting[half:] + waiting[:half]


def _pair_ahead(match_ids: list[int], send: Sender, join: Callable[[list[int]], None]) -> bool:
    """Once the list ``match_ids`` (one round's) has no match waiting, pair the next round
    if its format allows (``services.round_pair_ahead``) and send it; True if it did.

    If another worker paired it first (this one waited for its lock meanwhile), ``join``
    is given what waits of it, as this worker's next list from its middle, and True is
    returned: a message for that round is out already, and waiting for it would leave
    this worker idle for a round trip through the broker every round."""
    if not match_ids:
        return False
    found = Match.objects.filter(pk=match_ids[0]).values_list(
        "round_id", "competition_id", "round__number"
    )
    round_id, competition_id, number = found.first() or (None, None, None)
    if round_id is None:
        return False
    try:
        paired = services.round_pair_ahead(round_id=round_id, send=send)
    except INFRASTRUCTURE_ERRORS:
        return False  # the round's closing pairs it as usual
    if paired:
        return True
    waiting = _waiting_after(competition_id, number)
    if not waiting:
        return False
    join(waiting)
    return True


def _waiting_after(competition_id: int, round_number: int) -> list[int]:
    """The matches of the competition's rounds after ``round_number`` that wait and were
    never claimed (one given back after a fault waits for its own retry), in order."""
    return list(
        Match.objects.filter(
            competition_id=competition_id,
            round__number__gt=round_number,
            status__in=(Status.PENDING, Status.QUEUED),
            attempts=0,
        )
        .order_by("id")
        .values_list("pk", flat=True)[:TASK_LIST_MAX]
    )


def _waiting_from(match_ids: list[int], start: int) -> list[int]:
    """The matches of ``match_ids`` still waiting to be played, from ``start`` round."""
    waiting = set(
        Match.objects.filter(pk__in=match_ids, status__in=(Status.PENDING, Status.QUEUED))
        .values_list("pk", flat=True)
        .order_by()
    )
    start %= max(1, len(match_ids))
    return [i for i in match_ids[start:] + match_ids[:start] if i in waiting]


@dataclass
class Reaped:
    """What one pass of :func:`matches_reap` did (match ids)."""

    requeued: list[int]
    failed: list[int]
    resent: list[int]
    enqueued: list[int]
    ladders: list[int]
    #: Matches that waited for their competition's turn, sent now (:func:`competition_top_up`).
    topped_up: list[int] = field(default_factory=list)


def matches_reap(*, send: Sender = send_match_tasks) -> Reaped:
    """Recover matches whose worker or message was lost; give idle ladders a new batch.

    Running matches whose lease expired are queued again (or failed after
    ``CARDROOM_MATCH_MAX_ATTEMPTS`` claims); queued matches past their deadline
    are sent again; pending matches of running competitions are queued; matches that
    wait for their competition's turn are sent as its window allows. Safe to
    run concurrently and repeatedly: rows another reaper holds are skipped.
    """
    now = timezone.now()
    running = Competition.Status.RUNNING
    expired = Match.objects.filter(leases.expired(Match, now=now))
    failed = _fail_exhausted(expired)
    requeued = mark_queued_and_send(expired, send)
    resent = mark_queued_and_send(
        Match.objects.filter(
            status=Status.QUEUED, lease_until__lt=now, competition__status=running
        ),
        send,
    )
    enqueued = mark_queued_and_send(
        Match.objects.filter(status=Status.PENDING, competition__status=running), send
    )
    for round_ in selectors.rounds_complete_but_running():  # its recorder died before
        services.round_close_if_complete(
            competition=round_.competition, round_id=round_.pk, send=send
        )
    for competition_id in selectors.challenges_settled_but_running():
        services.challenge_close_if_settled(competition_id=competition_id)
    ladders = [m for c in selectors.ladders_idle() for m in _ladder_batch(c, send)]
    waiting = (
        Match.objects.filter(status=Status.QUEUED, lease_until=None, competition__status=running)
        .values_list("competition_id", "competition__games_per_match")
        .distinct()
        .order_by()
    )
    topped_up = [m for c, games in waiting for m in top_up(c, games, send)]
    if requeued or failed or resent:
        log.warning("reaper: requeued %s, failed %s, resent %s", requeued, failed, resent)
    touched = [*requeued, *failed, *resent, *enqueued, *ladders]
    if touched:
        announce_queue_status(
            Match.objects.filter(pk__in=touched)
            .values_list("competition_id", flat=True)
            .distinct()
            .order_by()
        )
    return Reaped(requeued, failed, resent, enqueued, ladders, topped_up)


def _fail_exhausted(expired) -> list[int]:
    with transaction.atomic():
        rows = list(
            expired.filter(attempts__gte=settings.CARDROOM_MATCH_MAX_ATTEMPTS)
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("pk", "competition__format")
        )
        ids = [pk for pk, _ in rows]
        Match.objects.filter(pk__in=ids).update(
            status=Status.FAILED,
            lease_until=None,
            finished_at=timezone.now(),
            error=f"lease expired {settings.CARDROOM_MATCH_MAX_ATTEMPTS} times "
            "(its worker died each time)",
        )
    for _, format in rows:
        kind = metrics.match_kind(Competition(format=format))
        metrics.inc(metrics.MATCHES_FAILED, kind, "lease_exhausted")
    return ids


def _ladder_batch(competition: Competition, send: Sender) -> list[int]:
    return [m.pk for m in services.ladder_pair_batch(competition=competition, send=send)]
