"""The reaper: the periodic pass that recovers matches whose worker or message was lost,
and gives idle ladders a new batch (``tournaments.reap_matches`` runs it).

Running matches whose lease ran out, or whose worker process stopped beating
(``config.liveness``), are queued again (``config.leases``: the same rule as a
claim's); queued matches whose deadline passed are sent again; pending matches never
queued are queued; rounds and challenges whose recorder died are closed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config import leases, metrics
from tournaments import selectors, services
from tournaments.models import Competition, Match
from tournaments.services.queue import (
    Sender,
    announce_queue_status,
    mark_queued_and_send,
    send_match_tasks,
    top_up,
)

log = logging.getLogger(__name__)

Status = Match.Status


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
    _expire_claims_of_the_dead(now)
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


def _expire_claims_of_the_dead(now) -> list[int]:
    """End the leases of running matches whose worker process no longer beats
    (``leases.expire_the_dead``), so that this pass queues them again at once instead of
    when their lease runs out. Returns their ids."""
    ids = leases.expire_the_dead(Match.objects.filter(leases.held(Match)), now=now)
    if ids:
        log.warning("reaper: matches %s held by a dead worker process, queued again", ids)
    return ids


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
