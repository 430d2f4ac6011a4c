"""``manage.py match``: play a local match between bots, no database or server needed."""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bots.referee import TimeControl, play_match
from bots.referee.specs import parse_option, player_from_spec


class Command(BaseCommand):
    help = (
        "Play a match: manage.py match <variant> <bot> <bot> ... where a bot is "
        "builtin:<name> or the path of a bot program or directory."
    )
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("variant")
        parser.add_argument("bots", nargs="+", help="builtin:<name> or a bot path, one per seat")
        parser.add_argument("--games", type=int, default=10)
        parser.add_argument(
            "--seed",
            type=int,
            default=None,
            help="the match seed (every deal follows from it); random unless given, and "
            "printed so the same match can be played again",
        )
        parser.add_argument(
            "--duplicate", action="store_true", help="play every deal once per seat rotation"
        )
        parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
        parser.add_argument("--move-ms", type=int, default=2_000)
        parser.add_argument("--bank-ms", type=int, default=20_000)
        parser.add_argument(
            "--json", type=Path, metavar="FILE", help="write the full result with every game record"
        )
        parser.add_argument(
            "--all-cores",
            action="store_true",
            help="do not keep the referee and its bots on one CPU core",
        )
        parser.add_argument(
            "--unsandboxed",
            action="store_true",
            help="DEVELOPMENT ONLY: run trusted bot programs without a sandbox",
        )

    def handle(self, *args, **opts):
        if not opts["all_cores"] and hasattr(os, "sched_setaffinity"):
            # Bots inherit the affinity: same-core round trips are several times cheaper.
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        if opts["seed"] is None:
            opts["seed"] = secrets.randbelow(2**56)
        try:
            options = dict(parse_option(o) for o in opts["option"])
            tc = TimeControl(move_ms=opts["move_ms"], bank_ms=opts["bank_ms"])
            players = [
                player_from_spec(
                    spec, seed=opts["seed"], index=i, sandboxed=not opts["unsandboxed"]
                )
                for i, spec in enumerate(opts["bots"])
            ]
            if opts["unsandboxed"]:
                self.stderr.write(
                    self.style.WARNING(
                        "WARNING: bot programs run WITHOUT a sandbox; use only for your own code"
                    )
                )
            result = play_match(
                opts["variant"],
                players,
                games_count=opts["games"],
                seed=opts["seed"],
                options=options,
                duplicate=opts["duplicate"],
                time_control=tc,
                progress=self._progress if sys.stdout.isatty() else None,
            )
        except Exception as exc:  # every bad input is reported, never a traceback
            if isinstance(exc, ValueError | OSError) or type(exc).__name__ == "SandboxUnavailable":
                raise CommandError(str(exc)) from exc
            raise
        self._print(result)
        if opts["json"]:
            opts["json"].write_text(json.dumps(result.to_json(), indent=1))
            self.stdout.write(f"full result with {len(result.games)} records: {opts['json']}")

    def _progress(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // total
        sys.stdout.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games")
        sys.stdout.write("\n" if done == total else "")
        sys.stdout.flush()

    def _print(self, result) -> None:
        rows = result.standings()
        self.stdout.write(
            f"{result.variant}  {len(result.games)} games  seed {result.seed}"
            f"{'  duplicate' if result.duplicate else ''}  "
            f"{len(result.games) / max(result.seconds, 1e-9):,.1f} games/s"
        )
        self.stdout.write(
            f"{'#':>2}  {'bot':<24}{'wins':>6}{'mean rank':>11}{'score':>9}  statuses"
        )
        order = sorted(rows, key=lambda r: (r["mean_rank"], -r["score"]))
        for row in order:
            statuses = ", ".join(f"{k} {v}" for k, v in sorted(row["statuses"].items()))
            self.stdout.write(
                f"{row['player']:>2}  {row['name']:<24}{row['wins']:>6}"
                f"{row['mean_rank']:>11.3f}{row['score']:>9}  {statuses}"
            )
