"""Making the installation's standing open ladders (what they are:
``tournaments.selectors.ladders``) and the house bots that fill their first table.

:func:`standing_ladders_ensure` is idempotent: a variant that has a standing ladder
not yet ended keeps it (as it is: entries, ratings and status untouched; a draft is
started); one whose ladder ended or was cancelled gets a new one.

A new standing ladder is paced at ``CARDROOM_LADDER_PACE_MS`` (5 ms by default, 0: off;
the referee's jitter on top, and only at tables where two uploaded bots sit:
docs/fair-play.md "Pacing"), and validations are paced
the same, so that they look like its matches; ``ladders ensure`` leaves an existing
ladder's pacing as it is (the admin changes it).
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from bots.models import Bot, BotVersion
from bots.services import builtin_bots_ensure
from tournaments.models import Competition
from tournaments.selectors.ladders import OPEN, STANDING_LADDERS, StandingLadder, Status
from tournaments.services.competitions import competition_create
from tournaments.services.entries import entry_create
from tournaments.services.lifecycle import competition_start
from tournaments.services.queue import Sender, send_match_tasks

#: Built-ins whose owner-less rows fill the house seats, in turn.
HOUSE_BUILTINS = ("random", "greedy")


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
            competition_start(competition=competition, send=send)
            competition.refresh_from_db()
        out.append((competition, created))
    return out


@transaction.atomic
def _ladder_ensure(spec: StandingLadder) -> tuple[Competition, bool]:
    existing = Competition.objects.filter(standing=spec.variant, status__in=OPEN).first()
    if existing is not None:
        return existing, False
    competition = competition_create(
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
        entry_create(competition=competition, bot=bot)
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
