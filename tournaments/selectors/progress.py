"""Reads of where competitions stand: a competition's progress, a schedule's, idle
ladders and rounds complete but still running (for the reaper)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import (
    Count,
    Q,
)
from django.utils import timezone

from tournaments.models import (
    Competition,
    Match,
    Round,
)
from tournaments.pairing import planned_matches


def competition_progress(*, competition: Competition) -> dict[str, Any]:
    """Match counts by status, games played, the competition's status."""
    counts = dict(competition.matches.values_list("status").annotate(n=Count("id")).order_by())
    competition.refresh_from_db(fields=["status"])
    row = {status: counts.get(status, 0) for status in Match.Status.values}
    row["total"] = sum(counts.values())
    row["games"] = row[Match.Status.DONE] * competition.games_per_match
    row["competition"] = competition.status
    row["schedule"] = schedule_progress(
        competition=competition, done=row[Match.Status.DONE], created=row["total"]
    )
    return row


def entries_without_games(*, competition: Competition) -> list[str]:
    """The names of the competition's entries still in it (not withdrawn) that have
    played no game, in entry order: what closing a season early warns of."""
    idle = competition.entries.filter(withdrawn=False, games=0).select_related(
        "bot__owner", "partner__owner"
    )
    return [entry.name for entry in idle.order_by("seed_order", "id")]


def schedule_progress(
    *, competition: Competition, done: int, created: int, planned: int | None | bool = False
) -> dict[str, Any]:
    """Matches ``done`` out of the whole schedule: ``{"done", "total", "total_known"}``.

    ``total`` is every match the format will play (``pairing.planned_matches``: a round
    robin's or a Swiss's whole schedule from the start, a knockout's most), never fewer
    than the ``created`` matches. A ladder has no end: its ``total`` is the matches
    created so far and ``total_known`` is False ("of at least"). ``planned``: the
    competition's ``planned_matches`` if the caller read it already.
    """
    if planned is False:
        planned = planned_matches(competition)
    return {
        "done": done,
        "total": max(created, planned or 0),
        "total_known": planned is not None,
    }


def ladders_idle() -> list[Competition]:
    """Running ladders with no open match (and, paced, none finished within the pause), but
    standing open ladders nobody entered (house bots alone: they rest)."""
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    ladders = (
        Competition.objects.filter(
            status=Competition.Status.RUNNING, format=Competition.Format.LADDER
        )
        .exclude(matches__status__in=open_)
        .filter(Q(standing="") | Q(entries__bot__owner__isnull=False))
    )
    pause = settings.CARDROOM_LADDER_PAUSE_S
    if pause > 0:
        ladders = ladders.exclude(
            matches__finished_at__gt=timezone.now() - timedelta(seconds=pause)
        )
    return list(ladders.distinct())


def rounds_complete_but_running() -> list[Round]:
    """Running rounds of running competitions whose matches are all done (their last
    recorder died before it closed them), or, in a ladder, done or failed (a failed match
    holds up no batch), with their competition."""
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    rounds = (
        Round.objects.filter(
            status=Round.Status.RUNNING, competition__status=Competition.Status.RUNNING
        )
        .filter(matches__isnull=False)
        .exclude(matches__status__in=open_)
        .exclude(
            ~Q(competition__format=Competition.Format.LADDER), matches__status=Match.Status.FAILED
        )
        .select_related("competition")
        .distinct()
    )
    return list(rounds)
