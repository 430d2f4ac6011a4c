"""The installation's standing open ladders: somewhere to play every variant.

One running ladder per registered variant (``games.variants()``), owned by the
platform (no creator: staff run it) and open to every signed-in author: any user
enters a bot of theirs that plays the variant (``services.entry_create``; the entry
counts against their ``ladder_entries`` allowance). House bots (built-in ``random``
and ``greedy`` rows without an owner) fill the seats of one table, two to five of
them as the variant seats, so a ladder plays from the start and a newcomer's bot
always has someone to meet. A partnership variant's ladder rotates partners: an
entry is one bot, partnered by whoever a batch seats opposite it.

A ladder is keyed by its variant (``Competition.standing``; before there was one
for every variant it was the game family, "manni", "maniglia" or "money", which
migration 0019 turned into the variant those ladders play). Each family's base or
usual game keeps the family's name: the Open Manni ladder plays ``manni-basic``
(RULES.md section 2), the Open Maniglia ladder ``maniglia-4-partners`` (Maniglia as
usually played, RULES.md 6.2), the Open Money ladder ``money-jordan`` (the base rules
Egypt and Syria amend, RULES.md 5); the other variants' ladders say which game they
are (:data:`GAME_NAMES`).

A match is the fewest whole rotations of the seats that make at least
:data:`MIN_GAMES` games (matches are duplicate: every deal is played once from each
seat, so the luck of the cards cancels): two deals at two or three seats, where one
rotation is only two or three games, and one deal from every seat at four (4 games)
or five (5).

:func:`standing_ladders_ensure` is idempotent: a variant that has a standing ladder
not yet ended keeps it (as it is: entries, ratings and status untouched; a draft is
started); one whose ladder ended or was cancelled gets a new one.

A new standing ladder is paced at ``CARDROOM_LADDER_PACE_MS`` (0 by default: off; the
referee's jitter on top when on: docs/fair-play.md "Pacing"), and validations are paced
the same, so that they look like its matches; ``ladders ensure`` leaves an existing
ladder's pacing as it is (the admin changes it).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

import games
from bots.models import Bot, BotVersion
from bots.services import builtin_bots_ensure
from tournaments import services
from tournaments.models import Competition
from tournaments.services.queue import Sender, send_match_tasks

Status = Competition.Status
#: Statuses of a standing ladder that has not ended.
OPEN = (Status.DRAFT, Status.RUNNING, Status.PAUSED)
#: Built-ins whose owner-less rows fill the house seats, in turn.
HOUSE_BUILTINS = ("random", "greedy")
#: The least number of games in a standing ladder's match.
MIN_GAMES = 4
#: The game each variant's ladder is named after ("Open <game> ladder"), in the order
#: the ladders are listed: family by family, the base or usual game first. A variant
#: registered without a name here still gets its ladder, named by its id, listed last.
GAME_NAMES = {
    "manni-basic": "Manni",
    "manni-hornafjordur": "Hornafjarðar Manni",
    "laugavatnsmanni": "Laugavatnsmanni",
    "maniglia-4-partners": "Maniglia",
    "maniglia-3": "3-handed Maniglia",
    "maniglia-4": "4-handed Maniglia",
    "maniglia-5": "5-handed Maniglia",
    "money-jordan": "Money",
    "money-egypt": "Egyptian Money",
    "money-syria": "Syrian Money",
}


@dataclass(frozen=True)
class StandingLadder:
    """What ``ladders ensure`` makes for one variant."""

    variant: str
    family: str
    name: str
    players: int
    games_per_match: int


def standing_ladder_specs() -> tuple[StandingLadder, ...]:
    """One :class:`StandingLadder` per registered variant, in :data:`GAME_NAMES` order."""
    order = {variant: i for i, variant in enumerate(GAME_NAMES)}
    out = []
    for variant in sorted(games.variants(), key=lambda v: (order.get(v, len(order)), v)):
        info = games.variant_info(variant)
        rotations = -(-MIN_GAMES // info.players)  # ceiling division
        out.append(
            StandingLadder(
                variant=variant,
                family=info.family,
                name=f"Open {GAME_NAMES.get(variant, variant)} ladder",
                players=info.players,
                games_per_match=rotations * info.players,
            )
        )
    return tuple(out)


STANDING_LADDERS = standing_ladder_specs()


def variants_in_ladder_order() -> list[str]:
    """The registered variants as the ladders list them: family by family, the base or
    usual game first (:data:`GAME_NAMES`)."""
    return [spec.variant for spec in STANDING_LADDERS]


def standing_ladders() -> list[Competition]:
    """The standing ladders that have not ended, in :data:`STANDING_LADDERS` order."""
    found = {
        c.standing: c for c in Competition.objects.filter(status__in=OPEN).exclude(standing="")
    }
    return [found[s.variant] for s in STANDING_LADDERS if s.variant in found]


def standing_ladders_ensure(
    *, send: Sender | None = send_match_tasks
) -> list[tuple[Competition, bool]]:
    """Each variant's standing ladder, running: (competition, created) per variant, in
    :data:`STANDING_LADDERS` order.

    A missing one is created with house bots entered and started; its first matches are
    sent with ``send`` after commit (None: left pending for a caller that plays them).
    """
    out = []
    for spec in STANDING_LADDERS:
        competition, created = _ladder_ensure(spec)
        if competition.status == Status.DRAFT:
            services.competition_start(competition=competition, send=send)
            competition.refresh_from_db()
        out.append((competition, created))
    return out


@transaction.atomic
def _ladder_ensure(spec: StandingLadder) -> tuple[Competition, bool]:
    existing = Competition.objects.filter(standing=spec.variant, status__in=OPEN).first()
    if existing is not None:
        return existing, False
    competition = services.competition_create(
        created_by=None,
        name=spec.name,
        kind=Competition.Kind.LADDER,
        variant=spec.variant,
        format=Competition.Format.LADDER,
        games_per_match=spec.games_per_match,
        pace_ms=settings.CARDROOM_LADDER_PACE_MS,
    )
    competition.standing = spec.variant
    competition.save(update_fields=["standing"])
    for bot in house_bots(competition.seats_per_table):  # a table's worth
        services.entry_create(competition=competition, bot=bot)
    return competition, True


def house_bots(count: int) -> list[Bot]:
    """``count`` owner-less built-in bots: random, greedy, random-2, greedy-2, ... (the
    same rows ``make demo`` enters), each with one ready built-in version."""
    builtin_bots_ensure()
    out = []
    for i in range(count):
        builtin = HOUSE_BUILTINS[i % len(HOUSE_BUILTINS)]
        number = i // len(HOUSE_BUILTINS) + 1
        name = builtin if number == 1 else f"{builtin}-{number}"
        bot, _ = Bot.objects.get_or_create(
            owner=None,
            name=name,
            defaults={"builtin": builtin, "description": f"A built-in {builtin} player."},
        )
        BotVersion.objects.get_or_create(
            bot=bot,
            number=1,
            defaults={
                "runtime": BotVersion.Runtime.BUILTIN,
                "status": BotVersion.Status.READY,
                "entry_point": f"builtin:{builtin}",
                "sha256": BotVersion.objects.filter(bot__name=builtin, bot__owner=None)
                .values_list("sha256", flat=True)
                .first(),
            },
        )
        out.append(bot)
    return out
