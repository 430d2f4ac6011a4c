"""``manage.py prune_versions [--days N] [--dry-run]``: delete versions that will never play.

Rejected versions, and ready ones their bot has superseded, made more than ``--days``
ago (default ``CARDROOM_PRUNE_AFTER_DAYS``) and named by no match, entry or version
test, go with the stored bytes no other version shares (``bots.pruning``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bots import pruning, store


class Command(BaseCommand):
    help = "Delete rejected and superseded bot versions that nothing refers to, and their bytes."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--days",
            type=float,
            default=None,
            help="only versions made more than this many days ago "
            "(default: CARDROOM_PRUNE_AFTER_DAYS)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would go, delete nothing"
        )

    def handle(self, *args, **opts) -> None:
        days = settings.CARDROOM_PRUNE_AFTER_DAYS if opts["days"] is None else opts["days"]
        if days < 0:
            raise CommandError(f"--days must be 0 or more, got {days}")
        try:
            pruned = pruning.bot_versions_prune(older_than_days=days, dry_run=opts["dry_run"])
        except store.StoreError as error:
            raise CommandError(f"the bot store cannot delete now: {error}") from error
        verb = "would delete" if opts["dry_run"] else "deleted"
        self.stdout.write(
            f"{verb} {len(pruned.versions)} versions ({pruned.bytes} bytes uploaded) "
            f"and {len(pruned.blobs)} stored uploads"
        )
