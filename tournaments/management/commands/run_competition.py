"""``manage.py run_competition <id> [--follow] [--inline]``: run a competition to its end.

Starts the competition if it is a draft and queues its matches for the Celery
workers; ``--follow`` then shows a progress line until the final standings.
``--inline`` plays the matches in this process, without Celery or Redis (a
club on one machine): rounds are paired and played one after another.
"""

from __future__ import annotations

import sys
import time

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from tournaments import selectors, services
from tournaments.models import Competition, Match
from tournaments.ratings import tiebreaks
from tournaments.selectors import competition_progress
from tournaments.services import queue
from tournaments.watching.words import move_words
from tournaments.worker import execution

BAR = 30


class Command(BaseCommand):
    help = "Start (if draft) and run or follow a competition until its final standings."

    def add_arguments(self, parser):
        parser.add_argument("competition", type=int, help="competition id")
        parser.add_argument("--follow", action="store_true", help="show progress until the end")
        parser.add_argument(
            "--inline", action="store_true", help="play the matches here, without Celery"
        )
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between updates")
        parser.add_argument(
            "--max-matches", type=int, default=0, help="--inline: stop after this many (ladders)"
        )

    def handle(self, *args, **opts):
        try:
            competition = Competition.objects.get(pk=opts["competition"])
        except Competition.DoesNotExist:
            raise CommandError(f"no competition with id {opts['competition']}") from None
        inline = opts["inline"]
        try:
            if competition.status == Competition.Status.DRAFT:
                services.competition_start(
                    competition=competition, send=None if inline else queue.send_match_tasks
                )
                self.stdout.write(f"started {competition} ({competition.format})")
            elif competition.status == Competition.Status.RUNNING and not inline:
                queue.matches_enqueue(competition=competition)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.started = time.monotonic()
        self.games_at_start = competition_progress(competition=competition)["games"]
        try:
            if inline:
                self._run_inline(competition, opts["max_matches"], opts["interval"])
            elif opts["follow"]:
                self._follow(competition, opts["interval"])
        except KeyboardInterrupt:
            self.stdout.write("\ninterrupted; the competition goes on where it stands")
            return
        self._final(competition)

    def _run_inline(self, competition: Competition, limit: int, interval: float) -> None:
        claimed_by = execution.worker_name("inline")
        played, shown = 0, 0.0
        while not limit or played < limit:
            match_id = (
                competition.matches.filter(status__in=[Match.Status.PENDING, Match.Status.QUEUED])
                .order_by("id")
                .values_list("pk", flat=True)
                .first()
            )
            if match_id is None:
                break
            try:
                execution.match_execute(match_id=match_id, claimed_by=claimed_by, send=None)
            except execution.InfrastructureFault as fault:
                execution.match_release(
                    match_id=match_id, claimed_by=claimed_by, error=str(fault), retry_in_s=0
                )
                raise CommandError(f"match {match_id}: {fault}") from fault
            played += 1
            if time.monotonic() - shown >= interval:
                shown = time.monotonic()
                self._show(competition)
        self._show(competition)

    def _follow(self, competition: Competition, interval: float) -> None:
        while True:
            row = self._show(competition)
            if row["competition"] != Competition.Status.RUNNING:
                return
            time.sleep(interval)

    def _show(self, competition: Competition) -> dict:
        row = competition_progress(competition=competition)
        done, total = row[Match.Status.DONE], row["schedule"]["total"] or 1
        seconds = max(time.monotonic() - self.started, 1e-9)
        rate = (row["games"] - self.games_at_start) / seconds
        if competition.format == Competition.Format.LADDER:
            # A ladder has no end: the bar is the current batch, beside the matches played.
            batch = competition.rounds.order_by("-number").first()
            size = batch.matches.count() if batch else 0
            finished = batch.matches.filter(status=Match.Status.DONE).count() if batch else 0
            filled = BAR * finished // (size or 1)
            where = f"{done} played, batch {batch.number if batch else 0}: {finished}/{size}"
        else:
            filled = BAR * done // total
            where = f"{done}/{row['schedule']['total']} done"
        line = (
            f"\r[{'#' * filled}{'.' * (BAR - filled)}] {where}  "
            f"{row[Match.Status.QUEUED] + row[Match.Status.PENDING]} queued  "
            f"{row[Match.Status.RUNNING]} running  {row[Match.Status.FAILED]} failed  "
            f"{rate:.1f} games/s  [{row['competition']}]"
        )
        self.stdout.write(line, ending="")
        self.stdout.flush()
        return row

    def _final(self, competition: Competition) -> None:
        self.stdout.write("")
        competition.refresh_from_db()
        failed = competition.matches.filter(status=Match.Status.FAILED)
        for match in failed[:10]:
            self.stderr.write(f"match {match.pk} failed: {match.error}")
        self.stdout.write(f"{competition} is {competition.status}")
        rows = selectors.standings_for_competition(competition=competition)
        for line in standings_table(competition, rows):
            self.stdout.write(line)
        sys.stdout.flush()


def standings_table(competition: Competition, rows: list[dict]) -> list[str]:
    """The lines of the final table: the rows of ``standings_for_competition`` as they are,
    a shared rank as "2=", and the tie-break that put a row below the one above when it
    was not the chain's first step ("on head-to-head")."""
    chain = selectors.standings_chain(competition)
    dealing = (
        "duplicate (every deal once per seat rotation)"
        if competition.duplicate
        else ("not duplicate")
    )
    knockout = chain == ("placement",)
    lines = [
        f"standings by {tiebreaks.describe_chain(chain)}; matches {dealing}",
        f"{'rank':>4}  {'bot':<24} {'points':>7} {'rating':>7} {'games':>6}"
        + ("  out at" if knockout else ""),
    ]
    divided = any(row.get("division") for row in rows)  # a league season's divisions
    finished = competition.status == Competition.Status.FINISHED
    for i, row in enumerate(rows):
        if divided and (i == 0 or rows[i - 1]["division"] != row["division"]):
            lines.append(f"division {row['division'] + 1}")
        rank = f"{row['rank']}=" if row.get("shared") else str(row["rank"])
        line = (
            f"{rank:>4}  {row['name'][:24]:<24} {row['points']:>7.1f} "
            f"{row['rating']:>7.2f} {row['games']:>6}"
        )
        if knockout:
            line += f"  {row.get('eliminated_at') or ('champion' if row['rank'] == 1 else '-')}"
        elif row.get("separated_by") not in (None, chain[0]):
            line += f"  on {tiebreaks.STEP_LABELS[row['separated_by']]}"
        if row.get("move"):
            line += f"  {move_words(row['move'], finished=finished)}"
        lines.append(line)
    return lines
