"""``manage.py worker_queues [KIND ...]``: the queues a worker listens to, most urgent first.

Prints the queue names of ``CARDROOM_QUEUES`` (of the kinds given, or all) joined by
commas, in their order, for ``celery -A config worker -Q``::

    celery -A config worker -Q "$(python manage.py worker_queues)"
    celery -A config worker -Q "$(python manage.py worker_queues periodic)" --pool solo

The deployed workers' two lanes (docs/queues.md "Lanes") are ``worker_queues periodic
competition ladder`` and ``worker_queues validation challenge version-test default``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Print the queues a worker listens to (of the kinds given, or all), most urgent first."

    def add_arguments(self, parser) -> None:
        parser.add_argument("kinds", nargs="*", metavar="KIND", help="kinds of work (default all)")

    def handle(self, *args, kinds: list[str], **options) -> str:
        known = [kind for kind, _ in settings.CARDROOM_QUEUES]
        unknown = [kind for kind in kinds if kind not in known]
        if unknown:
            raise CommandError(
                f"unknown kind of work: {', '.join(unknown)} (known: {', '.join(known)})"
            )
        return ",".join(
            queue for kind, queue in settings.CARDROOM_QUEUES if not kinds or kind in kinds
        )
