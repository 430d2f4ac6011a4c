"""``manage.py sprt <new> <old> --variant V``: is the new version better than the old one?

Plays duplicate deals between two bots (``builtin:<name>`` or the path of a bot
program, sandboxed) until the sequential probability ratio test decides, or
``--max-games`` is reached, printing the test as it goes (``tournaments.worker.sprt_deals``,
docs/ratings.md). No database or server is needed.
"""

from __future__ import annotations

import math
import secrets

from django.core.management.base import BaseCommand, CommandError

import games
from bots.referee import TimeControl
from bots.referee.specs import parse_option, player_from_spec
from tournaments.ratings.confidence import Sprt, percent
from tournaments.services import is_partnership
from tournaments.worker.sprt_deals import deal_scores, version_test


class Command(BaseCommand):
    help = (
        "SPRT of a new bot against an old one: manage.py sprt <new> <old> --variant V, "
        "where a bot is builtin:<name> or the path of a bot program or directory."
    )
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("new", help="the new version: builtin:<name> or a bot path")
        parser.add_argument("old", help="the old version: builtin:<name> or a bot path")
        parser.add_argument("--variant", required=True)
        parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
        parser.add_argument("--elo0", type=float, default=0.0, help="H0: Elo difference (0)")
        parser.add_argument("--elo1", type=float, default=5.0, help="H1: Elo difference (5)")
        parser.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (0.05)")
        parser.add_argument("--beta", type=float, default=0.05, help="false H0 rate (0.05)")
        parser.add_argument(
            "--max-games", type=int, default=20_000, help="stop undecided after this many games"
        )
        parser.add_argument(
            "--filler",
            default="builtin:random",
            help="the bot at the other seats of a variant for more than two (builtin:random)",
        )
        parser.add_argument("--seed", type=int, default=None, help="random unless given")
        parser.add_argument("--every", type=int, default=10, help="print every N deals (10)")
        parser.add_argument("--move-ms", type=int, default=2_000)
        parser.add_argument("--bank-ms", type=int, default=20_000)
        parser.add_argument(
            "--unsandboxed",
            action="store_true",
            help="DEVELOPMENT ONLY: run trusted bot programs without a sandbox",
        )

    def handle(self, *args, **opts):
        seed = secrets.randbelow(2**56) if opts["seed"] is None else opts["seed"]
        try:
            test = Sprt(opts["elo0"], opts["elo1"], opts["alpha"], opts["beta"])
            options = dict(parse_option(o) for o in opts["option"])
            players = games.load(opts["variant"], **options).num_players
            if opts["max_games"] < players or opts["every"] < 1:
                raise ValueError(f"--max-games must be at least {players} and --every at least 1")
            makers = [self._maker(opts[k], opts["unsandboxed"]) for k in ("new", "old", "filler")]
            scores = deal_scores(
                opts["variant"],
                *makers,
                seed=seed,
                options=options,
                time_control=TimeControl(move_ms=opts["move_ms"], bank_ms=opts["bank_ms"]),
                partnership=is_partnership(opts["variant"]),
            )
            self._header(opts, test, seed, players)
            last = None
            trials = version_test(
                scores, test=test, players=players, max_trials=opts["max_games"] // players
            )
            for last in trials:
                if last.trials % opts["every"] == 0 or last.decision:
                    self._line(last, players)
        except Exception as exc:  # every bad input is reported, never a traceback
            if isinstance(exc, ValueError | OSError) or type(exc).__name__ == "SandboxUnavailable":
                raise CommandError(str(exc)) from exc
            raise
        self._verdict(last, opts)

    @staticmethod
    def _maker(spec: str, unsandboxed: bool):
        player_from_spec(spec, seed=0, index=0, sandboxed=not unsandboxed).close()  # check it
        return lambda seed, index: player_from_spec(
            spec, seed=seed, index=index, sandboxed=not unsandboxed
        )

    def _header(self, opts, test: Sprt, seed: int, players: int) -> None:
        self.stdout.write(
            f"SPRT {opts['new']} (new) vs {opts['old']} (old), {opts['variant']}, seed {seed}\n"
            f"H0: elo = {test.elo0:g}, H1: elo = {test.elo1:g}, alpha {test.alpha:g}, "
            f"beta {test.beta:g}; LLR bounds [{test.lower:.2f}, {test.upper:.2f}]; "
            f"a trial is one deal at {players} seat rotations"
        )
        self.stdout.write(f"{'deals':>7}{'games':>8}{'score':>8}{'elo':>9}{'LLR':>8}")

    def _line(self, result, players: int) -> None:
        elo = f"{result.elo:+.0f}" if math.isfinite(result.elo) else f"{result.elo:+}"
        self.stdout.write(
            f"{result.trials:>7}{result.trials * players:>8}{result.score:>8.3f}"
            f"{elo:>9}{result.llr:>8.2f}"
        )

    def _verdict(self, result, opts) -> None:
        if result is None or result.decision is None:
            self.stdout.write(
                f"undecided after {opts['max_games']} games: LLR {result.llr if result else 0:.2f} "
                "is between the bounds"
            )
        elif result.decision == "H1":
            self.stdout.write(
                self.style.SUCCESS(
                    f"H1 accepted: the new version is better; the games favour elo "
                    f"{opts['elo1']:g} over {opts['elo0']:g} (a new version no better than "
                    f"elo {opts['elo0']:g} passes at most {percent(opts['alpha'])} of the time)"
                )
            )
        else:
            self.stdout.write(
                self.style.WARNING(
                    f"H0 accepted: the new version is not better; the games favour elo "
                    f"{opts['elo0']:g} over {opts['elo1']:g} (a new version elo "
                    f"{opts['elo1']:g} better fails at most {percent(opts['beta'])} of the time)"
                )
            )
