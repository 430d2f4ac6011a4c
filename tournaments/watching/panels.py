"""Reads of the dashboard: a competition's live state as plain, JSON-safe data.

Each socket's first ``snapshot`` (:func:`competition_snapshot`) holds every panel:
the matches, problem bots, failed matches, head-to-head, progress and the rating
chart here, the rounds and the bracket (:mod:`tournaments.watching.brackets`), the
queue (:mod:`tournaments.watching.queue_panel`). The live events that follow are
built by :mod:`tournaments.watching.stream`."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from bots.models import bot_display_name
from tournaments.formats.common import PARTNER_TABLE_SIZE
from tournaments.live.events import SNAPSHOT, celery_backlog, event
from tournaments.models import Competition, Match, MatchSeat, RatingEvent
from tournaments.ratings import display_rating
from tournaments.selectors import (
    crosstable_for_competition,
    head_to_head_for_competition,
    schedule_progress,
    standings_chain,
    standings_for_competition,
)
from tournaments.watching.brackets import rounds_view
from tournaments.watching.queue_panel import queue_status
from tournaments.watching.rows import match_payload

log = logging.getLogger(__name__)


#: The status of a seat that played a game without a fault (bots.referee).
OK = "ok"


def matches_for_dashboard(*, competition: Competition, recent: int = 10) -> dict[str, list]:
    """Running (and queued) matches, and the ``recent`` last finished ones, newest first."""
    base = competition.matches.select_related("round")
    running = base.filter(status__in=[Match.Status.RUNNING, Match.Status.QUEUED]).order_by("id")
    finished = base.filter(status=Match.Status.DONE).order_by("-finished_at", "-id")[:recent]
    return {
        "running": [match_payload(m) for m in running[:50]],
        "recent": [match_payload(m) for m in finished],
    }


def problem_bots(*, competition: Competition) -> list[dict[str, Any]]:
    """Per bot with faults: the count of each non-ok game status, most faults first."""
    seats = MatchSeat.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE
    ).values_list(
        "seat",
        "entry__bot__name",
        "entry__bot__owner__username",
        "entry__partner__name",
        "entry__partner__owner__username",
        "statuses",
    )
    faults: dict[str, Counter] = {}
    for seat, name, owner, partner, partner_owner, statuses in seats:
        if partner is not None and seat >= PARTNER_TABLE_SIZE // 2:  # as Entry.bot_at
            name, owner = partner, partner_owner
        label = bot_display_name(name, owner)
        for status, count in (statuses or {}).items():
            if status != OK and count:
                faults.setdefault(label, Counter())[status] += count
    rows = [
        {"name": label, "statuses": dict(counter), "total": sum(counter.values())}
        for label, counter in faults.items()
    ]
    return sorted(rows, key=lambda r: (-r["total"], r["name"]))


def failed_matches(*, competition: Competition) -> list[dict[str, Any]]:
    """Matches the platform gave up on, with their error (organisers only)."""
    rows = competition.matches.filter(status=Match.Status.FAILED).order_by("-id")[:20]
    return [{"id": m.pk, "table": m.table, "error": m.error[-500:]} for m in rows]


#: Pairs a live head-to-head carries (a big ladder's full table is read through the API).
LIVE_HEAD_TO_HEAD_ROWS = 300


def live_head_to_head(*, competition: Competition) -> dict[str, Any]:
    """The head-to-head panel: the first :data:`LIVE_HEAD_TO_HEAD_ROWS` pairs that met
    (``selectors.head_to_head_for_competition``) and how many more there are."""
    rows = head_to_head_for_competition(competition=competition)
    return {
        "rows": rows[:LIVE_HEAD_TO_HEAD_ROWS],
        "more": max(0, len(rows) - LIVE_HEAD_TO_HEAD_ROWS),
    }


def competition_snapshot(
    *,
    competition: Competition,
    admin: bool = False,
    staff: bool = False,
    head_to_head: bool = True,
) -> dict[str, Any]:
    """The ``snapshot`` event: everything the live page shows, as of now.

    ``admin`` (organisers and staff) adds the failed matches and the workers holding
    matches (the "Workers and queue" panel is theirs only); ``staff`` names the
    worker processes of the queue (see :func:`queue_status`). Without ``head_to_head``
    the head-to-head table (which reads every result) is left out: a socket's snapshot
    follows the page's, which has it, and the table's own live lane keeps it current.
    """
    queue = queue_status(competition_id=competition.pk, staff=staff)
    queue["backlog"] = celery_backlog()
    if not admin:  # the workers panel is the operators' (staff and organisers)
        queue["workers"] = []
    standings = standings_for_competition(competition=competition)
    payload: dict[str, Any] = {
        "name": competition.name,
        "status": competition.status,
        "closed_early": competition.closed_early,
        "format": competition.format,
        "chain": list(standings_chain(competition)),
        "standings": standings,
        "progress": progress_from_queue(competition, queue),
        "matches": matches_for_dashboard(competition=competition),
        "problems": problem_bots(competition=competition),
        "rounds": rounds_view(competition=competition),
        "crosstable": crosstable_for_competition(competition=competition, standings=standings),
        "chart": rating_series(competition=competition),
        "queue": queue,
        "admin": admin,
    }
    if head_to_head:
        payload["head_to_head"] = live_head_to_head(competition=competition)
    if admin:
        payload["failed"] = failed_matches(competition=competition)
    return event(SNAPSHOT, competition.pk, **payload)


def progress_from_queue(competition: Competition, queue: dict[str, Any]) -> dict[str, Any]:
    """``competition_progress`` from the counts of ``queue`` (:func:`queue_status`), so that
    the page's header and its queue panel show one reading."""
    row = {status: queue[status] for status in Match.Status.values}
    row["total"] = queue["total"]
    row["games"] = row[Match.Status.DONE] * competition.games_per_match
    row["competition"] = competition.status
    row["schedule"] = schedule_progress(
        competition=competition, done=row[Match.Status.DONE], created=row["total"]
    )
    return row


#: The rating chart draws this many entries, the top of the standings.
CHART_ENTRIES = 10


#: Ten distinguishable line colours, one per charted entry.
CHART_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def rating_series(*, competition: Competition, top: int = CHART_ENTRIES) -> dict[str, Any]:
    """The ratings (mu - 3 sigma) over time of the ``top`` entries of the standings.

    One series per charted entry that has rating events, in standings order: its
    rating before its first rated match, then after each one, as ``[sequence, rating]``
    points (x = the competition's rating sequence). Two queries, whatever the history.
    The live page appends the points of ``match.finished`` to these series.
    """
    standings = standings_for_competition(competition=competition, limit=top)[:top]
    names = {row["entry"]: row["name"] for row in standings}
    events = (
        RatingEvent.objects.filter(entry_id__in=names)
        .order_by("sequence", "id")
        .values_list("entry_id", "sequence", "mu_before", "sigma_before", "mu_after", "sigma_after")
    )
    points: dict[int, list[list[float]]] = {}
    for entry, sequence, mu_before, sigma_before, mu_after, sigma_after in events:
        series = points.get(entry)
        if series is None:
            series = points[entry] = [[sequence - 1, display_rating(mu_before, sigma_before)]]
        series.append([sequence, display_rating(mu_after, sigma_after)])
    charted = [row["entry"] for row in standings if row["entry"] in points]
    return {
        "top": top,
        "colours": list(CHART_COLOURS),
        "series": [
            {
                "entry": entry,
                "name": names[entry],
                "colour": CHART_COLOURS[position % len(CHART_COLOURS)],
                "points": points[entry],
            }
            for position, entry in enumerate(charted)
        ],
    }
