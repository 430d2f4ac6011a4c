"""Reads of challenges: those a user may see, those settled while still running, and a
challenge's progress (games played, counting those its matches in play published)."""

from __future__ import annotations

from typing import Any

from django.db.models import (
    Avg,
    Count,
    Q,
    QuerySet,
    Sum,
)

from bots.referee.match import schedule
from tournaments.live import publisher as live
from tournaments.models import (
    Challenge,
    Competition,
    Entry,
    GameRecord,
    Match,
    MatchSeat,
)


def challenges_visible_to(*, user) -> QuerySet[Challenge]:
    """The challenges ``user`` may see: those they asked for and those a bot of theirs
    was asked to play (every one, for staff; none for an anonymous visitor)."""
    if user is None or not user.is_authenticated:
        return Challenge.objects.none()
    if user.is_staff:
        return Challenge.objects.all()
    theirs = Entry.objects.filter(bot__owner=user).values("competition_id")
    return Challenge.objects.filter(Q(created_by=user) | Q(competition_id__in=theirs))


def challenges_settled_but_running() -> list[int]:
    """The competitions of running challenges none of whose matches waits or plays any
    more (their last recorder died before it closed them)."""
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    return list(
        Challenge.objects.filter(status=Challenge.Status.RUNNING)
        .exclude(competition__matches__status__in=open_)
        .values_list("competition_id", flat=True)
    )


def _games_in_play(competition: Competition) -> int:
    """The games its matches in play have finished so far, as their workers publish them
    (``tournaments.live.publisher``): a challenge's match of twelve games counts each as it ends."""
    running = Match.objects.filter(competition=competition, status=Match.Status.RUNNING)
    finished = 0
    for match in running.only("pk", "attempts", "claimed_by", "lease_until"):
        head = live.live_head(match_id=match.pk, token=live.claim_token(match))
        finished += len(head.games) if head is not None else 0
    return finished


def _game_ranks(competition: Competition) -> dict[int, list[int]]:
    """Per entry, its rank in each game of the competition's finished matches (play-off
    games aside): a game's ranking is by table seat, and the seats of a match's players
    turn from rotation to rotation of a duplicate match (``bots.referee.match.schedule``)."""
    seats = MatchSeat.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE
    ).values_list("match_id", "seat", "entry_id")
    players: dict[int, dict[int, int]] = {}
    for match_id, player, entry_id in seats:
        players.setdefault(match_id, {})[player] = entry_id
    plan = schedule(competition.games_per_match, competition.seats_per_table, competition.duplicate)
    out: dict[int, list[int]] = {}
    records = GameRecord.objects.filter(match_id__in=list(players), playoff=0).values_list(
        "match_id", "index", "ranking"
    )
    for match_id, index, ranking in records:
        if index >= len(plan):
            continue
        for seat, player in enumerate(plan[index][1]):
            entry_id = players[match_id].get(player)
            if entry_id is not None and seat < len(ranking):
                out.setdefault(entry_id, []).append(ranking[seat])
    return out


def challenge_progress(*, challenge: Challenge) -> dict[str, Any]:
    """Where ``challenge`` stands: its games asked for and played, its matches by status,
    and per seat of its table (its entries, in seat order) the bot, the version and, over
    the games of its matches played so far, every figure counted per game: the games, the
    wins (games it ranked first), the total score and the mean rank of a game; then the
    matches and the mean rank of a match (its place over a match's games together)."""
    competition = challenge.competition
    statuses = dict(
        Match.objects.filter(competition=competition)
        .values_list("status")
        .annotate(count=Count("id"))
        .order_by()
    )
    done = statuses.get(Match.Status.DONE, 0)
    game_ranks = _game_ranks(competition)
    seats = []
    entries = competition.entries.select_related("bot__owner", "pinned_version").order_by(
        "seed_order", "id"
    )
    for entry in entries:
        played = MatchSeat.objects.filter(entry=entry, match__status=Match.Status.DONE)
        totals = played.aggregate(matches=Count("id"), score=Sum("score"), rank=Avg("rank"))
        ranks = game_ranks.get(entry.pk, [])
        version = entry.pinned_version
        seats.append(
            {
                "bot": str(entry.bot),
                "bot_id": entry.bot_id,
                "builtin": entry.bot.builtin,
                "version": version.number if version and not entry.bot.builtin else None,
                "games": len(ranks),
                "wins": ranks.count(1),
                "score": totals["score"] or 0,
                "mean_rank": sum(ranks) / len(ranks) if ranks else None,
                "matches": totals["matches"],
                "mean_match_rank": totals["rank"],
            }
        )
    return {
        "games": challenge.games,
        "games_played": done * competition.games_per_match + _games_in_play(competition),
        "matches": sum(statuses.values()),
        "matches_done": done,
        "matches_failed": statuses.get(Match.Status.FAILED, 0),
        "matches_open": sum(
            statuses.get(s, 0)
            for s in (Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING)
        ),
        "seats": seats,
    }
