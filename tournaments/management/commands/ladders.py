"""``manage.py ladders ensure [--pending]``: the installation's standing open ladders.

``ensure`` makes sure every variant (``games.variants()``: all ten) has its open
ladder running (``tournaments.selectors.ladders``): creates what is missing with a table of
house bots, starts a draft, leaves a running or paused one as it is, and prints one
line per ladder. Idempotent: run it after ``migrate`` on every install or upgrade (an
older install's ladders, one per game family, are then their variants' ladders and
are kept). ``--pending`` leaves a new ladder's first matches pending instead of
sending them to the workers (the reaper sends them).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from tournaments.services import ladders, queue


class Command(BaseCommand):
    help = (
        "ensure: one running open ladder per variant, with a table of house bots "
        "(idempotent: keeps the ladders that run)."
    )

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["ensure"], help="ensure: create what is missing")
        parser.add_argument(
            "--pending",
            action="store_true",
            help="leave new ladders' first matches pending (do not send them to workers)",
        )

    def handle(self, *args, **opts):
        send = None if opts["pending"] else queue.send_match_tasks
        try:
            made = ladders.standing_ladders_ensure(send=send)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        for competition, created in made:
            what = "created" if created else "kept"
            self.stdout.write(
                f"{what}: #{competition.pk} {competition.name} "
                f"[{competition.variant}, {competition.status}]"
            )
