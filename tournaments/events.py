"""Live events of a competition, sent to its channel-layer group ``competition.<id>``.

The services announce what changed after their transaction commits; the
consumers (``tournaments.consumers``) relay the events to the browsers. Every
event is a JSON-safe dict with a ``type``, the ``competition`` id and a payload:

=======================  ==========================================================
``match.started``        ``match``: the match (id, round, table, status, seats).
``match.finished``       ``match``: the match, its seats with ``rank`` and ``score``,
                         and the ids of its ``games`` (for the replay page).
``standings.updated``    ``standings``: the rows of ``standings_for_competition``;
                         ``progress``: ``competition_progress``.
``round.started``        ``round``: ``{"number", "status", "matches"}``.
``round.finished``       ``round``: ``{"number", "status", "matches"}``.
``competition.finished`` ``status``: the final status; ``standings``: the final rows.
=======================  ==========================================================

Events are notifications, delivered at most once to the sockets connected at the
time and possibly repeated (two results recorded at the same moment may both see
a round finished); a socket that (re)connects first receives a ``snapshot`` of the
current state, so nothing depends on having seen every event. Sending never
breaks a service: if the channel layer is down the failure is logged and the
caller goes on.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from tournaments.models import Competition, Match, Round

log = logging.getLogger(__name__)

MATCH_STARTED = "match.started"
MATCH_FINISHED = "match.finished"
STANDINGS_UPDATED = "standings.updated"
ROUND_STARTED = "round.started"
ROUND_FINISHED = "round.finished"
COMPETITION_FINISHED = "competition.finished"
SNAPSHOT = "snapshot"

EVENT_TYPES = frozenset(
    {
        MATCH_STARTED,
        MATCH_FINISHED,
        STANDINGS_UPDATED,
        ROUND_STARTED,
        ROUND_FINISHED,
        COMPETITION_FINISHED,
    }
)

#: The channel-layer message type that carries an event to the consumers.
RELAY_MESSAGE_TYPE = "competition.event"


def group_name(competition_id: int) -> str:
    """The channel-layer group of a competition: ``competition.<id>``."""
    return f"competition.{int(competition_id)}"


def event(kind: str, competition_id: int, **payload: Any) -> dict[str, Any]:
    """An event of type ``kind``; raises ``ValueError`` for an unknown type."""
    if kind not in EVENT_TYPES and kind != SNAPSHOT:
        raise ValueError(f"unknown event type {kind!r}")
    return {"type": kind, "competition": int(competition_id), **payload}


def relay_message(event: dict[str, Any]) -> dict[str, Any]:
    """The channel-layer message carrying ``event``, encoded once for every socket."""
    return {
        "type": RELAY_MESSAGE_TYPE,
        "event_type": event["type"],
        "text": json.dumps(event, separators=(",", ":")),
    }


def broadcast(competition_id: int, event: dict[str, Any]) -> bool:
    """Send ``event`` to the group of the competition; True if it was handed to the layer.

    Never raises: a missing or unreachable channel layer is logged and ignored, so
    that recording a result never depends on the live view.
    """
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        async_to_sync(layer.group_send)(group_name(competition_id), relay_message(event))
        return True
    except Exception:
        log.warning(
            "could not broadcast %s of competition %s",
            event.get("type"),
            competition_id,
            exc_info=True,
        )
        return False


def match_payload(match: Match) -> dict[str, Any]:
    """A match with its seats (bot names, and ranks once it is done)."""
    seats = match.seats.select_related("entry__bot__owner").order_by("seat")
    return {
        "id": match.pk,
        "round": match.round.number if match.round_id else None,
        "table": match.table,
        "status": match.status,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "seats": [
            {
                "seat": s.seat,
                "entry": s.entry_id,
                "name": str(s.entry.bot),
                "rank": s.rank,
                "score": s.score,
            }
            for s in seats
        ],
        "games": (
            list(match.game_records.order_by("index").values_list("pk", flat=True))
            if match.status == Match.Status.DONE
            else []
        ),
    }


#: Rows a live ``standings.updated`` carries: the top of the table (the whole
#: table of a very large ladder is read through the API, not pushed per result).
LIVE_STANDINGS_ROWS = 200


def standings_event(competition: Competition) -> dict[str, Any]:
    """``standings.updated`` with the top of the standings and the progress."""
    from tournaments.execution import competition_progress
    from tournaments.selectors import standings_for_competition

    return event(
        STANDINGS_UPDATED,
        competition.pk,
        standings=standings_for_competition(competition=competition, limit=LIVE_STANDINGS_ROWS),
        progress=competition_progress(competition=competition),
    )


def _round_payload(round_: Round) -> dict[str, Any]:
    return {"number": round_.number, "status": round_.status, "matches": round_.matches.count()}


def announce_match_recorded(*, match_id: int) -> None:
    """After a result is committed: the match, the standings, and any round or end change."""
    try:
        match = Match.objects.select_related("competition", "round").get(pk=match_id)
        competition = match.competition
        events = [event(MATCH_FINISHED, competition.pk, match=match_payload(match))]
        events.append(standings_event(competition))
        round_ = match.round
        if round_ is not None and round_.status == Round.Status.FINISHED:
            events.append(event(ROUND_FINISHED, competition.pk, round=_round_payload(round_)))
            following = competition.rounds.filter(number=round_.number + 1).first()
            if following is not None:
                events.append(event(ROUND_STARTED, competition.pk, round=_round_payload(following)))
        if competition.status == Competition.Status.FINISHED:
            events.append(_finished_event(competition, events[1]["standings"]))
    except Exception:
        log.warning("could not build the events of match %s", match_id, exc_info=True)
        return
    for item in events:
        broadcast(competition.pk, item)


def announce_match_started(*, match_id: int) -> None:
    """After a worker claimed a match: ``match.started`` for its competition."""
    match = Match.objects.filter(pk=match_id).select_related("competition").first()
    if match is not None:
        broadcast(
            match.competition_id,
            event(MATCH_STARTED, match.competition_id, match=match_payload(match)),
        )


def announce_competition_started(*, competition_id: int) -> None:
    """After a competition started: its first round and the (initial) standings."""
    try:
        competition = Competition.objects.get(pk=competition_id)
        events = [
            event(ROUND_STARTED, competition.pk, round=_round_payload(r))
            for r in competition.rounds.filter(status=Round.Status.RUNNING)
        ]
        events.append(standings_event(competition))
    except Exception:
        log.warning("could not build the start events of %s", competition_id, exc_info=True)
        return
    for item in events:
        broadcast(competition.pk, item)


def _finished_event(competition: Competition, standings: list[dict[str, Any]]) -> dict[str, Any]:
    return event(
        COMPETITION_FINISHED, competition.pk, status=competition.status, standings=standings
    )
