"""Reads of the dashboard: a competition's live state as plain, JSON-safe data."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tournaments.events import SNAPSHOT, event, match_payload
from tournaments.execution import competition_progress
from tournaments.models import Competition, Match, MatchSeat, RatingEvent
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


def rating_chart(
    *,
    competition: Competition,
    top: int = CHART_ENTRIES,
    width: int = 640,
    height: int = 240,
    pad: int = 32,
) -> dict[str, Any] | None:
    """Ratings (mu - 3 sigma) over time of the ``top`` entries, laid out for an inline SVG.

    One series per charted entry that has rating events: its rating before its first
    rated match, then after each one, at x = the competition's rating sequence.
    ``None`` while no charted entry has been rated. Two queries, whatever the history.
    """
    standings = standings_for_competition(competition=competition, limit=top)[:top]
    names = {row["entry"]: row["name"] for row in standings}
    events = (
        RatingEvent.objects.filter(entry_id__in=names)
        .order_by("sequence", "id")
        .values_list("entry_id", "sequence", "mu_before", "sigma_before", "mu_after", "sigma_after")
    )
    points: dict[int, list[tuple[int, float]]] = {}
    for entry, sequence, mu_before, sigma_before, mu_after, sigma_after in events:
        series = points.get(entry)
        if series is None:
            series = points[entry] = [(sequence - 1, mu_before - 3 * sigma_before)]
        series.append((sequence, mu_after - 3 * sigma_after))
    if not points:
        return None
    xs = [x for series in points.values() for x, _ in series]
    ys = [y for series in points.values() for _, y in series]
    x_min, x_max = min(xs), max(xs)
    y_min, y_max = min(ys), max(ys)
    if y_max - y_min < 1e-9:
        y_min, y_max = y_min - 1, y_max + 1
    span_x = max(x_max - x_min, 1)

    def sx(x: float) -> float:
        return round(pad + (x - x_min) * (width - 2 * pad) / span_x, 1)

    def sy(y: float) -> float:
        return round(height - pad - (y - y_min) * (height - 2 * pad) / (y_max - y_min), 1)

    series_out = []
    for position, row in enumerate(r for r in standings if r["entry"] in points):
        line = points[row["entry"]]
        series_out.append(
            {
                "entry": row["entry"],
                "name": names[row["entry"]],
                "colour": CHART_COLOURS[position % len(CHART_COLOURS)],
                "points": " ".join(f"{sx(x)},{sy(y)}" for x, y in line),
                "last": line[-1][1],
            }
        )
    return {
        "width": width,
        "height": height,
        "left": pad,
        "right": width - pad,
        "top": pad,
        "bottom": height - pad,
        "y_min": y_min,
        "y_max": y_max,
        "x_min": x_min,
        "x_max": x_max,
        "series": series_out,
    }
