"""Reads of one bot's record across competitions: the seats it played, its entries, and
per version its finished matches, games and mean place (read by the bot's page and
by ``GET /api/bots/<id>/``)."""

from __future__ import annotations

from typing import Any

from django.db.models import (
    Avg,
    Count,
    Q,
    QuerySet,
    Sum,
)

from bots.models import Bot
from tournaments.formats.common import PARTNER_TABLE_SIZE
from tournaments.models import (
    Competition,
    Entry,
    MatchSeat,
)
from tournaments.selectors.visibility import competitions_visible_to


def seats_played_by(bot: Bot) -> Q:
    """The match seats ``bot`` played, one a match (``Entry.bot_at``): its entry's seat,
    or a team's first seat when it leads the team, its second seat when it is the
    partner (a bot at both seats of its side counts once, at the first)."""
    second = PARTNER_TABLE_SIZE // 2
    lead = Q(entry__bot=bot) & (Q(entry__partner__isnull=True) | Q(seat__lt=second))
    return lead | (Q(entry__partner=bot, seat__gte=second) & ~Q(entry__bot=bot))


def entries_of_bot(bot: Bot) -> Q:
    """The entries ``bot`` plays in (as their bot, or as a team's partner), as a filter
    of match seats."""
    return Q(entry__bot=bot) | Q(entry__partner=bot)


def team_invitations_for(*, user, bot: Bot | None = None) -> QuerySet[Entry]:
    """The teams waiting for ``user`` to accept or decline: entries of drafts whose
    partner is a bot of theirs (``bot`` only, if given), oldest first. Seen by that
    owner whether or not they may watch the competition (its name is in the invitation)."""
    if user is None or not user.is_authenticated:
        return Entry.objects.none()
    entries = Entry.objects.filter(
        partner__owner=user, partner_pending=True, competition__status=Competition.Status.DRAFT
    )
    if bot is not None:
        entries = entries.filter(partner=bot)
    return entries.select_related("competition", "bot__owner", "partner__owner").order_by(
        "created_at", "id"
    )


def played_seats(bot: Bot, user) -> QuerySet[MatchSeat]:
    """The seats ``bot`` played in finished matches of the competitions ``user`` may
    watch."""
    watched = competitions_visible_to(user=user).values("pk")
    return MatchSeat.objects.filter(
        seats_played_by(bot), match__competition__in=watched, match__status="done"
    )


def version_records(*, bot: Bot, user) -> list[dict[str, Any]]:
    """Per version of ``bot`` (newest first), its record in finished matches of the
    competitions ``user`` may watch: ``number``, ``status``, ``matches``, ``games``
    (played in those matches) and ``mean_rank`` (its mean place in a match; None if
    unplayed)."""
    played = (
        played_seats(bot, user)
        .filter(version__isnull=False)
        .values("version_id")
        .annotate(
            matches=Count("pk"),
            games=Sum("match__competition__games_per_match"),
            mean_rank=Avg("rank"),
        )
    )
    by_version = {row["version_id"]: row for row in played}
    rows = []
    for version in bot.versions.order_by("-number"):
        row = by_version.get(version.pk, {})
        rows.append(
            {
                "number": version.number,
                "status": version.status,
                "matches": row.get("matches", 0),
                "games": row.get("games") or 0,
                "mean_rank": row.get("mean_rank"),
            }
        )
    return rows
