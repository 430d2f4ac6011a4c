"""Reads of the bot pages: who may see a bot, and what its page shows.

A bot's page is public once the bot plays in a competition the viewer may watch
(built-in bots always are); until then only its owner and staff see it. Matches,
ratings and head-to-head count only competitions the viewer may watch
(``tournaments.selectors.competitions_visible_to``). Stderr and files are the
owner's (and staff's) alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Case, Count, F, Q, QuerySet, When

import games
from bots import validation, waiting
from bots.models import Bot, BotVersion
from bots.selectors import variants_passed
from tournaments.formats.common import PARTNER_TABLE_SIZE
from tournaments.models import Challenge, Competition, Entry, MatchSeat, VersionTest
from tournaments.ratings import display_rating
from tournaments.selectors import (
    challenge_progress,
    challenges_visible_to,
    competitions_visible_to,
    entries_of_bot,
    entries_with_outlook,
    entry_outlook,
    played_seats,
    rating_history_for_entry,
    version_tests,
)
from tournaments.services import entries_open_statuses
from tournaments.worker import queue_places as work_waiting
from web import words

#: The bot page lists this many recent matches and this many most frequent opponents.
RECENT_MATCHES = 20
#: The bot page lists this many of the bot's most recent version tests.
RECENT_VERSION_TESTS = 20
TOP_OPPONENTS = 5


def may_manage_bot(*, bot: Bot, user) -> bool:
    """Only the owner (and staff) upload, enter, read stderr and download files."""
    return bool(user.is_authenticated and (user.is_staff or bot.owner_id == user.pk))


def bots_visible_to(*, user) -> QuerySet[Bot]:
    """The bots whose page ``user`` may open: built-in ones, their own, and those entered
    in a competition ``user`` may watch (every bot, for staff)."""
    if user.is_authenticated and user.is_staff:
        return Bot.objects.all()
    watched = competitions_visible_to(user=user).values("pk")
    seen = Q(entries__competition__in=watched) | ~Q(builtin="")
    if user.is_authenticated:
        seen |= Q(owner=user)
    return Bot.objects.filter(pk__in=Bot.objects.filter(seen).values("pk"))


@dataclass
class VersionView:
    """One version as its page shows it: the status in words and the report's parts."""

    version: BotVersion
    status_words: str
    upload: dict[str, Any] | None
    validation: dict[str, Any] | None
    statuses: list[dict[str, str]] = field(default_factory=list)
    stderr_tail: str | None = None
    #: The report in words (``bots.validation.report_lines``), as ``manage.py validate``
    #: prints it.
    lines: list[str] = field(default_factory=list)
    #: Those of ``lines`` that warn of a time budget nearly used up.
    warnings: list[str] = field(default_factory=list)
    #: The variants it declares (empty: every one), those it passed, those it plays (those
    #: it passed once ready; none while validated or once rejected) and those it failed.
    declared: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    plays: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    #: The variants it may still be validated in (a ready version's owner only).
    missing: list[str] = field(default_factory=list)
    queued: bool = False
    #: Where its validation waits for a worker, in words (empty once started).
    waiting: str = ""
    #: The owner's form to validate it in more variants (set by the view).
    validate_form: Any = None

    @property
    def finished(self) -> bool:
        return self.version.status in (BotVersion.Status.READY, BotVersion.Status.REJECTED)


def versions_for_page(*, bot: Bot, with_logs: bool) -> list[VersionView]:
    """The versions of ``bot``, newest first; the stderr tail and the upload's details (its
    file name and the command that runs it) only ``with_logs``: the files are the owner's."""
    views = []
    for version in bot.versions.order_by("-number").prefetch_related("passes"):
        report = dict(version.validation_report or {})
        upload = report.pop("upload", None)
        queued = isinstance(report.pop("queue", None), dict)
        passed = variants_passed(version=version)
        ready = version.status == BotVersion.Status.READY and not bot.builtin
        statuses = [
            {
                "game": i,
                "status": s.get("status", ""),
                "words": words.game_status(s.get("status", "")),
                "reason": s.get("reason", ""),
            }
            for i, s in enumerate(report.get("statuses") or [], start=1)
            if isinstance(s, dict)
        ]
        views.append(
            VersionView(
                version=version,
                status_words=words.version_status(version.status),
                upload=upload if with_logs else None,
                validation=report or None,
                statuses=statuses,
                stderr_tail=report.get("stderr_tail") if with_logs else None,
                lines=validation.report_lines(report) if report else [],
                warnings=validation.report_warnings(report) if report else [],
                declared=list(version.variants or []),
                passed=passed,
                plays=passed if version.status == BotVersion.Status.READY else [],
                failed=_failed_variants(report),
                missing=[v for v in games.variants() if v not in passed] if ready else [],
                queued=queued,
                waiting=words.waiting_place(
                    waiting.validation_place(version), version.validation_report
                )
                if queued
                else "",
            )
        )
    return views


def _failed_variants(report: dict[str, Any]) -> list[str]:
    """The variants whose validation match a report says failed."""
    variants = report.get("variants")
    if not isinstance(variants, dict):
        return []
    return [
        name for name, found in variants.items() if isinstance(found, dict) and not found.get("ok")
    ]


def entries_for_page(*, bot: Bot, user) -> list[dict[str, Any]]:
    """The bot's entries in competitions ``user`` may watch, each with where it stands
    (``tournaments.selectors.entry_outlook``: the version that plays, or why it waits or
    cannot play) and its rating history."""
    watched = competitions_visible_to(user=user).values("pk")
    entries = (
        Entry.objects.filter(bot=bot, competition__in=watched)
        .select_related("competition", "bot", "partner", "pinned_version")
        .prefetch_related(*entries_with_outlook())
        .order_by("-competition__created_at", "-competition_id")
    )
    rows = []
    for entry in entries:
        history = rating_history_for_entry(entry=entry)
        rows.append(
            {
                "entry": entry,
                "competition": entry.competition,
                "status_words": words.competition_status(entry.competition.status),
                "outlook": entry_outlook(entry=entry),
                "rating": display_rating(entry.mu, entry.sigma),
                "history": history,
                "chart": _sparkline([point["rating"] for point in history]),
            }
        )
    return rows


def _sparkline(values: list[float], width: int = 240, height: int = 40) -> str:
    """SVG polyline points of ``values`` scaled into ``width`` x ``height`` ("" if < 2)."""
    if len(values) < 2:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = width / (len(values) - 1)
    return " ".join(
        f"{i * step:.1f},{height - (v - low) / span * height:.1f}" for i, v in enumerate(values)
    )


def recent_matches(*, bot: Bot, user, limit: int = RECENT_MATCHES) -> list[dict[str, Any]]:
    """The bot's last finished matches in watched competitions: the bot's rank and score
    and every opponent's, newest first."""
    seats = (
        played_seats(bot, user)
        .select_related("match", "match__competition", "version")
        .order_by("-match__finished_at", "-match_id")[:limit]
    )
    matches = [seat.match for seat in seats]
    others: dict[int, list[MatchSeat]] = {}
    for other in (
        MatchSeat.objects.filter(match__in=matches)
        .exclude(entries_of_bot(bot))  # nor its own team's partner
        .select_related("entry__bot__owner", "entry__partner__owner")
        .order_by("seat")
    ):
        others.setdefault(other.match_id, []).append(other)
    return [
        {
            "match": seat.match,
            "competition": seat.match.competition,
            "rank": seat.rank,
            "score": seat.score,
            "points": seat.points,
            "version": seat.version.number if seat.version is not None else None,
            "opponents": [
                {"bot": o.entry.bot_at(o.seat), "rank": o.rank, "score": o.score}
                for o in others.get(seat.match_id, [])
            ],
        }
        for seat in seats
    ]


def head_to_head(*, bot: Bot, user, limit: int = TOP_OPPONENTS) -> list[dict[str, Any]]:
    """Against its ``limit`` most frequent opponents (in watched competitions): matches
    together, and how often the bot finished ahead of, behind or level with each."""
    mine = dict(played_seats(bot, user).values_list("match_id", "rank"))
    if not mine:
        return []
    meetings: Counter[int] = Counter()
    ahead: Counter[int] = Counter()
    behind: Counter[int] = Counter()
    for match_id, opponent, rank in (
        MatchSeat.objects.filter(match_id__in=mine)
        .exclude(entries_of_bot(bot))
        .annotate(
            player=Case(  # the bot at that seat (Entry.bot_at)
                When(
                    entry__partner__isnull=False,
                    seat__gte=PARTNER_TABLE_SIZE // 2,
                    then=F("entry__partner_id"),
                ),
                default=F("entry__bot_id"),
            )
        )
        .values_list("match_id", "player", "rank")
    ):
        meetings[opponent] += 1
        own = mine[match_id]
        if own is not None and rank is not None:
            ahead[opponent] += own < rank
            behind[opponent] += own > rank
    top = [opponent for opponent, _ in meetings.most_common(limit)]
    bots = Bot.objects.select_related("owner").in_bulk(top)
    return [
        {
            "opponent": bots[o],
            "matches": meetings[o],
            "ahead": ahead[o],
            "behind": behind[o],
            "level": meetings[o] - ahead[o] - behind[o],
        }
        for o in top
    ]


def open_competitions_for(*, user) -> QuerySet[Competition]:
    """Competitions ``user`` may watch that take entries (``entries_open_statuses``):
    drafts, and ladders until they end."""
    ladders = Q(format=Competition.Format.LADDER) & Q(
        status__in=entries_open_statuses(Competition.Format.LADDER)
    )
    return competitions_visible_to(user=user).filter(Q(status=Competition.Status.DRAFT) | ladders)


def version_test_view(test: VersionTest) -> dict[str, Any]:
    """One version test as the bot page shows it (and its status URL answers): the games
    played, the LLR between its bounds, its status and where it stands in words."""
    sprt = version_tests.sprt_of(test)
    games_played = test.trials * version_tests.players_of(test)
    over = test.status not in (VersionTest.Status.PENDING, VersionTest.Status.RUNNING)
    return {
        "test": test,
        "id": test.pk,
        "new": test.new.number,
        "old": test.old.number,
        "status": test.status,
        "status_words": words.VERSION_TEST_STATUS.get(test.status, test.status),
        "games": games_played,
        "llr": test.llr,
        "lower": sprt.lower,
        "upper": sprt.upper,
        "outcome": words.version_test_outcome(
            status=test.status,
            decision=test.decision,
            new=test.new.number,
            old=test.old.number,
            games=games_played,
            error=test.error,
        ),
        "finished": over,
        "waiting": words.waiting_place(work_waiting.version_test_place(test)),
    }


def version_tests_for_page(*, bot: Bot) -> list[dict[str, Any]]:
    """The bot's most recent version tests, newest first (for its owner and staff only)."""
    tests = VersionTest.objects.filter(bot=bot).select_related("new", "old")
    return [version_test_view(test) for test in tests[:RECENT_VERSION_TESTS]]


#: The bot page lists this many of the challenges the bot played (or was asked to play).
RECENT_CHALLENGES = 20


def challenges_for_bot(*, bot: Bot, user) -> list[dict[str, Any]]:
    """The challenges ``bot`` plays in that ``user`` may see (those they asked for, and
    those their bots were asked to play), newest first, each with who asked, the table
    and how far it got."""
    found = (
        challenges_visible_to(user=user)
        .filter(competition__entries__bot=bot)
        .select_related("competition", "bot", "version", "created_by")
        .distinct()
        .order_by("-created_at", "-id")[:RECENT_CHALLENGES]
    )
    rows = []
    for challenge in found:
        progress = challenge_progress(challenge=challenge)
        rows.append(
            {
                "challenge": challenge,
                "asked": challenge.bot_id == bot.pk,
                "table": " vs ".join(_seat_words(seat) for seat in progress["seats"]),
                "status_words": words.challenge_status(challenge.status),
                "progress": progress,
            }
        )
    return rows


def _seat_words(seat: dict[str, Any]) -> str:
    return seat["bot"] if seat["version"] is None else f"{seat['bot']} v{seat['version']}"


def challenge_view(*, challenge: Challenge, user) -> dict[str, Any]:
    """A challenge as its page shows it (and its status URL answers): the table, the
    games played, each seat's record so far, its matches, and whether ``user`` may
    cancel it."""
    progress = challenge_progress(challenge=challenge)
    for seat in progress["seats"]:
        seat["label"] = _seat_words(seat)
        rank = seat["mean_rank"]
        seat["mean_rank"] = round(rank, 3) if rank is not None else None
    running = challenge.status == Challenge.Status.RUNNING
    asker = user.is_authenticated and (user.is_staff or challenge.created_by_id == user.pk)
    matches = [
        {
            "id": m.pk,
            "table": m.table,
            "status": m.status,
            "status_words": words.match_status(m.status),
            "games": m.game_count,
        }
        for m in challenge.competition.matches.annotate(game_count=Count("game_records")).order_by(
            "table", "id"
        )
    ]
    return {
        "status": challenge.status,
        "status_words": words.challenge_status(challenge.status),
        "finished": not running,
        "may_cancel": running and asker,
        "table": " vs ".join(seat["label"] for seat in progress["seats"]),
        "progress": progress,
        "matches": matches,
        "waiting": words.waiting_place(work_waiting.challenge_place(challenge)),
    }
