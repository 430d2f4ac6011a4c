"""``manage.py validate``: validate a bot on this machine as the platform would, before
uploading it. No database or server needed."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bots import sandbox, validation
from bots.archive import MANIFEST, check_variants


class Command(BaseCommand):
    help = (
        "Validate a bot: manage.py validate <bot> [--variant V ...], where <bot> is the path "
        "of a bot program or directory. It plays the platform's validation (a short sandboxed "
        "match in each variant against built-in bots, under the same time control and limits) "
        "and prints the report the site shows."
    )
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("bot", help="the path of a bot program or directory")
        parser.add_argument(
            "--variant",
            action="append",
            default=[],
            metavar="V",
            help='a variant to validate in (repeat for several); default: the "variants" of '
            "its bot.json, else every variant",
        )
        parser.add_argument("--json", type=Path, metavar="FILE", help="write the whole report")
        parser.add_argument(
            "--unsandboxed",
            action="store_true",
            help="DEVELOPMENT ONLY: run a trusted bot without a sandbox (limits are not enforced)",
        )

    def handle(self, *args, **opts):
        path = Path(opts["bot"])
        if not path.exists():
            raise CommandError(f"no bot at {str(path)!r}: give the path of a program or directory")
        variants = self._variants(path, opts["variant"])
        shown = ", ".join(variants) if variants else "every variant"
        self.stdout.write(f"Validating {path} in {shown}...")
        try:
            report = validation.validate_program(
                str(path),
                variants=variants,
                match_time_limit_s=settings.CARDROOM_MATCH_TIME_LIMIT_S,
                sandboxed=not opts["unsandboxed"],
            )
        except sandbox.SandboxUnavailable as error:
            raise CommandError(
                f"no sandbox on this machine ({error}); --unsandboxed runs a trusted bot without"
            ) from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in validation.report_lines(report):
            self.stdout.write(line)
        if report["stderr_tail"]:
            self.stdout.write(f"The bot's stderr (its end):\n{report['stderr_tail']}")
        if opts["json"]:
            opts["json"].write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            self.stdout.write(f"The whole report is in {opts['json']}.")
        verdict = "Validation passed." if report["ok"] else "Validation failed."
        self.stdout.write(verdict)
        if not report["ok"]:
            raise SystemExit(1)

    @staticmethod
    def _variants(path: Path, given: list[str]) -> list[str]:
        """``given``, else the ``variants`` of the bot's ``bot.json``; [] means every one."""
        try:
            if given:
                return check_variants(given)
            manifest = path / MANIFEST
            if path.is_dir() and manifest.is_file():
                data = json.loads(manifest.read_text(encoding="utf-8"))
                declared = data.get("variants") if isinstance(data, dict) else None
                return check_variants(declared) if declared else []
        except (ValueError, OSError) as error:
            raise CommandError(f"{error}") from None
        return []
