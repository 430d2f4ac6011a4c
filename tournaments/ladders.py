"""The installation's standing open ladders: somewhere to play every game family.

One running ladder per game family, at the family's most common variant, owned by
the platform (no creator: staff run it) and open to every signed-in author: any
user enters a bot of theirs that plays the variant (``services.entry_create``; the
entry counts against their ``ladder_entries`` allowance). House bots (built-in
``random`` and ``greedy`` rows without an owner) fill the seats of one table, so a
ladder plays from the start and a newcomer's bot always has someone to meet.

The variants, and why:

- Manni: ``manni-basic``, the basic game the Icelandic variants (Hornafjarðar
  Manni, Laugavatnsmanni) change (RULES.md section 2).
- Maniglia: ``maniglia-4-partners``, the game as it is usually played (the
  sources' Maniglia and Manille): four players in two partnerships; the 3-, 4- and
  5-handed auction games are its variants (RULES.md 6.3). A ladder rotates
  partners: an entry is one bot, partnered by whoever a batch seats opposite it.
- Money: ``money-jordan``, the base rules that Egypt and Syria amend (RULES.md 5).

:func:`standing_ladders_ensure` is idempotent: a family that has a standing ladder
not yet ended keeps it (as it is: entries, ratings and status untouched; a draft is
started); one whose ladder ended or was cancelled gets a new one.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

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


@dataclass(frozen=True)
class StandingLadder:
    """What ``ladders ensure`` makes for one game family."""

    family: str
    name: str
    variant: str
    games_per_match: int


STANDING_LADDERS = (
    StandingLadder("manni", "Open Manni ladder", "manni-basic", 6),
    StandingLadder("maniglia", "Open Maniglia ladder", "maniglia-4-partners", 4),
    StandingLadder("money", "Open Money ladder", "money-jordan", 4),
)


def standing_ladders() -> list[Competition]:
    """The standing ladders that have not ended, in :data:`STANDING_LADDERS` order."""
    found = {
        c.standing: c for c in Competition.objects.filter(status__in=OPEN).exclude(standing="")
    }
    return [found[s.family] for s in STANDING_LADDERS if s.family in found]


def standing_ladders_ensure(
    *, send: Sender | None = send_match_tasks
) -> list[tuple[Competition, bool]]:
    """Each family's standing ladder, running: (competition, created) per family.

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
    existing = Competition.objects.filter(standing=spec.family, status__in=OPEN).first()
    if existing is not None:
        return existing, False
    competition = services.competition_create(
        created_by=None,
        name=spec.name,
        kind=Competition.Kind.LADDER,
        variant=spec.variant,
        format=Competition.Format.LADDER,
        games_per_match=spec.games_per_match,
    )
    competition.standing = spec.family
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
