"""``manage.py next_season <id>``: the next season of a finished league season.

The same door as the organise page's *Start the next season* and the API's
``POST /api/competitions/<id>/next-season/`` (``services.league_next_season``); the
season is made as a draft, to start like any other (``run_competition``).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from tournaments import services
from tournaments.models import Competition


class Command(BaseCommand):
    help = (
        "Make the next season of a finished league season: the same settings and entries, "
        "the top of each division moved up and the bottom moved down."
    )

    def add_arguments(self, parser):
        parser.add_argument("competition_id", type=int)
        parser.add_argument("--name", help="the season's name (default: with its number)")
        parser.add_argument(
            "--promote", type=int, help="how many go up and down (default: the season's own)"
        )

    def handle(self, *args, **opts):
        competition = Competition.objects.filter(pk=opts["competition_id"]).first()
        if competition is None:
            raise CommandError(f"no competition {opts['competition_id']}")
        try:
            season = services.league_next_season(
                competition=competition, name=opts["name"], promote=opts["promote"]
            )
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        self.stdout.write(f"season {season.season}: {season.name} (id {season.pk}), a draft")
        entries = season.entries.select_related("bot__owner").order_by("division", "seed_order")
        for entry in entries:
            self.stdout.write(f"  division {entry.division + 1}  {entry.bot}")
