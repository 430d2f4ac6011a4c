"""Claiming a match for a worker, and giving it back: the guarded changes of a match's
status around its play (``tournaments.worker.execution`` plays it).

- :func:`match_claim` is a guarded status change (a single conditional
  ``UPDATE``): only a queued or pending match, or a running one whose lease
  expired, can be claimed (``config.leases``). The claim sets ``claimed_by`` and
  ``lease_until`` and bumps ``attempts``; a second delivery of the same task claims
  nothing.
- Errors of the infrastructure (:data:`INFRASTRUCTURE_ERRORS`) raise
  :class:`InfrastructureFault`; the task gives the match back with :func:`match_release`
  and retries it, or fails it with :func:`match_fail` after the last retry. A worker
  that stops gives its match back unplayed (:func:`match_give_back`). No bot is charged.

On PostgreSQL the claim commits without waiting for the WAL to reach the disk
(:func:`async_commit_allowed`; ``tournaments.worker.execution`` says why that is safe).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
from collections.abc import Callable
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F
from django.utils import timezone

from bots.models import Bot
from bots.sandbox.errors import SandboxUnavailable
from config import leases
from tournaments import services
from tournaments.formats.common import PARTNER_TABLE_SIZE
from tournaments.live import events
from tournaments.models import Competition, Entry, Match, MatchSeat
from tournaments.services import ClaimedSeat
from tournaments.services import record_statements as recording
from tournaments.services.queue import (
    Sender,
    announce_queue_status_of_match,
    queue_deadline,
    send_match_tasks,
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
#: The outcome of a match given back unplayed by a worker that stops (tournaments.worker.drain).
GIVEN_BACK = "given back"
#: A match that gave its turn (its tenants over their share: ``config.fairshare``).
YIELDED = "yielded"

Status = Match.Status


class InfrastructureFault(Exception):
    """Playing or recording a match failed for a reason outside the bots; retry it."""


def worker_name(task_id: str = "") -> str:
    """``host/pid/task``: who holds a claim (fits ``Match.claimed_by``)."""
    return f"{socket.gethostname()}/{os.getpid()}/{task_id}"[:120]


def async_commit_allowed() -> bool:
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
def _claim_sql(
    condition: str, *, with_competition: bool, async_commit: bool = False, many: bool = False
) -> str:
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
        + ("WHERE id = ANY(%s::bigint[]) " if many else "WHERE id = %s ")
        + f"AND {condition} "
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
    ``[seat, entry, mu, sigma, builtin, the bot's name as str(bot) gives it, its owner]``;
    the bot is the one at that seat (``Entry.bot_at``: a team's partner at its side's
    second seat)."""
    quote = connection.ops.quote_name
    users = get_user_model()
    username = users._meta.get_field(users.USERNAME_FIELD).column
    second = PARTNER_TABLE_SIZE // 2
    return (
        "SELECT json_agg(json_build_array(s.seat, s.entry_id, e.mu, e.sigma, b.builtin, "
        f"CASE WHEN b.owner_id IS NULL THEN b.name ELSE u.{quote(username)} || '/' || b.name END,"
        " b.owner_id)"
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


def _match_from_claim(
    row, competitions: dict[int, Competition] | None = None
) -> tuple[Match, list[ClaimedSeat]]:
    """The claimed match from the claim's row (see :func:`_claim_sql`), with its
    competition attached (the one of ``competitions`` of that id, made once for a
    batch's matches), and its seats (in seat order)."""
    split = len(Match._meta.concrete_fields)
    match = _instance(Match, row[:split])
    competition = None if competitions is None else competitions.get(match.competition_id)
    if competition is None:
        competition = _instance(Competition, row[split:-1])
        if competitions is not None:
            competitions[competition.pk] = competition
    match.competition = competition
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

    Claimable (``config.leases``): pending, queued, or running with an expired lease
    (its worker is gone), unless its competition is paused. One conditional
    ``UPDATE ... RETURNING`` (the claim and the read of the claimed row, on PostgreSQL with
    its competition and its seats with their entries' ratings, in one statement), so two
    workers never both succeed. The seats go to ``services.match_play`` and
    ``services.match_record``
    (``claimed_seats``), which then need not read them again.
    """
    with_competition = connection.vendor == "postgresql"
    sql, params = claim_statement(
        match_id=match_id,
        claimed_by=claimed_by,
        lease_s=lease_s,
        with_competition=with_competition,
        async_commit=async_commit_allowed(),
    )
    if with_competition:
        with recording.prepared_cursor() as cursor:
            cursor.execute(sql, params)
            return claimed_from_row(cursor.fetchone(), match_id=match_id)
    claimed = list(Match.objects.raw(sql, params))
    if not claimed:
        return None
    _notify_started(claimed[0])
    return claimed[0], []


def matches_claim_with_seats(
    *, match_ids: list[int], claimed_by: str, lease_s: float | None = None
) -> dict[int, tuple[Match, list[ClaimedSeat]]]:
    """Take those of ``match_ids`` that are claimable for ``claimed_by``, in one statement
    (PostgreSQL only): each as :func:`match_claim_with_seats` takes one, by match id. A
    list's batch (``tournaments.worker.batches``). The rows are locked in id order, so two
    workers claiming overlapping batches wait for each other at most, never deadlock."""
    if not match_ids:
        return {}
    sql, params = claim_statement(
        match_id=sorted(match_ids),  # type: ignore[arg-type]
        claimed_by=claimed_by,
        lease_s=lease_s,
        async_commit=async_commit_allowed(),
        many=True,
    )
    with recording.prepared_cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    claims = {}
    competitions: dict[int, Competition] = {}
    for row in rows:
        match, seats = _match_from_claim(row, competitions)
        _notify_started(match)
        claims[match.pk] = (match, seats)
    return claims


def claim_statement(
    *,
    match_id: int,
    claimed_by: str,
    lease_s: float | None = None,
    with_competition: bool = True,
    async_commit: bool = True,
    many: bool = False,
) -> tuple[str, list]:
    """The claim of ``match_id`` for ``claimed_by`` (:func:`match_claim_with_seats`) as
    one statement and its parameters, its lease starting now; its row goes to
    :func:`claimed_from_row` (``with_competition``: PostgreSQL only)."""
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
    sql = _claim_sql(
        condition, with_competition=with_competition, async_commit=async_commit, many=many
    )
    return sql, params


def claimed_from_row(row, *, match_id: int) -> tuple[Match, list[ClaimedSeat]] | None:
    """The claimed match and its seats from the row of :func:`claim_statement` (with its
    competition); None for no row (not claimable). The match's start is announced once
    the claim has committed."""
    if row is None:
        return None
    match, seats = _match_from_claim(row)
    _notify_started(match)
    return match, seats


def _notify_started(match: Match) -> None:
    transaction.on_commit(
        partial(
            events.notify,
            competition_id=match.competition_id,
            changes=[events.MATCH_STARTED],
            match_id=match.pk,
        ),
        robust=True,
    )


class ClaimAhead:
    """The claim of a list's next match, sent to PostgreSQL in the round trip that records
    the match before it (``recording.match_store_rated``'s ``then``: the recording, then
    the claim, each its own transaction), so that a list's worker waits for the database
    once a match instead of twice (``lists.matches_execute``).

    ``pick()`` is asked, when the recording is sent, which match to claim (None: none,
    the list stops or gives way there). Afterwards ``asked`` says whether it was asked,
    ``match_id`` what it picked, and once ``taken``, ``claim`` holds what
    :func:`match_claim_with_seats` would have returned (None: not claimable); a claim
    that failed (``error``) or whose outcome is unknown is made again on its own. Where
    the recording took another way (not on PostgreSQL, not rated, no claimed seats) it is
    never asked and the next match is claimed on its own.
    """

    def __init__(
        self, pick: Callable[[], int | None], *, claimed_by: str, lease_s: float | None = None
    ) -> None:
        self.pick = pick
        self.claimed_by = claimed_by
        self.lease_s = lease_s
        self.asked = False
        self.match_id: int | None = None
        self.claim: tuple[Match, list[ClaimedSeat]] | None = None
        self.taken = False  # the claim's outcome is known (``claim``)
        self.error: BaseException | None = None

    def statement(self) -> tuple[str, list] | None:
        """The claim's statement and parameters, or None if ``pick()`` picks nothing."""
        self.asked = True
        try:
            self.match_id = self.pick()
        except Exception as exc:  # (e.g. the broker out of reach) the list asks again itself
            log.warning("the next match is claimed on its own: %s", exc)
            self.asked = False
            return None
        if self.match_id is None:
            return None
        return claim_statement(
            match_id=self.match_id,
            claimed_by=self.claimed_by,
            lease_s=self.lease_s,
            async_commit=async_commit_allowed(),
        )

    def take(self, row) -> None:
        """The claim's row (None: the match was not claimable)."""
        assert self.match_id is not None
        self.claim = claimed_from_row(row, match_id=self.match_id)
        self.taken = True

    def fail(self, error: BaseException) -> None:
        """The claim failed (nothing claimed): the match is claimed again on its own."""
        self.error = error


def _holds(match_id: int, claimed_by: str):
    return Match.objects.filter(pk=match_id, status=Status.RUNNING, claimed_by=claimed_by)


def match_held(match_id: int, claimed_by: str) -> bool:
    """Whether ``claimed_by`` still holds match ``match_id`` (not cancelled, failed or
    taken over): looked at while it plays (``leases.watch``)."""
    return _holds(match_id, claimed_by).exists()


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
    """Give a held match back unplayed because its worker stops (``tournaments.worker.drain``):
    queued again and sent at once, its claim not counted as an attempt (the match did
    nothing wrong) and nothing recorded, so no bot is charged. False if ``claimed_by``
    no longer holds it (it was recorded meanwhile, or taken over) or the database cannot
    be reached (the lease gives it back later): then nothing changes.

    The drain's interruption may have landed inside a statement, which leaves this
    process's connection in the middle of a command ("another command is already in
    progress"): the give-back then failed, and the match waited for its lease. So the
    connection is closed first (outside a transaction) and the give-back opens a fresh
    one; the worker is stopping, and a connection costs a few milliseconds."""
    return bool(matches_give_back(match_ids=[match_id], claimed_by=claimed_by, send=send))


def matches_give_back(
    *, match_ids: list[int], claimed_by: str, send: Sender = send_match_tasks
) -> list[int]:
    """:func:`match_give_back` for several matches at once (a list's batch claimed and not
    played yet), in one statement: those given back."""
    if not match_ids:
        return []
    if not connection.in_atomic_block:
        connection.close()
    try:
        with transaction.atomic():
            held = Match.objects.filter(
                pk__in=match_ids, status=Status.RUNNING, claimed_by=claimed_by
            ).select_for_update()
            given = sorted(held.values_list("pk", flat=True))
            Match.objects.filter(pk__in=given).update(
                status=Status.QUEUED,
                claimed_by="",
                lease_until=queue_deadline(),
                attempts=F("attempts") - 1,
            )
            if given:
                transaction.on_commit(lambda: send(given))
    except INFRASTRUCTURE_ERRORS as exc:
        log.warning("matches %s not given back (their lease will): %s", match_ids, exc)
        return []
    for match_id in given:
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
