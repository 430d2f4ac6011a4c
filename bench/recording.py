"""Recording benchmark: N processes storing pre-played results into PostgreSQL.

    DATABASE_URL=postgres://... python -m bench.recording [--processes 1,2,4] [--json]

The matches are played first (one-game matches of random bots, referee only,
each from its seed), so only a worker's writes are timed: for each result, the
claim (``execution.match_claim_with_seats``, which reads the seats and the entries' ratings)
and ``services.match_record`` as a worker calls it after playing. On PostgreSQL
the recording is one statement in its transaction when the entries' ratings are
still those the claim read (``tournaments.services.record_statements.match_store_rated``), and two
more in the same transaction when another process stored a result of one of them
in between. Two layouts for each N:

- ``one competition``: the N processes record the results of one competition,
  whose matches share entries and one round (the contended case: entry row locks,
  ratings changed between claim and record, the competition's rating sequence);
- ``N competitions``: each process records the results of a competition of its own.

Printed per run: results/s over all processes, the ratio to one process of the
same layout, and per result the queries (the claim, BEGIN and COMMIT included)
and the milliseconds one process spent. A scratch database is created next to
``DATABASE_URL``'s and dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import time
from typing import Any

from bench.bulk import drop_database, scratch_database


def _competition(label: str, entries: int):
    from bots.models import Bot
    from tournaments import services
    from tournaments.models import Competition, Round

    comp = services.competition_create(
        created_by=None,
        name=f"recording {label}",
        kind="tournament",
        variant="money-jordan",
        format="round-robin",
        games_per_match=1,
        duplicate=False,
        seed=1,
    )
    for i in range(entries):
        bot = Bot.objects.create(name=f"rec-{label}-{i}", builtin="random")
        services.entry_create(competition=comp, bot=bot)
    Competition.objects.filter(pk=comp.pk).update(status=Competition.Status.RUNNING)
    comp.refresh_from_db()
    round_ = Round.objects.create(competition=comp, number=1, status=Round.Status.RUNNING)
    return comp, round_


def _matches(comp, round_, count: int, rng: random.Random) -> list[int]:
    """``count`` queued matches in ``round_`` (and one more that stays pending, so the
    round never closes while the bench runs)."""
    from tournaments.models import Match, MatchSeat

    entries = list(comp.entries.values_list("pk", flat=True))
    ids = []
    for i in range(count + 1):
        match = Match.objects.create(
            competition=comp,
            round=round_,
            table=i,
            seed=rng.randrange(2**62),
            status=Match.Status.QUEUED if i < count else Match.Status.PENDING,
        )
        MatchSeat.objects.bulk_create(
            [
                MatchSeat(match=match, seat=s, entry_id=e)
                for s, e in enumerate(rng.sample(entries, 2))
            ]
        )
        ids.append(match.pk)
    return ids[:count]


def _played(ids: list[int]) -> list[tuple[int, Any]]:
    """Each match's id and its result, played from its seed (nothing written)."""
    from tournaments import services
    from tournaments.models import Match

    out = []
    for match in Match.objects.select_related("competition").filter(pk__in=ids).order_by("id"):
        out.append((match.pk, services.match_play(match=match)))
    return out


def _record(share, claimed_by: str, barrier, results) -> None:
    """A child process: record ``share`` once the barrier opens; report its figures."""
    from django.db import connection, connections
    from django.test.utils import CaptureQueriesContext

    from tournaments import services
    from tournaments.worker import execution

    connections.close_all()  # a connection of its own, not the parent's
    connection.ensure_connection()
    barrier.wait()
    started = time.perf_counter()
    wall_start = time.time()
    recorded = 0
    with CaptureQueriesContext(connection) as queries:
        for match_id, played in share:
            match, seats = execution.match_claim_with_seats(
                match_id=match_id, claimed_by=claimed_by
            )
            recorded += services.match_record(
                match=match, played=played, claimed_by=claimed_by, claimed_seats=seats,
                send=None, synchronous_commit=not execution.async_commit_allowed(),
            )  # fmt: skip
    seconds = time.perf_counter() - started
    results.put(
        {
            "recorded": recorded,
            "seconds": seconds,
            "queries": len(queries),
            "start": wall_start,
            "end": wall_start + seconds,
        }
    )
    connections.close_all()


def run(processes: int, per_process: int, separate: bool, entries: int, seed: int) -> dict:
    """Prepare, then record with ``processes`` processes at once; the figures of the run."""
    from django.db import connections

    rng = random.Random(seed)
    shares = []
    if separate:
        for p in range(processes):
            comp, round_ = _competition(f"{processes}-sep-{p}-{seed}", entries)
            shares.append(_played(_matches(comp, round_, per_process, rng)))
    else:
        comp, round_ = _competition(f"{processes}-one-{seed}", entries)
        played = _played(_matches(comp, round_, per_process * processes, rng))
        shares = [played[p::processes] for p in range(processes)]
    connections.close_all()
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(processes), context.Queue()
    children = [
        context.Process(target=_record, args=(share, "bench", barrier, results)) for share in shares
    ]
    for child in children:
        child.start()
    rows = [results.get(timeout=600) for _ in children]
    for child in children:
        child.join()
        if child.exitcode:
            raise RuntimeError(f"a recording process failed ({child.exitcode})")
    total = sum(r["recorded"] for r in rows)
    span = max(r["end"] for r in rows) - min(r["start"] for r in rows)
    return {
        "processes": processes,
        "layout": "separate" if separate else "one",
        "results": total,
        "expected": per_process * processes,
        "seconds": span,
        "results_per_s": total / span,
        "queries_per_result": sum(r["queries"] for r in rows) / total,
        "ms_per_result": 1000 * sum(r["seconds"] for r in rows) / total,
    }


def measure(args) -> dict[str, Any]:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    runs = []
    for layout in ("one", "separate"):
        for n in args.processes:
            runs.append(run(n, args.results, layout == "separate", args.entries, args.seed + n))
    for row in runs:
        base = next(r for r in runs if r["layout"] == row["layout"] and r["processes"] == 1)
        row["vs_one_process"] = row["results_per_s"] / base["results_per_s"]
    return {"cpus": len(os.sched_getaffinity(0)), "results_per_process": args.results, "runs": runs}


def report(result: dict[str, Any]) -> None:
    print(
        f"recording {result['results_per_process']} pre-played one-game results per process, "
        f"{result['cpus']} CPUs"
    )
    for row in result["runs"]:
        layout = "one competition" if row["layout"] == "one" else f"{row['processes']} competitions"
        print(
            f"  {row['processes']} process(es), {layout:<16} {row['results_per_s']:8.1f} results/s"
            f"  x{row['vs_one_process']:.2f} of 1 process"
            f"  {row['queries_per_result']:.1f} queries,"
            f" {row['ms_per_result']:.2f} ms per result"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", default="1,2,4", help="comma-separated; 1 is always run")
    parser.add_argument("--results", type=int, default=300, help="results per process")
    parser.add_argument("--entries", type=int, default=40, help="entries per competition")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.processes = sorted({1, *(int(n) for n in args.processes.split(","))})
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        sys.exit("bench.recording needs DATABASE_URL (PostgreSQL)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    url, name = scratch_database(base)
    os.environ["DATABASE_URL"] = url
    try:
        result = measure(args)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(base, name)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
