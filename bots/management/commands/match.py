"""``manage.py match``: play a local match between bots, no database or server needed."""

from __future__ import annotations

import json
import os
import secrets
import sys
import zipfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bots.referee import TimeControl, play_match
from bots.referee.replay import ReplayReport, replay_transcript, report_lines
from bots.referee.replay_sources import transcript_sources
from bots.referee.specs import parse_option, player_from_spec
from bots.referee.transcript import TranscriptError, match_transcripts, read_transcript


class Command(BaseCommand):
    help = (
        "Play a match: manage.py match <variant> <bot> <bot> ... where a bot is "
        "builtin:<name> or the path of a bot program or directory."
    )
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("variant", help="the variant (with --replay: the bot)")
        parser.add_argument("bots", nargs="*", help="builtin:<name> or a bot path, one per seat")
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
            "--stderr",
            action="store_true",
            help="print each bot's stderr, and each decision's stderr, note and times where "
            "it wrote or said something, faulted or used more than 80 %% of its time",
        )
        parser.add_argument(
            "--all-cores",
            action="store_true",
            help="do not keep the referee and its bots on one CPU core",
        )
        parser.add_argument(
            "--transcripts",
            type=Path,
            metavar="DIR",
            help="write each player's transcript of each game to DIR (for --replay)",
        )
        parser.add_argument(
            "--replay",
            type=Path,
            metavar="PATH",
            help="manage.py match --replay PATH BOT: send BOT the lines of a transcript "
            "and say whether it answers as it did, or where it first answers differently; "
            "PATH may also be a zip of transcripts (a match's, as the site gives them) or a "
            "folder of transcripts and zips (searched recursively): each game is replayed "
            "and a summary printed (exit status 0: all the same, 1: a difference, 2: a "
            "file skipped or nothing to replay)",
        )
        parser.add_argument(
            "--unsandboxed",
            action="store_true",
            help="DEVELOPMENT ONLY: run trusted bot programs without a sandbox",
        )

    def handle(self, *args, **opts):
        if opts["replay"] is not None:
            return self._replay(opts)
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
        self._print_times(result)
        if opts["stderr"]:
            self._print_stderr(result)
        if opts["json"]:
            opts["json"].write_text(json.dumps(result.to_json(), indent=1))
            self.stdout.write(f"full result with {len(result.games)} records: {opts['json']}")
            self.stdout.write(
                f"each bot's stderr: logs[] of {opts['json']} (in bot order); each "
                "decision's times, stderr and note: games[].record.traces"
            )
        elif not opts["stderr"]:
            self.stdout.write(
                "stderr and decision traces were not saved: --stderr prints them, "
                "--json FILE writes them (logs[], games[].record.traces)"
            )
        if opts["transcripts"]:
            self._write_transcripts(result, tc, opts["transcripts"])

    def _print_times(self, result) -> None:
        """Per bot: its decisions, their total charged time and the slowest one."""
        for p in range(len(result.players)):
            count, total, slowest = 0, 0, None
            for g in result.games:
                for trace in g.record.get("traces", []):
                    if g.seats[trace["seat"]] != p:
                        continue
                    count, total = count + 1, total + trace["charged_ms"]
                    if slowest is None or trace["charged_ms"] > slowest[0]:
                        slowest = (trace["charged_ms"], g.index + 1, trace["ply"] + 1)
            if slowest is not None:
                self.stdout.write(
                    f"{p:>2}  time: {count} decisions, {total:,} ms charged, slowest "
                    f"{slowest[0]:,} ms (game {slowest[1]}, move {slowest[2]})"
                )

    def _print_stderr(self, result) -> None:
        for p, name in enumerate(result.players):
            self.stdout.write(f"--- stderr of {p} {name} ---")
            self.stdout.write(result.logs[p] if result.logs[p] else "(nothing)")
        for g in result.games:
            for trace in g.record.get("traces", []):
                shown = [trace.get(k) for k in ("stderr", "note", "fault", "over")]
                if not any(shown) and not trace.get("stderr_cut"):
                    continue
                p = g.seats[trace["seat"]]
                cpu = "" if trace["cpu_ms"] is None else f", {trace['cpu_ms']} ms CPU"
                self.stdout.write(
                    f"game {g.index + 1} move {trace['ply'] + 1} {p} {result.players[p]}: "
                    f"{trace['charged_ms']} ms charged ({trace['wall_ms']} ms wall{cpu}), "
                    f"bank {trace['bank_ms']} ms{'  OVER 80 %' if trace.get('over') else ''}"
                )
                for key in ("fault", "note", "note_mark"):
                    if key in trace:
                        self.stdout.write(f"  {key}: {trace[key]}")
                if "stderr" in trace or trace.get("stderr_cut"):
                    cut = " (cut)" if trace.get("stderr_cut") else ""
                    self.stdout.write(f"  stderr{cut}: " + trace.get("stderr", "").rstrip("\n"))

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

    def _write_transcripts(self, result, tc: TimeControl, folder: Path) -> None:
        transcripts = match_transcripts(result, time_control=tc)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, transcript in transcripts.items():
                (folder / name).write_bytes(transcript.dumps())
        except OSError as exc:
            raise CommandError(f"cannot write transcripts to {folder}: {exc}") from exc
        self.stdout.write(
            f"{len(transcripts)} transcripts, one per player and game: "
            f"{folder}/game-<game>-player-<player>.jsonl "
            "(replay one with manage.py match --replay FILE BOT)"
        )

    def _replay(self, opts) -> None:
        """``--replay TRANSCRIPT BOT``: exit status 0 if the bot answers the same at every
        decision, 1 if not, 2 if the file is not a transcript."""
        bots = [opts["variant"], *opts["bots"]]
        if len(bots) != 1:
            raise CommandError("--replay takes one bot: manage.py match --replay PATH BOT")
        path = opts["replay"]
        if path.is_dir() or (path.is_file() and zipfile.is_zipfile(path)):
            return self._replay_run(path, bots[0], sandboxed=not opts["unsandboxed"])
        try:
            transcript = read_transcript(opts["replay"])
        except TranscriptError as exc:  # one line, whatever the file held
            reason = " ".join(f"{opts['replay']}: {exc}".split())
            raise CommandError(reason, returncode=2) from None
        if opts["unsandboxed"]:
            self.stderr.write(self.style.WARNING("WARNING: the bot runs WITHOUT a sandbox"))
        try:
            player = player_from_spec(bots[0], seed=0, index=0, sandboxed=not opts["unsandboxed"])
            report = replay_transcript(transcript, player)
        except Exception as exc:  # a bad bot path or no sandbox, said in words
            if isinstance(exc, ValueError | OSError) or type(exc).__name__ == "SandboxUnavailable":
                raise CommandError(str(exc)) from exc
            raise
        self.stdout.write("\n".join(report_lines(transcript, report, bot=bots[0])))
        if not report.same:
            sys.exit(1)

    def _replay_run(self, path: Path, bot: str, *, sandboxed: bool) -> None:
        """``--replay FOLDER-OR-ZIP BOT``: replay every transcript found, one line per game
        and a summary; exit status 0 if every decision was answered the same and no file
        was skipped, 1 if one was not, 2 if a file was skipped or none was found."""
        if not sandboxed:
            self.stderr.write(self.style.WARNING("WARNING: the bot runs WITHOUT a sandbox"))
        sources = list(transcript_sources(path))
        if not sources:
            raise CommandError(
                f"{path}: it holds no file to replay (a transcript, a zip of them, or "
                "folders of those)",
                returncode=2,
            )
        games, compared, differing, games_differing = 0, 0, 0, 0
        skipped: list[tuple[str, str]] = []
        for source in sources:
            try:
                transcript = source.load()
            except TranscriptError as exc:
                skipped.append((source.name, " ".join(str(exc).split())))
                continue
            report = self._replay_one(transcript, bot, sandboxed=sandboxed)
            games += 1
            compared, differing = compared + report.compared, differing + report.differing
            games_differing += not report.same
            self.stdout.write(self._game_line(source.name, transcript.header, report))
        for name, reason in skipped:
            self.stderr.write(f"skipped {name}: {reason}")
        self.stdout.write(
            f"replayed {bot} on {games} game{'s' * (games != 1)} under {path}: "
            f"{compared} decisions compared, {differing} answered differently "
            f"(in {games_differing} game{'s' * (games_differing != 1)}), "
            f"{len(skipped)} file{'s' * (len(skipped) != 1)} skipped"
        )
        if games_differing:
            sys.exit(1)
        if skipped:
            raise CommandError(
                f"{path}: {len(skipped)} of its {len(sources)} files skipped (not transcripts)",
                returncode=2,
            )

    def _replay_one(self, transcript, bot: str, *, sandboxed: bool) -> ReplayReport:
        """Replay one transcript against a fresh ``bot``, every decision compared."""
        try:
            player = player_from_spec(bot, seed=0, index=0, sandboxed=sandboxed)
            return replay_transcript(transcript, player, keep_going=True)
        except Exception as exc:  # a bad bot path or no sandbox, said in words
            if isinstance(exc, ValueError | OSError) or type(exc).__name__ == "SandboxUnavailable":
                raise CommandError(str(exc)) from exc
            raise

    @staticmethod
    def _game_line(name: str, header: dict, report: ReplayReport) -> str:
        """A game's outcome in one line: its decisions and its first difference."""
        head = f"game {header.get('game')}, player {header.get('player')} ({name}): "
        if report.not_ready:
            return head + f"the bot did not start: {report.not_ready}"
        if report.difference is None:
            return head + f"{report.compared} decisions, all answered the same"
        d = report.difference
        ply = "" if d.ply is None else f" (ply {d.ply})"
        return head + (
            f"{report.compared} decisions, {report.differing} answered differently; "
            f"first at decision {d.decision}{ply}: expected {d.expected}, got {d.answered}"
        )
