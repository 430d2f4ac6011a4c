"""Reads of who may see what of a competition: the competitions a user may watch, the
bots a user may challenge, the full view of a game's hands, a game's seats and their
owners, who may read a trace."""

from __future__ import annotations

from typing import Any

from django.db.models import (
    Q,
    QuerySet,
)

import games
from bots.models import Bot
from bots.referee.match import game_seed, schedule
from tournaments.models import (
    Competition,
    GameRecord,
)
from tournaments.permissions import can_manage
from tournaments.selectors.challenges import challenges_visible_to


def competitions_visible_to(*, user, challenges: bool = False) -> QuerySet[Competition]:
    """Public competitions, plus the private ones the user organises (all for staff).

    The hidden competitions of challenges (``Competition.Kind.CHALLENGE``) are never
    among them unless ``challenges``: then also those of the challenges ``user`` may see
    (:func:`challenges_visible_to`), for the doors that show their matches, games and
    replays. Lists, standings, ratings, the home page and the ladders leave it off.
    """
    qs = Competition.objects.all()
    if not challenges:
        qs = qs.exclude(kind=Competition.Kind.CHALLENGE)
    if user is not None and user.is_authenticated:
        if user.is_staff:
            return qs
        seen = Q(is_public=True) | Q(organisers=user) | Q(created_by=user)
        if challenges:  # a challenge's competition is private and has no organiser
            seen |= Q(pk__in=challenges_visible_to(user=user).values("competition_id"))
        return qs.filter(seen).distinct()
    return qs.filter(is_public=True)


#: Competition statuses after which replays may show every hand (:func:`full_view_allowed`).
ENDED = (Competition.Status.FINISHED, Competition.Status.CANCELLED)


def challengeable_bots(*, user) -> QuerySet[Bot]:
    """The uploaded bots ``user`` may challenge: their own, and those of others entered
    (not withdrawn) in a competition ``user`` may watch (challenges aside), unless their
    owner opted them out or deactivated them."""
    watched = competitions_visible_to(user=user).values("pk")
    others = Bot.objects.filter(
        entries__competition__in=watched,
        entries__withdrawn=False,
        challengeable=True,
        active=True,
    ).exclude(owner=user)
    return Bot.objects.filter(Q(pk__in=others.values("pk")) | Q(owner=user)).select_related("owner")


def full_view_allowed(*, competition: Competition, user) -> bool:
    """May ``user`` see every seat's hand of the games of ``competition``?

    Staff at any time; the competition's organisers once it has ended (finished or
    cancelled); anyone once it has ended if the organisers set
    ``full_replays_after_end``. The same rule hides the decks of game records and
    the seeds they follow from (API). The caller checks that the game is visible.
    """
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    if competition.status not in ENDED:
        return False
    return competition.full_replays_after_end or can_manage(competition=competition, user=user)


def game_seat_players(*, game: GameRecord, record: dict[str, Any]) -> list[int] | None:
    """The match player (``MatchSeat.seat``) at each seat of ``game`` (``record`` is its
    record); None when the seating cannot be recomputed.

    Duplicate matches rotate the bots around the table from game to game
    (``bots.referee.match.schedule``); the rotation is recomputed and checked against
    the game's seed.
    """
    match = game.match
    competition = match.competition
    players = games.load(record["variant"], **record["options"]).num_players
    try:
        deal, seats = schedule(competition.games_per_match, players, competition.duplicate)[
            game.index
        ]
    except (ValueError, IndexError):
        return None
    if game_seed(match.seed, deal) != record["seed"]:
        return None
    return seats


def owned_game_seats(*, game: GameRecord, record: dict[str, Any], user) -> frozenset[int]:
    """The seats of ``game`` (``record`` is its record) where a bot of ``user`` sat."""
    if user is None or not user.is_authenticated:
        return frozenset()
    owned = set(game.match.seats.filter(entry__bot__owner=user).values_list("seat", flat=True))
    players = game_seat_players(game=game, record=record) if owned else None
    if players is None:
        return frozenset()
    return frozenset(s for s, player in enumerate(players) if player in owned)


def trace_readers(
    *, game: GameRecord, record: dict[str, Any], user
) -> tuple[frozenset[int], frozenset[int]]:
    """The seats of ``game`` whose decision stderr ``user`` may read, and those whose notes
    (``bots.referee.traces``). The caller checks that the game is visible.

    Stderr and notes: staff, and the owner of the bot at the seat, at once. Notes (never
    stderr): everyone with the full view (``full_view_allowed``) once the competition
    has ended. Nobody else reads either; times are public with the game.
    """
    seats = range(len(game.scores))
    if user is not None and user.is_authenticated and user.is_staff:
        return frozenset(seats), frozenset(seats)
    own = owned_game_seats(game=game, record=record, user=user)
    competition = game.match.competition
    if competition.status in ENDED and full_view_allowed(competition=competition, user=user):
        return own, frozenset(seats)
    return own, own
