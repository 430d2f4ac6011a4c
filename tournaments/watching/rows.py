"""A match as the dashboard's panels show it: its row (seats, names, scores, status)
and its score line."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.db.models import Prefetch

from tournaments.formats.match_result import describe_decision, points_text
from tournaments.models import Competition, Match, MatchSeat

log = logging.getLogger(__name__)


def _entry_names(competition: Competition) -> dict[int, str]:
    """Entry id -> its name (``Entry.name``: a team's two bots)."""
    entries = competition.entries.select_related("bot__owner", "partner__owner")
    return {e.pk: e.name for e in entries}


def _match_rows(matches: Iterable[Match], names: dict[int, str]) -> list[dict[str, Any]]:
    """Matches with their seats, as ``match_payload`` without the games: two queries.

    Each seat has its match ``points`` (game points) beside ``rank`` and ``score``; a
    knockout match has ``decided_by`` and ``tiebreak``, the line saying how a level
    match was decided (None when its games decided it).
    """
    rows = []
    for m in matches:
        seats = [
            {
                "seat": s.seat,
                "entry": s.entry_id,
                "name": names.get(s.entry_id, str(s.entry_id)),
                "rank": s.rank,
                "score": s.score,
                "points": s.points,
            }
            for s in m.seats.all()
        ]
        rows.append(
            {
                "id": m.pk,
                "round": m.round.number if m.round_id else None,
                "table": m.table,
                "node": m.node,
                "status": m.status,
                "seats": seats,
                "decided_by": m.decided_by,
                "tiebreak": describe_decision(
                    m.decided_by, [s["name"] for s in seats], [s["score"] for s in seats]
                ),
            }
        )
    return rows


def _with_seats(queryset):
    return queryset.select_related("round").prefetch_related(
        Prefetch("seats", queryset=MatchSeat.objects.order_by("seat"))
    )


def score_line(seats: list[dict[str, Any]]) -> str | None:
    """A played match's game score in seat order, e.g. ``"2-0"`` or ``"1½-½"`` (two
    seats), ``"2-1½-½"`` (more); None before it is played."""
    if any(seat.get("points") is None for seat in seats):
        return None
    return "-".join(points_text(seat["points"]) for seat in seats)


def match_payload(match: Match) -> dict[str, Any]:
    """A match with its seats (bot names, and ranks once it is done)."""
    seats = match.seats.select_related("entry__bot__owner", "entry__partner__owner")
    seats = list(seats.order_by("seat"))
    names = [str(s.entry.bot_at(s.seat)) for s in seats]  # a team's partner at its second seat
    return {
        "id": match.pk,
        "round": match.round.number if match.round_id else None,
        "table": match.table,
        "node": match.node,
        "status": match.status,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "seats": [
            {
                "seat": s.seat,
                "entry": s.entry_id,
                "name": name,
                "rank": s.rank,
                "score": s.score,
                "points": s.points,
            }
            for s, name in zip(seats, names, strict=True)
        ],
        "decided_by": match.decided_by,
        "tiebreak": describe_decision(match.decided_by, names, [s.score for s in seats]),
        "games": (
            list(match.game_records.order_by("index").values_list("pk", flat=True))
            if match.status == Match.Status.DONE
            else []
        ),
    }
