"""Allowances of competitions' work: version tests, entries in open ladders, challenges.

The allowances, their limits and their refusal are ``bots.allowances``; this module
counts what a user uses of those that concern competitions' work and checks them for
the services (``tournaments.services.entry_create``,
``tournaments.services.version_tests.version_test_create``,
``tournaments.services.challenges.challenge_create``: :func:`challenge_allowed`). Organisers' own
competitions are limited by their own settings (the games per match, the entries they
accept), not by the organiser's personal allowance: an entry into a competition its
maker manages is not counted.

Games count what was played. While a version test or a challenge runs, the games it may
still play are reserved as well (a request beyond what is left is refused whole); once
it ends, what it did not play is given back: a test that decided early, a cancelled test
or challenge, a failed test, a challenge's failed match.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, Sum

import games
from bots import allowances
from tournaments.models import Challenge, Competition, Entry, Match, MatchStderrLog, VersionTest

Format, Status = Competition.Format, Competition.Status
LADDER_OPEN = (Status.DRAFT, Status.RUNNING, Status.PAUSED)


def ladder_entries_used(*, user) -> int:
    """Entries of ``user``'s bots in open ladders that ``user`` does not organise."""
    managed = Q(competition__created_by_id=user.pk) | Q(competition__organisers__pk=user.pk)
    entries = Entry.objects.filter(
        bot__owner_id=user.pk,
        withdrawn=False,
        competition__format=Format.LADDER,
        competition__status__in=LADDER_OPEN,
    ).exclude(managed)
    return entries.values("pk").distinct().count()


def ladder_entry_allowed(*, user, competition: Competition, manages: bool) -> None:
    """Raise ``AllowanceExceeded`` if ``user`` may not enter one more bot into the open
    ladder ``competition``; entries into other formats, and by the competition's
    managers (``manages``), are limited by the competition's own settings."""
    if competition.format != Format.LADDER or manages:
        return
    allowances.user_lock(user=user)
    allowances.allowance_check(
        user=user, name="ladder_entries", used=ladder_entries_used(user=user)
    )


def _tests_of(user) -> Any:
    return VersionTest.objects.filter(bot__owner_id=user.pk)


#: A version test that may still play (its ``max_games`` reserved).
VERSION_TEST_OPEN = (VersionTest.Status.PENDING, VersionTest.Status.RUNNING)
#: A challenge's match that was played, or may still be (its games reserved); a failed
#: one (a fault, or cancelled in play) gives its games back.
MATCH_COUNTED = (Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING, Match.Status.DONE)


def version_tests_open(*, user) -> int:
    return _tests_of(user).filter(status__in=VERSION_TEST_OPEN).count()


def _seats(variant: str, options: dict[str, Any]) -> int:
    """The games of one deal of a version test (one a seat rotation); 1 for a variant this
    installation no longer plays (at least one game a deal)."""
    try:
        return games.load(variant, **options).num_players
    except (TypeError, ValueError):
        return 1


def version_test_games_today(*, user) -> int:
    """The version-test games of ``user``'s tests made today: those an open test may play
    (``max_games``, reserved), those an ended one played (its deals times its seats)."""
    today = _tests_of(user).filter(created_at__gte=allowances.day_start())
    reserved = today.filter(status__in=VERSION_TEST_OPEN).aggregate(total=Sum("max_games"))
    ended = (
        today.exclude(status__in=VERSION_TEST_OPEN)
        .values_list("variant", "options")
        .annotate(deals=Sum("trials"))
        .order_by()
    )
    played = sum(deals * _seats(variant, options) for variant, options, deals in ended)
    return (reserved["total"] or 0) + played


def version_test_allowed(*, user, games: int) -> None:
    """Raise ``AllowanceExceeded`` if ``user`` (the bot's owner) may not ask for a version
    test of up to ``games`` games: open tests, then games asked for today."""
    allowances.user_lock(user=user)
    allowances.allowance_check(
        user=user, name="open_version_tests", used=version_tests_open(user=user)
    )
    allowances.worker_seconds_check(user=user)
    allowances.allowance_check(
        user=user,
        name="version_test_games_per_day",
        used=version_test_games_today(user=user),
        asked=games,
    )


def challenges_open(*, user) -> int:
    """``user``'s challenges still running (``tournaments.services.challenges``)."""
    return Challenge.objects.filter(created_by_id=user.pk, status=Challenge.Status.RUNNING).count()


def challenge_games_today(*, user) -> int:
    """The games of ``user``'s challenges made today: those of their matches played, and
    of those that wait or play (reserved). Games of a match that failed, or that was
    dropped when its challenge was cancelled, are given back."""
    matches = Match.objects.filter(
        competition__challenge__created_by_id=user.pk,
        competition__challenge__created_at__gte=allowances.day_start(),
        status__in=MATCH_COUNTED,
    )
    return matches.aggregate(total=Sum("competition__games_per_match"))["total"] or 0


def challenge_allowed(*, user, games: int) -> None:
    """Raise ``AllowanceExceeded`` if ``user`` may not ask for one more challenge of
    ``games`` games: open challenges, then challenge games asked for today (a request
    beyond them is refused whole, never cut down). Call it inside the transaction that
    creates the challenge."""
    allowances.user_lock(user=user)
    allowances.allowance_check(user=user, name="open_challenges", used=challenges_open(user=user))
    allowances.worker_seconds_check(user=user)
    allowances.allowance_check(
        user=user,
        name="challenge_games_per_day",
        used=challenge_games_today(user=user),
        asked=games,
    )


def stderr_log_bytes_used(*, user) -> int:
    """The compressed bytes of the full stderr logs kept for ``user``'s bots."""
    kept = MatchStderrLog.objects.filter(owner_id=user.pk, dropped_at__isnull=True)
    return kept.aggregate(total=Sum("size"))["total"] or 0


def usage_for_user(*, user) -> list[dict[str, Any]]:
    """Every allowance of ``user`` with its limit, what is used and what is left, in the
    order of ``bots.allowances.ALLOWANCES``."""
    used = {
        **allowances.bot_usage(user=user),
        "version_test_games_per_day": version_test_games_today(user=user),
        "open_version_tests": version_tests_open(user=user),
        "challenge_games_per_day": challenge_games_today(user=user),
        "open_challenges": challenges_open(user=user),
        "ladder_entries": ladder_entries_used(user=user),
        "stderr_log_bytes": stderr_log_bytes_used(user=user),
    }
    rows = []
    for name, allowance in allowances.ALLOWANCES.items():
        limit = allowances.allowance_limit(user=user, name=name)
        count = used.get(name, 0)
        rows.append(
            {
                "name": name,
                "label": allowance.label,
                "daily": allowance.daily,
                "limit": limit,
                "used": count,
                "left": max(limit - count, 0),
                "renews_at": allowances.renews_at(name),
            }
        )
    return rows
