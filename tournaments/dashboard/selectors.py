"""Reads of the dashboard: a competition's live state as plain, JSON-safe data."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tournaments.events import SNAPSHOT, event, match_payload
from tournaments.execution import competition_progress
from tournaments.models import Competition, Match, MatchSeat
from tournaments.selectors import standings_for_competition

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
    ).values_list("entry__bot__name", "entry__bot__owner__username", "statuses")
    faults: dict[str, Counter] = {}
    for name, owner, statuses in seats:
        label = name if owner is None else f"{owner}/{name}"
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


def competition_snapshot(*, competition: Competition, admin: bool = False) -> dict[str, Any]:
    """The ``snapshot`` event: everything the live page shows, as of now."""
    payload: dict[str, Any] = {
        "name": competition.name,
        "status": competition.status,
        "standings": standings_for_competition(competition=competition),
        "progress": competition_progress(competition=competition),
        "matches": matches_for_dashboard(competition=competition),
        "problems": problem_bots(competition=competition),
        "admin": admin,
    }
    if admin:
        payload["failed"] = failed_matches(competition=competition)
    return event(SNAPSHOT, competition.pk, **payload)
