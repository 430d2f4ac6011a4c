"""``manage.py verify_deals <competition>``: check that every deal was drawn as published."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments import selectors
from tournaments.integrity import deals
from tournaments.models import Competition


class Command(BaseCommand):
    help = (
        "Check every stored game of a competition against its deal secret (or --secret, "
        "the one published when it ended): the secret matches the commitment, each match "
        "seed follows from it, and each game's decks follow from its match seed."
    )

    def add_arguments(self, parser):
        parser.add_argument("competition", type=int, help="competition id")
        parser.add_argument("--secret", help="the published secret (64 hex digits) to check")

    def handle(self, *args, **opts):
        competition = Competition.objects.filter(pk=opts["competition"]).first()
        if competition is None:
            raise CommandError(f"no competition with id {opts['competition']}")
        secret = opts["secret"]
        if secret is not None:
            try:
                deals.check_secret(secret)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        if competition.deal_secret:
            self.stdout.write(f"commitment {deals.commitment(competition.deal_secret)}")
        else:
            self.stdout.write(f"seeded: deals follow from the chosen seed {competition.seed}")
        report = selectors.deals_verification(competition=competition, secret=secret)
        for problem in report["problems"]:
            self.stdout.write(f"  {problem}")
        summary = f"{report['matches']} matches, {report['games']} games checked"
        if report["problems"]:
            raise CommandError(f"{summary}: {len(report['problems'])} problems")
        self.stdout.write(f"{summary}: every deal follows from the published secret")
