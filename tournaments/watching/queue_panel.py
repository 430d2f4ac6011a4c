"""The queue panel of the dashboard: a competition's matches waiting and in play, the
workers playing them (named to staff only), and the progress of many competitions
at once (the competition list)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from tournaments.live.events import worker_label
from tournaments.models import Competition, Match
from tournaments.pairing import planned_matches_of
from tournaments.selectors import (
    schedule_progress,
)

log = logging.getLogger(__name__)


#: ``results_per_minute`` counts the matches finished in this last stretch.
RATE_WINDOW_S = 60


#: The queue status lists at most this many lease holders.
WORKERS_SHOWN = 50


def worker_process(claimed_by: str) -> str:
    """``host/pid`` of a claim (``tournaments.worker.execution.worker_name`` is
    ``host/pid/task``)."""
    parts = claimed_by.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else claimed_by


def _worker_shown(claimed_by: str, *, staff: bool) -> str:
    process = worker_process(claimed_by)
    return process if staff else worker_label(process)


def queue_status(*, competition_id: int, staff: bool = False) -> dict[str, Any]:
    """The ``queue`` of a ``queue.status`` event (see ``tournaments.live.events``), as of now.

    Each lease's ``worker`` is its process (``host/pid``) for ``staff``, else the
    opaque ``events.worker_label`` of it: nobody else learns hosts or pids.

    Two queries: the matches by status with the results of the last
    :data:`RATE_WINDOW_S` seconds, and the leases held. ``since`` is when the match was
    claimed (its lease's end minus ``CARDROOM_MATCH_LEASE_S``). ``backlog`` is left None
    for the caller (it is the broker's, not the database's).
    """
    now = timezone.now()
    matches = Match.objects.filter(competition_id=competition_id)
    counts = matches.aggregate(
        **{status: Count("id", filter=Q(status=status)) for status in Match.Status.values},
        recent=Count(
            "id",
            filter=Q(
                status=Match.Status.DONE,
                finished_at__gte=now - timedelta(seconds=RATE_WINDOW_S),
            ),
        ),
    )
    recent = counts.pop("recent")
    lease = timedelta(seconds=settings.CARDROOM_MATCH_LEASE_S)
    held = (
        matches.filter(status=Match.Status.RUNNING)
        .exclude(claimed_by="")
        .order_by("lease_until", "id")
        .values_list("pk", "claimed_by", "lease_until")[:WORKERS_SHOWN]
    )
    return {
        **counts,
        "total": sum(counts.values()),
        "results_per_minute": recent,
        "backlog": None,
        "workers": [
            {
                "worker": _worker_shown(claimed_by, staff=staff),
                "match": pk,
                "since": (until - lease).isoformat() if until else None,
                "until": until.isoformat() if until else None,
            }
            for pk, claimed_by, until in held
        ],
        "at": now.isoformat(),
    }


def progress_by_competition(competitions: Iterable[Competition]) -> dict[int, dict[str, Any]]:
    """``competition_progress`` of many competitions in two queries (the list page: the
    match counts, the entries of the schedules), with ``percent`` of the schedule done."""
    items = list(competitions)
    counts: dict[int, dict[str, int]] = {c.pk: {} for c in items}
    rows = (
        Match.objects.filter(competition__in=[c.pk for c in items])
        .values_list("competition_id", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    for competition_id, status, n in rows:
        counts[competition_id][status] = n
    recent = _recent_results([c.pk for c in items if c.format == Competition.Format.LADDER])
    planned = planned_matches_of(items)
    out = {}
    for competition in items:
        row = {status: counts[competition.pk].get(status, 0) for status in Match.Status.values}
        row["total"] = sum(counts[competition.pk].values())
        row["games"] = row[Match.Status.DONE] * competition.games_per_match
        row["competition"] = competition.status
        row["schedule"] = schedule = schedule_progress(
            competition=competition,
            done=row[Match.Status.DONE],
            created=row["total"],
            planned=planned[competition.pk],
        )
        row["percent"] = (
            round(100 * schedule["done"] / schedule["total"]) if schedule["total"] else 0
        )
        # A ladder has no end: no percentage, but its results of the last hour.
        row["open_ended"] = competition.format == Competition.Format.LADDER
        row["last_hour"] = recent.get(competition.pk, 0)
        out[competition.pk] = row
    return out


def _recent_results(competition_ids: list[int]) -> dict[int, int]:
    """Matches finished in the last hour, per competition (one query; none if no ids)."""
    if not competition_ids:
        return {}
    since = timezone.now() - timedelta(hours=1)
    rows = (
        Match.objects.filter(
            competition__in=competition_ids, status=Match.Status.DONE, finished_at__gte=since
        )
        .values_list("competition_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return dict(rows)
