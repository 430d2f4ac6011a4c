"""Challenges: an author asks for unrated games of one of their versions against chosen bots.

:func:`challenge_create` checks a request and stores a :class:`~tournaments.models.Challenge`
with its own hidden competition (kind and format ``challenge``: private, without
organisers, never listed, rated or ranked: ``tournaments.selectors.competitions_visible_to``,
``tournaments.services.is_rated``), one entry per seat and its matches, queued at once.
The matches are played like any other (``tournaments.worker.execution``) but on the challenges'
queue (``CARDROOM_CHALLENGE_QUEUE``), which a worker takes only when no competition,
ladder or validation waits (docs/queues.md). The challenge is done once none of its
matches waits or plays (``services.challenge_close_if_settled``).

Opponents are written as strings:

- ``builtin:<name>``: a built-in player (``random``, ``greedy``, ``ismcts``) or a named
  strength of one (``ismcts-quick``, ``ismcts-strong``: ``bots.builtin.strengths()``);
- ``bot:<id>``: the version a bot plays now (it must play in a competition the author
  may watch, or be the author's own);
- ``bot:<id>@<number>``: one of the author's own versions.

Fair play (docs/fair-play.md): at a table of three seats or more where a bot of
another author sits, no two seats hold bots of one author (or of linked authors), as
in every competition; a two-seat table, or one of the author's own bots and built-ins
only, may seat the author's bots (and one bot's versions) against each other: nobody
else's game is at stake and nothing is rated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

import games
from bots import accounts, builtin
from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from bots.services import builtin_bot_ensure
from tournaments import pairing, selectors, services
from tournaments.integrity import deals
from tournaments.models import Challenge, Competition, Entry, Match, MatchSeat
from tournaments.selectors import allowance_use as allowances
from tournaments.services.queue import Sender, matches_enqueue, send_match_tasks

#: The most games one challenge may ask for (the daily allowance may be lower).
GAMES_MAX = 1_000
#: The cap in words, as the form, the API and their refusals say it.
GAMES_CAP_WORDS = (
    f"A challenge plays from 1 to {GAMES_MAX:,} games (for more, ask for several challenges)"
)
#: A challenge plays as matches of at most this many games each, so that no one task holds
#: a worker long and the page shows progress as matches finish.
MATCH_GAMES_MAX = 12

_OPPONENT = re.compile(
    r"^(?:builtin:(?P<builtin>[a-z0-9_-]+)|bot:(?P<bot>\d{1,18})(?:@(?P<n>\d{1,9}))?)$"
)


#: The games of a quick game: one unrated game of a version against the opponents chosen,
#: played as soon as a slot of the users' lane is free (never duplicate: one deal).
QUICK_GAME = 1


class OpponentNotFound(Exception):
    """An opponent the author may not see (or that does not exist): the API's 404."""


@dataclass(frozen=True)
class Seat:
    """One seat of a challenge's table: the bot and the version it plays (None for a
    built-in)."""

    bot: Bot
    version: BotVersion | None


def challengeable_bots(*, user) -> QuerySet[Bot]:
    """The uploaded bots ``user`` may challenge: their own, and those of others entered
    (not withdrawn) in a competition ``user`` may watch (challenges aside), unless their
    owner opted them out or deactivated them."""
    watched = selectors.competitions_visible_to(user=user).values("pk")
    others = Bot.objects.filter(
        entries__competition__in=watched,
        entries__withdrawn=False,
        challengeable=True,
        active=True,
    ).exclude(owner=user)
    return Bot.objects.filter(Q(pk__in=others.values("pk")) | Q(owner=user)).select_related("owner")


def _variant(variant: str, options: dict[str, Any] | None) -> games.Game:
    if variant not in games.variants():
        known = ", ".join(games.variants())
        raise ValidationError({"variant": f"unknown variant {variant!r} (known: {known})"})
    try:
        return games.load(variant, **(options or {}))
    except (TypeError, ValueError) as exc:
        raise ValidationError({"options": str(exc)}) from None


def _own_version(bot: Bot, number: int | None, variant: str, field: str) -> BotVersion:
    """A ready version of the author's own ``bot`` that passed ``variant`` (``number``:
    that one; None: the one it plays now); ``ValidationError`` on ``field`` saying why not."""
    if number is None:
        version = bot_selectors.version_for_play(bot=bot, variant=variant)
        if version is None:
            raise ValidationError({field: f"{bot} has no ready version that plays {variant}"})
        return version
    version = bot.versions.filter(number=number).first()
    if version is None:
        raise ValidationError({field: f"{bot} has no version {number}"})
    if version.status != BotVersion.Status.READY:
        raise ValidationError(
            {field: f"{version} is {version.status}, not ready: only a ready version plays"}
        )
    if not bot_selectors.version_passed(version=version, variant=variant):
        raise ValidationError(
            {field: f"{version} does not play {variant} (it did not declare or pass it)"}
        )
    return version


def _builtin_bot(name: str) -> Bot:
    """The platform's bot of the built-in ``name`` (a player or a named strength)."""
    known = [*builtin.names(), *builtin.strengths()]
    if name not in known:
        listed = ", ".join(f"builtin:{n}" for n in known)
        raise ValidationError({"opponents": f"no built-in bot {name!r} (known: {listed})"})
    return builtin_bot_ensure(name=name)


def _opponent(text: Any, *, user, variant: str) -> Seat:
    """The seat an opponent string names (see the module's docstring)."""
    match = _OPPONENT.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValidationError(
            {
                "opponents": f"{text!r} is not an opponent: write builtin:<name>, bot:<id> "
                "or bot:<id>@<version> (a version of your own bot)"
            }
        )
    if match["builtin"]:
        return Seat(_builtin_bot(match["builtin"]), None)
    bot_id, number = int(match["bot"]), match["n"]
    bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
    own = bot is not None and bot.owner_id == user.pk
    platform = bot is not None and bot.owner_id is None and bool(bot.builtin)
    if bot is None or not (own or platform or _watched(bot, user)):
        raise OpponentNotFound(f"No bot {bot_id} that you may see.")
    if platform:
        return Seat(bot, None)
    if own:
        return Seat(bot, _own_version(bot, int(number) if number else None, variant, "opponents"))
    accounts.public_play_check(user=user)  # another author's bot: an account old enough
    if number is not None:
        raise ValidationError(
            {"opponents": f"{text}: another author's bot plays the version it plays now; "
             f"write bot:{bot_id}"}
        )  # fmt: skip
    if not bot.challengeable:
        raise ValidationError(
            {"opponents": f"{bot} does not take challenges (its owner opted out)"}
        )
    if not bot.active:
        raise ValidationError({"opponents": f"{bot} is deactivated by its owner"})
    version = bot_selectors.version_for_play(bot=bot, variant=variant)
    if version is None:
        raise ValidationError(
            {
                "opponents": f"{bot} does not play {variant} (no ready version of it "
                "declared and passed it)"
            }
        )
    return Seat(bot, version)


def _watched(bot: Bot, user) -> bool:
    """Whether ``bot`` plays in a competition ``user`` may watch (opted out or not: such a
    bot is seen, and refused with a 400 that says why)."""
    watched = selectors.competitions_visible_to(user=user).values("pk")
    return Entry.objects.filter(bot=bot, competition__in=watched).exists()


def _fair_play(seats: list[Seat], user) -> None:
    """One bot per author per table where another author's bot sits (module docstring)."""
    uploaded = [seat.bot for seat in seats if seat.bot.owner_id is not None]
    others = [bot for bot in uploaded if bot.owner_id != user.pk]
    if len(seats) < 3 or not others:
        return
    twice = len({bot.pk for bot in uploaded}) < len(uploaded)
    apart = pairing.may_not_share_table(uploaded)
    if twice or apart:
        raise ValidationError(
            {
                "opponents": "one bot per author per table: at a table of three or more "
                "with another author's bot, no two seats may hold bots of one author "
                "(or of linked authors)"
            }
        )


def match_games(games_: int, seats: int, duplicate: bool) -> int:
    """The games of each of a challenge's matches: the largest divisor of ``games_`` up to
    :data:`MATCH_GAMES_MAX` (a multiple of ``seats`` for duplicate games, whose deals are
    played once per seat rotation), so the matches add up to exactly ``games_``."""
    step = seats if duplicate else 1
    best = step
    for size in range(step, min(games_, MATCH_GAMES_MAX) + 1, step):
        if games_ % size == 0:
            best = size
    return best


def _check_games(games_: int, seats: int, duplicate: bool) -> None:
    if isinstance(games_, bool) or not isinstance(games_, int) or not 1 <= games_ <= GAMES_MAX:
        raise ValidationError({"games": f"{GAMES_CAP_WORDS}, not {games_!r}"})
    if duplicate and games_ % seats:
        raise ValidationError(
            {
                "games": f"duplicate games are played once per seat rotation: ask for a "
                f"multiple of {seats}, not {games_}"
            }
        )


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
    game = _variant(variant, options)
    # The version first: the variant one's own bot does not play is the error to see.
    own = Seat(bot, _own_version(bot, version, variant, "version"))
    seats_n = game.num_players
    if not isinstance(opponents, list) or len(opponents) != seats_n - 1:
        raise ValidationError(
            {"opponents": f"{variant} is played at {seats_n} seats: name {seats_n - 1} "
             f"opponent{'s' if seats_n > 2 else ''}, got {len(opponents or [])}"}
        )  # fmt: skip
    if games == QUICK_GAME:
        duplicate = False  # a quick game: one deal, one seating
    _check_games(games, seats_n, duplicate)
    seats = [own, *(_opponent(text, user=by, variant=variant) for text in opponents)]
    _fair_play(seats, by)
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
            seed=services.match_seed(competition, 1, table),
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
