"""The live events of a competition's stream, built in the web tier
(:func:`live_events`) from the notifications the write path sends
(``tournaments.live.events``): matches started and finished, standings, rounds, the
queue and the panels that follow a result."""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import Count

from tournaments.live import events
from tournaments.live.events import celery_backlog, event
from tournaments.models import Competition, Match, RatingEvent, Round
from tournaments.ratings import display_rating
from tournaments.selectors import (
    CROSSTABLE_FORMATS,
    competition_progress,
    crosstable_for_competition,
    standings_for_competition,
)
from tournaments.watching.brackets import rounds_view
from tournaments.watching.panels import live_head_to_head, problem_bots
from tournaments.watching.queue_panel import queue_status
from tournaments.watching.rows import match_payload

log = logging.getLogger(__name__)


#: Rows a live ``standings.updated`` carries: the top of the table (the whole
#: table of a very large ladder is read through the API, not pushed per result).
LIVE_STANDINGS_ROWS = 200


#: The most matches one build announces as started or finished (the newest; the
#: panels' lists are this long at most, and a reconnect reads a snapshot anyway).
LIVE_MATCHES = 50


def standings_event(competition: Competition) -> dict[str, Any]:
    """``standings.updated`` with the top of the standings and the progress."""
    rows = standings_for_competition(competition=competition, limit=LIVE_STANDINGS_ROWS)
    return event(
        events.STANDINGS_UPDATED,
        competition.pk,
        standings=rows,
        progress=competition_progress(competition=competition),
    )


def crosstable_event(competition: Competition) -> dict[str, Any] | None:
    """``crosstable.updated`` of a round robin (None for other formats)."""
    if competition.format not in CROSSTABLE_FORMATS:
        return None
    table = crosstable_for_competition(competition=competition)
    return event(events.CROSSTABLE_UPDATED, competition.pk, crosstable=table)


def round_payload(round_: Round) -> dict[str, Any]:
    counts = dict(round_.matches.values_list("status").annotate(n=Count("id")).order_by())
    return {
        "number": round_.number,
        "status": round_.status,
        "matches": sum(counts.values()),
        "done": counts.get(Match.Status.DONE, 0),
    }


def rating_changes(match: Match) -> list[dict[str, Any]]:
    """The displayed rating (mu - 3 sigma) of each seat's entry before and after ``match``."""
    rows = RatingEvent.objects.filter(match=match).order_by("entry_id")
    return [
        {
            "entry": r.entry_id,
            "sequence": r.sequence,
            "before": display_rating(r.mu_before, r.sigma_before),
            "after": display_rating(r.mu_after, r.sigma_after),
        }
        for r in rows
    ]


def queue_status_event(competition_id: int) -> dict[str, Any]:
    """``queue.status`` of a competition, as of now, with the Celery backlog.

    It names the worker processes: the fan-out (``tournaments.sockets.fanout``) hands non-staff
    sockets its ``public_event_text``.
    """
    queue = queue_status(competition_id=competition_id, staff=True)
    queue["backlog"] = celery_backlog()
    return event(events.QUEUE_STATUS, competition_id, queue=queue)


def _match_events(competition: Competition, changes: events.Changes) -> list[dict[str, Any]]:
    out = []
    started = changes.started[-LIVE_MATCHES:]
    finished = changes.finished[-LIVE_MATCHES:]
    by_id = Match.objects.select_related("round").in_bulk([*started, *finished])
    for match_id in started:
        if match_id in by_id:
            match = by_id[match_id]
            out.append(event(events.MATCH_STARTED, competition.pk, match=match_payload(match)))
    for match_id in finished:
        if match_id in by_id:
            match = by_id[match_id]
            out.append(
                event(
                    events.MATCH_FINISHED,
                    competition.pk,
                    match=match_payload(match),
                    ratings=rating_changes(match),
                )
            )
    return out


def _round_events(competition: Competition, changes: events.Changes) -> list[dict[str, Any]]:
    finished_numbers = sorted(set(changes.rounds_finished))
    wants_started = bool(changes.kinds & {events.ROUND_STARTED, events.COMPETITION_STARTED})
    if not finished_numbers and not wants_started:
        return []
    finished = list(competition.rounds.filter(number__in=finished_numbers).order_by("number"))
    started = []
    if wants_started:
        started = list(competition.rounds.filter(status=Round.Status.RUNNING).order_by("number"))
    # The results of the rounds these events are about: the page has the others.
    changed = [r.number for r in (*finished, *started)]
    rounds = rounds_view(competition=competition, results_of=changed)
    out = []
    for round_ in finished:
        out.append(
            event(events.ROUND_FINISHED, competition.pk, round=round_payload(round_), rounds=rounds)
        )
    for round_ in started:
        out.append(
            event(events.ROUND_STARTED, competition.pk, round=round_payload(round_), rounds=rounds)
        )
    return out


def live_events(
    *,
    competition_id: int,
    changes: events.Changes,
    matches: bool = True,
    panels: bool = True,
    head_to_head: bool = True,
) -> list[dict[str, Any]]:
    """The events that the notifications gathered in ``changes`` call for, as of now.

    In the order of ``tournaments.live.events``: started and finished matches (the newest
    :data:`LIVE_MATCHES` of each; only if ``matches``), then, if ``panels``, the
    standings (after a result or a start), the rounds finished and started, the
    competition's end, the problem bots (after a result) and the queue status
    (always), and if ``head_to_head`` the head-to-head table and a round robin's
    crosstable (after a result). An unknown competition gives none.
    """
    competition = Competition.objects.filter(pk=competition_id).first()
    if competition is None or not changes:
        return []
    out = _match_events(competition, changes) if matches else []
    if panels:
        out += _panel_events(competition, changes)
    if head_to_head and changes.finished:
        table = live_head_to_head(competition=competition)
        out.append(event(events.HEAD_TO_HEAD_UPDATED, competition.pk, head_to_head=table))
        crosstable = crosstable_event(competition)
        if crosstable is not None:
            out.append(crosstable)
    return out


def _panel_events(competition: Competition, changes: events.Changes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    results = bool(changes.finished)
    standings = None
    if results or changes.kinds & {
        events.COMPETITION_STARTED,
        events.COMPETITION_STATUS,
        events.ROUND_FINISHED,
    }:
        standings = standings_event(competition)
        out.append(standings)
    out += _round_events(competition, changes)
    if events.COMPETITION_FINISHED in changes.kinds:
        rows = (
            standings["standings"]
            if standings
            else standings_for_competition(competition=competition, limit=LIVE_STANDINGS_ROWS)
        )
        out.append(
            event(
                events.COMPETITION_FINISHED,
                competition.pk,
                status=competition.status,
                closed_early=competition.closed_early,
                standings=rows,
            )
        )
    if results:
        out.append(
            event(
                events.PROBLEMS_UPDATED,
                competition.pk,
                problems=problem_bots(competition=competition),
            )
        )
    out.append(queue_status_event(competition.pk))
    return out
