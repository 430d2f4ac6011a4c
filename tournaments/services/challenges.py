"""Challenges: an author asks for unrated games of one of their versions against chosen bots.

:func:`challenge_create` checks a request and stores a :class:`~tournaments.models.Challenge`
with its own hidden competition (kind and format ``challenge``: private, without
organisers, never listed, rated or ranked: ``tournaments.selectors.competitions_visible_to``,
``tournaments.services.is_rated``), one entry per seat and its matches, queued at once.
The matches are played like any other (``tournaments.worker.execution``) but on the challenges'
queue (``CARDROOM_CHALLENGE_QUEUE``), which a worker takes only when no competition,
ladder or validation waits (docs/queues.md). The challenge is done once none of its
matches waits or plays (``services.challenge_close_if_settled``).

The request's checks are ``tournaments.services.challenge_requests``; the challenges a
user may challenge, see and follow are read by ``tournaments.selectors.challenges``.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from bots.models import Bot
from tournaments.integrity import deals
from tournaments.models import Challenge, Competition, Entry, Match, MatchSeat
from tournaments.selectors import allowance_use as allowances
from tournaments.services.challenge_requests import (
    QUICK_GAME,
    Seat,
    fair_play_check,
    games_check,
    match_games,
    opponent_seat,
    own_version,
    variant_game,
)
from tournaments.services.queue import Sender, matches_enqueue, send_match_tasks
from tournaments.services.rounds import match_seed


def challenge_create(
    *,
    bot: Bot,
    by,
    opponents: list[str],
    variant: str,
    options: dict[str, Any] | None = None,
    version: int | None = None,
    games: int = 12,
    duplicate: bool = True,
    send: Sender | None = send_match_tasks,
) -> Challenge:
    """A running challenge: ``games`` games of ``bot``'s version ``version`` (None: the one
    it plays now) against ``opponents`` (one per other seat of ``variant``), its matches
    queued on the challenges' queue (sent after commit; never with ``send=None``).

    Only the bot's owner may ask (``PermissionDenied`` for anyone else). Raises
    :class:`OpponentNotFound` for an opponent ``by`` may not see; ``ValidationError``
    naming the field for an unknown variant or option, a version that is not ready or
    does not play the variant (checked before the opponents, so that it is the error one
    sees), a wrong number of opponents, an opponent that opted out,
    is deactivated or does not play the variant, a table that breaks one bot per author,
    ``games`` outside 1..:data:`GAMES_MAX` (or not a multiple of the seats, duplicate);
    ``AllowanceExceeded`` beyond ``by``'s open challenges or challenge games of the day
    (never truncated).
    """
    if by is None or not by.is_authenticated or bot.owner_id != by.pk:
        raise PermissionDenied("only the bot's owner may ask for its challenges")
    game = variant_game(variant, options)
    # The version first: the variant one's own bot does not play is the error to see.
    own = Seat(bot, own_version(bot, version, variant, "version"))
    seats_n = game.num_players
    if not isinstance(opponents, list) or len(opponents) != seats_n - 1:
        raise ValidationError(
            {"opponents": f"{variant} is played at {seats_n} seats: name {seats_n - 1} "
             f"opponent{'s' if seats_n > 2 else ''}, got {len(opponents or [])}"}
        )  # fmt: skip
    if games == QUICK_GAME:
        duplicate = False  # a quick game: one deal, one seating
    games_check(games, seats_n, duplicate)
    seats = [own, *(opponent_seat(text, user=by, variant=variant) for text in opponents)]
    fair_play_check(seats, by)
    with transaction.atomic():
        allowances.challenge_allowed(user=by, games=games)
        challenge = _store(own, seats, by, game, games, duplicate, opponents)
        if send is not None:
            matches_enqueue(competition=challenge.competition, send=send)
    return challenge


def _store(own, seats, by, game, games_, duplicate, opponents) -> Challenge:
    """The challenge, its hidden competition, one entry per seat and its matches."""
    per_match = match_games(games_, len(seats), duplicate)
    names = " vs ".join(_seat_name(seat) for seat in seats)
    competition = Competition.objects.create(
        name=f"Challenge: {names}"[:120],
        kind=Competition.Kind.CHALLENGE,
        format=Competition.Format.CHALLENGE,
        variant=game.id,
        options=dict(game.options),
        games_per_match=per_match,
        duplicate=duplicate,
        seats_per_table=len(seats),
        is_public=False,
        deal_secret=deals.new_secret(),
        status=Competition.Status.RUNNING,
        created_by=None,  # nobody organises it: it is the challenge's
    )
    copies: dict[int, int] = {}
    entries = []
    for order, seat in enumerate(seats):
        copy = copies.get(seat.bot.pk, 0)
        copies[seat.bot.pk] = copy + 1
        entries.append(
            Entry(
                competition=competition,
                bot=seat.bot,
                pinned_version=seat.version if not seat.bot.builtin else None,
                seed_order=order,
                copy=copy,
            )
        )
    Entry.objects.bulk_create(entries)
    entries = list(competition.entries.order_by("seed_order"))
    for table in range(games_ // per_match):
        match = Match.objects.create(
            competition=competition,
            table=table,
            seed=match_seed(competition, 1, table),
        )
        n = len(entries)
        # Seats turn from match to match, so that no bot always leads.
        MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=i, entry=entries[(i + table) % n]) for i in range(n)
        )
    return Challenge.objects.create(
        competition=competition,
        bot=own.bot,
        version=own.version,
        opponents=[str(text).strip() for text in opponents],
        games=games_,
        created_by=by,
    )


def _seat_name(seat: Seat) -> str:
    return str(seat.bot) if seat.version is None else f"{seat.bot} v{seat.version.number}"


#: The error of a challenge's match that was in play when the challenge was cancelled.
CANCELLED_IN_PLAY = "not played to the end: its challenge was cancelled"


def challenge_cancel(*, challenge: Challenge, by) -> Challenge:
    """Stop a running challenge for good (the author who asked, or staff): its matches not
    yet started are dropped, and one in play is failed (:data:`CANCELLED_IN_PLAY`): its
    worker stops it between two decisions and records nothing of it
    (``config.leases.watch``). The matches played are kept; only their games count
    against the author's challenge games of the day (``tournaments.selectors.allowance_use``).
    ``ValidationError`` for a challenge already over."""
    staff = by is not None and by.is_authenticated and by.is_staff
    if not staff and (by is None or challenge.created_by_id != by.pk):
        raise PermissionDenied("only the author who asked for a challenge may cancel it")
    with transaction.atomic():
        locked = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if locked.status != Challenge.Status.RUNNING:
            raise ValidationError(f"the challenge is {locked.status} already")
        Match.objects.filter(
            competition_id=locked.competition_id,
            status__in=(Match.Status.PENDING, Match.Status.QUEUED),
        ).delete()  # a message still queued for one of them finds nothing to claim
        now = timezone.now()
        Match.objects.filter(
            competition_id=locked.competition_id, status=Match.Status.RUNNING
        ).update(
            status=Match.Status.FAILED, lease_until=None, finished_at=now, error=CANCELLED_IN_PLAY
        )
        locked.status, locked.finished_at = Challenge.Status.CANCELLED, now
        locked.save(update_fields=["status", "finished_at"])
        Competition.objects.filter(pk=locked.competition_id).update(
            status=Competition.Status.CANCELLED
        )
    return locked
