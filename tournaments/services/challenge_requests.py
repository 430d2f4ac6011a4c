"""What a challenge may ask for, checked before it is stored: the variant, the author's
own version, each opponent and the table's fair play, the number of games
(``tournaments.services.challenges.challenge_create`` asks).

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

from django.core.exceptions import ValidationError

import games
from bots import accounts, builtin
from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from bots.services import builtin_bot_ensure
from tournaments import pairing, selectors
from tournaments.models import Entry

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


def variant_game(variant: str, options: dict[str, Any] | None) -> games.Game:
    if variant not in games.variants():
        known = ", ".join(games.variants())
        raise ValidationError({"variant": f"unknown variant {variant!r} (known: {known})"})
    try:
        return games.load(variant, **(options or {}))
    except (TypeError, ValueError) as exc:
        raise ValidationError({"options": str(exc)}) from None


def own_version(bot: Bot, number: int | None, variant: str, field: str) -> BotVersion:
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


def opponent_seat(text: Any, *, user, variant: str) -> Seat:
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
        return Seat(bot, own_version(bot, int(number) if number else None, variant, "opponents"))
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


def fair_play_check(seats: list[Seat], user) -> None:
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


def games_check(games_: int, seats: int, duplicate: bool) -> None:
    if isinstance(games_, bool) or not isinstance(games_, int) or not 1 <= games_ <= GAMES_MAX:
        raise ValidationError({"games": f"{GAMES_CAP_WORDS}, not {games_!r}"})
    if duplicate and games_ % seats:
        raise ValidationError(
            {
                "games": f"duplicate games are played once per seat rotation: ask for a "
                f"multiple of {seats}, not {games_}"
            }
        )
