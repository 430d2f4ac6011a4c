"""Bulk benchmark: one competition of >= 1000 short matches, four ways, in the same run.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.bulk [--json]

- ``referee``: the matches played by the referee alone in this process (no database),
  each just before the direct run plays it;
- ``direct``: the same competition played here without Celery, each round's matches
  as one list, as a worker's task plays them (a batch at a time: claimed in one
  statement, played, stored in one statement; ``CARDROOM_RECORD_BATCH=1``: one match at
  a time);
- ``1 worker`` / ``2 workers``: the same competition run by one, then two Celery
  worker processes (``--concurrency 1`` each) through Redis; this process only
  starts it and waits for the final standings.

``--metrics-cost`` instead plays the direct and the one-worker runs with the metrics
(``config.metrics``) on and off, taking turns, and prints what they cost a match.

A second row plays longer matches (``--long-games``, 6 by default) direct and on one
worker, with fewer entries. The workers' memory (VmRSS) is sampled through each run.
Just before each two-worker run, :func:`parallel_speed` measures how fast two
CPU-bound processes run side by side against one alone: the ceiling printed for two
workers in that turn counts it.

Decision traces: the referee plays the competition's matches (the same seeds and bots)
with traces on and off, taking turns match by match, and encodes each game's record as
``GameRecord.pack`` stores it; printed are matches per second both ways and the
compressed bytes a trace adds per decision (target: at most 10 % slower).
``--traces-only`` measures just that, without a database.

A third row, ``live``, is what watching a match while it is played costs the worker
(``tournaments.live.publisher``): longer matches played direct three ways taking turns match by
match, publishing off, on as configured (a game published as it finishes, moves at
most four times a second, nothing in a match's first half second: a quick match writes
nothing), and on with every game written as it finishes from the first (no wait at
the start and between games: the most a match of quick games can cost).
``--live-only`` runs that row alone.

Targets: direct >= 0.5x referee only (one-game matches); one worker >= 90 % of
direct; two workers >= 1.7x one worker; worker memory flat over the run. The speed
of a small virtual machine's CPUs can swing by a third from one run to the next, so
the referee takes turns with the direct run match by match, and ``--turns`` (3)
rounds of the direct, one- and two-worker runs are made (forward, then backward);
each ratio is the median of its turns' ratios. A scratch PostgreSQL database is
created (and dropped at the end) so nothing else is touched; the queues have names
of their own on the Redis of ``REDIS_URL``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _server(url: str) -> str:
    """The server's maintenance database (``postgres``): ``url``'s own need not exist."""
    return url.replace("postgres://", "postgresql://").rsplit("/", 1)[0] + "/postgres"


def scratch_database(url: str) -> tuple[str, str]:
    """Create an empty database next to ``url``'s; returns (its url, its name)."""
    import psycopg

    name = f"cardroom_bench_{os.getpid()}"
    with psycopg.connect(_server(url), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name, name


def drop_database(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(_server(url), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


#: Clock ticks per second of the CPU times in ``/proc``.
TICKS = os.sysconf("SC_CLK_TCK")

#: A fixed piece of interpreter work (about a quarter of a second on one core here),
#: timed by the process that runs it once it has said it is ready and been told to go.
SPIN = """import os, sys, time
os.sched_setaffinity(0, {%d})
print("ready", flush=True)
sys.stdin.readline()
total = 0
for i in range(%d):
    total += i * i
print(time.perf_counter())
"""


def parallel_speed(cpus: list[int], rounds: int = 3, loops: int = 4_000_000) -> dict[str, float]:
    """How fast CPU-bound processes run side by side, one pinned to each of ``cpus``.

    The same loop runs alone on ``cpus[0]``, then one copy on each of ``cpus`` at
    once (released together). ``speed`` is the lone run's wall time over the mean
    side-by-side one, best of ``rounds`` each, every copy timed from the moment the
    first is released to its own end (``perf_counter`` is the machine's monotonic
    clock, the same in every process), so a copy the scheduler keeps waiting is timed
    waiting too: 1.0 when the CPUs are independent,
    lower when they share what the guest cannot see (a virtual machine's two CPUs
    on one physical core, or its caches), or the host takes time from them; 0.5
    for two copies on one CPU. Two workers can run at most this fast per CPU.
    """

    def wall_times(pinned: list[int]) -> list[float]:
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", SPIN % (cpu, loops)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for cpu in pinned
        ]
        for proc in procs:  # every copy started up before any is timed
            proc.stdout.readline()
        released = time.perf_counter()
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        return [float(proc.communicate()[0]) - released for proc in procs]

    alone = min(wall_times(cpus[:1])[0] for _ in range(rounds))
    together = min(sum(times) / len(times) for times in (wall_times(cpus) for _ in range(rounds)))
    return {"alone_s": alone, "together_s": together, "speed": alone / together}


def cpu_by_kind(workers: list[int]) -> dict[str, float]:
    """CPU seconds used so far: the whole machine (``busy``, from ``/proc/stat``) and its
    processes by kind: the ``workers`` (these pids and their children), ``postgres``,
    ``redis``, this ``bench`` process, and ``stolen``: the time a virtual machine's
    host ran something else on our CPUs (``steal``); ``other`` is the rest."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    out = {"busy": (sum(fields) - fields[3] - fields[4]) / TICKS}
    stolen = fields[7] / TICKS if len(fields) > 7 else 0.0
    ours = set(workers) | {c for w in workers for c in children(w)}
    kinds = {"workers": 0.0, "postgres": 0.0, "redis": 0.0, "bench": 0.0, "stolen": stolen}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        values = stat[stat.rindex(")") + 2 :].split()
        seconds = (int(values[11]) + int(values[12])) / TICKS
        pid = int(entry.name)
        if pid in ours:
            kinds["workers"] += seconds
        elif pid == os.getpid():
            kinds["bench"] += seconds
        elif name.startswith("postgres") or name.startswith("postmaster"):
            kinds["postgres"] += seconds
        elif name.startswith("redis"):
            kinds["redis"] += seconds
    return {**out, **kinds}


def cores_busy(before: dict[str, float], after: dict[str, float], seconds: float):
    """Cores kept busy over ``seconds``, in all and by kind (``other``: the rest)."""
    used = {k: (after[k] - before[k]) / seconds for k in before}
    known = sum(v for k, v in used.items() if k != "busy")
    used["other"] = max(0.0, used["busy"] - known)
    return used


class Worker:
    """``celery -A config worker --concurrency 1`` on the bench queue (or on ``queues``,
    listened to in that order)."""

    def __init__(
        self,
        log: Path,
        pool: str = "prefork",
        extra: str = "",
        env: dict | None = None,
        queues: list[str] | None = None,
        cgroup: Path | None = None,
    ) -> None:
        """``cgroup``: the ``cgroup.procs`` file the worker joins before it starts (its pool
        processes and bots are forked there), as a unit's ``CPUWeight=`` puts it."""
        argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "-c", "1", "-P", pool]
        argv += extra.split()
        argv += ["-n", f"bench-{uuid.uuid4().hex[:6]}@%h", "-l", "info", "-Q"]
        argv += [",".join(queues or [os.environ["CARDROOM_MATCH_QUEUE"]])]
        argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        if cgroup is not None:
            argv = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(cgroup), *argv]
        self.log = log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, **(env or {})},
            )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while b" ready." not in self.log.read_bytes():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("worker did not start:\n" + self.log.read_text()[-2000:])
            time.sleep(0.1)

    def memory(self) -> dict[str, int | None]:
        """VmRSS (kB) of the worker's main process and of its pool process(es)."""
        pool = children(self.proc.pid)
        return {"main_kb": rss_kb(self.proc.pid), "pool_kb": sum(rss_kb(p) or 0 for p in pool)}

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def new_competition(args, label: str):
    from bots.models import Bot
    from tournaments import services

    comp = services.competition_create(
        created_by=None,
        name=f"bench {label}",
        kind="tournament",
        variant=args.variant,
        format="round-robin",
        games_per_match=args.games,
        duplicate=False,
        seed=args.seed,
    )
    for i in range(args.entries):
        bot = Bot.objects.create(name=f"bench-{label}-{i}", builtin="random")
        services.entry_create(competition=comp, bot=bot)
    return comp


def run_direct(args) -> tuple[dict[str, Any], dict[str, Any]]:
    """The competition played here without Celery, each round's matches as one list as a
    worker's task plays them (``bookkeeping.play_list``), and each round's matches played
    by the referee alone just before (the same seed and bots as ``match_play`` uses): the
    two take turns round by round, so a swing in the machine's speed hits both alike.
    Returns the direct row and the referee's, each timed on its own share: the direct
    row is the competition's start and the lists (what a worker does), not this bench's
    own read of each round's tables for the referee's turn (until December 2026 it
    counted that too, about 0.1 ms a one-game match)."""
    from django.db.models import Count

    from bench import bookkeeping
    from bots.referee import TimeControl, play_match
    from bots.referee.seating import seat_player
    from tournaments import services
    from tournaments.models import Match

    comp = new_competition(args, "direct")
    tc = TimeControl(move_ms=comp.move_ms, bank_ms=max(1, comp.bank_ms))
    refereed = direct = 0.0
    started = time.perf_counter()
    services.competition_start(competition=comp, send=None)
    direct += time.perf_counter() - started
    while True:
        tables = list(
            comp.matches.filter(status=Match.Status.PENDING)
            .annotate(seats_count=Count("seats"))
            .order_by("id")
            .values_list("pk", "seed", "seats_count")
        )
        if not tables:
            break
        for _, seed, seats in tables:
            before = time.perf_counter()
            players = [seat_player(builtin="random", seed=seed, seat=s) for s in range(seats)]
            play_match(
                comp.variant, players, games_count=comp.games_per_match, seed=seed,
                options=comp.options, duplicate=comp.duplicate, time_control=tc,
            )  # fmt: skip
            refereed += time.perf_counter() - before
        before = time.perf_counter()
        bookkeeping.play_list([match_id for match_id, _, _ in tables], claimed_by="bench-direct")
        direct += time.perf_counter() - before
    seconds = direct
    matches = comp.matches.count()
    referee = {
        "matches": matches,
        "seconds": refereed,
        "matches_per_s": matches / refereed,
        "games_per_s": matches * comp.games_per_match / refereed,
    }
    return summary(comp, seconds), referee


#: The ways of the live row: (name, CARDROOM_LIVE, moves interval, games interval); None
#: keeps the setting.
LIVE_WAYS = (("off", False, None, None), ("on", True, None, None), ("every game", True, None, 0.0))


def run_live_cost(args) -> dict[str, Any]:
    """Longer matches played direct, publishing off and on (:data:`LIVE_WAYS`), one
    competition each (the same seed: the same deals), taking turns match by match, each
    way first in turn; per way the time a match takes, the
    writes a match makes, and each on-way's extra time over off."""
    from django.conf import settings

    from tournaments import services
    from tournaments.live import publisher as live
    from tournaments.models import Match
    from tournaments.worker import execution

    writes = [0]
    flush = live.LivePublisher.flush

    def counted(self) -> bool:
        writes[0] += 1
        return flush(self)

    live.LivePublisher.flush = counted
    saved = (
        settings.CARDROOM_LIVE,
        settings.CARDROOM_LIVE_MOVES_S,
        settings.CARDROOM_LIVE_GAMES_S,
        settings.CARDROOM_LIVE_AFTER_S,
    )
    rows = {name: {"matches": 0, "seconds": 0.0, "writes": 0} for name, *_ in LIVE_WAYS}
    comps = {name: new_competition(args, f"live-{name}") for name, *_ in LIVE_WAYS}
    try:
        for comp in comps.values():
            services.competition_start(competition=comp, send=None)
        while True:
            pending = {
                name: list(
                    comp.matches.filter(status=Match.Status.PENDING)
                    .order_by("id")
                    .values_list("pk", flat=True)
                )
                for name, comp in comps.items()
            }
            if not all(pending.values()):
                break
            for turn, pair in enumerate(zip(*pending.values(), strict=False)):
                ways = list(zip(LIVE_WAYS, pair, strict=True))
                turn %= len(ways)  # each way goes first, second and last in turn
                for (name, on, moves, games_s), match_id in ways[turn:] + ways[:turn]:
                    settings.CARDROOM_LIVE = on
                    settings.CARDROOM_LIVE_MOVES_S = saved[1] if moves is None else moves
                    settings.CARDROOM_LIVE_GAMES_S = saved[2] if games_s is None else games_s
                    settings.CARDROOM_LIVE_AFTER_S = saved[3] if games_s is None else 0.0
                    before, written = time.perf_counter(), writes[0]
                    execution.match_execute(match_id=match_id, claimed_by="bench-live", send=None)
                    rows[name]["seconds"] += time.perf_counter() - before
                    rows[name]["writes"] += writes[0] - written
                    rows[name]["matches"] += 1
    finally:
        live.LivePublisher.flush = flush
        (
            settings.CARDROOM_LIVE,
            settings.CARDROOM_LIVE_MOVES_S,
            settings.CARDROOM_LIVE_GAMES_S,
            settings.CARDROOM_LIVE_AFTER_S,
        ) = saved
    for row in rows.values():
        row["ms_per_match"] = row["seconds"] * 1000 / max(1, row["matches"])
        row["writes_per_match"] = row["writes"] / max(1, row["matches"])
    off = rows["off"]["ms_per_match"]
    for row in rows.values():
        row["extra_ms_per_match"] = row["ms_per_match"] - off
        row["vs_off"] = row["ms_per_match"] / off if off else None
    return {"games_per_match": args.games, "entries": args.entries, "ways": rows}


def report_live(r: dict[str, Any]) -> None:
    print(
        f"  live (watching a match while it plays): {r['games_per_match']}-game matches, "
        f"round robin of {r['entries']}, direct, the ways taking turns match by match:"
    )
    for name, row in r["ways"].items():
        print(
            f"    publishing {name:<11} {row['ms_per_match']:7.2f} ms a match"
            f"  ({row['matches']} matches, {row['writes_per_match']:.1f} writes a match,"
            f" {row['extra_ms_per_match']:+.2f} ms, x{row['vs_off']:.3f} of off)"
        )


def run_workers(args, count: int, tmp: Path, env: dict | None = None) -> dict[str, Any]:
    from django.db.models import Max

    from tournaments import services
    from tournaments.models import Competition, Match

    extra = getattr(args, "worker_args", "")
    workers = [Worker(tmp / f"worker-{count}-{i}.log", args.pool, extra, env) for i in range(count)]
    for worker in workers:
        worker.wait_ready()
    samples: list[list[dict[str, int | None]]] = [[w.memory()] for w in workers]
    comp = new_competition(args, f"celery{count}-{args.games}")
    pids = [w.proc.pid for w in workers]
    cpu_before = cpu_by_kind(pids)
    started = time.time()
    services.competition_start(competition=comp)
    # A look twice a second: polling the database more often would take CPU from the
    # workers (most of all with two, which leave no core idle). The run's length is
    # measured to its last result, which the worker stamps, not to this look.
    while Competition.objects.filter(pk=comp.pk, status=Competition.Status.RUNNING).exists():
        if comp.matches.filter(status=Match.Status.FAILED).exists():
            raise RuntimeError("a match failed: see " + str(tmp))
        for worker, series in zip(workers, samples, strict=True):
            series.append(worker.memory())
        time.sleep(0.5)
    cpu_after = cpu_by_kind(pids)
    last = comp.matches.aggregate(last=Max("finished_at"))["last"]
    seconds = last.timestamp() - started
    cpu = cores_busy(cpu_before, cpu_after, seconds)  # the tail after the last result is idle
    for worker, series in zip(workers, samples, strict=True):
        series.append(worker.memory())
    for worker in workers:
        worker.stop()
    out = summary(comp, seconds)
    out["cores_busy"] = cpu
    out["workers"] = [
        memory_summary(w.proc.pid, series) for w, series in zip(workers, samples, strict=True)
    ]
    return out


def memory_summary(pid: int, series: list[dict[str, int | None]]) -> dict[str, Any]:
    """Start, peak and end VmRSS (kB) of a worker's main and pool processes; the pool's
    growth from the first quarter of the run to its end (flat memory: close to 0)."""
    pool = [m["pool_kb"] or 0 for m in series]
    quarter = pool[: max(1, len(pool) // 4)]
    return {
        "pid": pid,
        "start": series[0],
        "end": series[-1],
        "pool_peak_kb": max(pool),
        "pool_growth_kb": pool[-1] - max(quarter),
        "samples": len(series),
    }


def summary(comp, seconds: float) -> dict[str, Any]:
    from tournaments.models import Match

    done = comp.matches.filter(status=Match.Status.DONE).count()
    return {
        "matches": done,
        "games": done * comp.games_per_match,
        "seconds": seconds,
        "matches_per_s": done / seconds,
        "games_per_s": done * comp.games_per_match / seconds,
    }


def traces_cost(args, rounds: int = 5) -> dict[str, Any]:
    """Matches per second of the referee with decision traces on and off (``rounds`` passes
    over ``args.entries`` matches of random bots, the two taking turns match by match,
    each game's record packed as stored), and the compressed bytes a trace adds per
    decision. No database."""
    import games
    from bench.match import packed_bytes, trace_bytes
    from bots.builtin import make
    from bots.referee import InProcessPlayer, TimeControl, play_match

    players = games.load(args.variant).num_players
    tc = TimeControl()
    seconds = {True: 0.0, False: 0.0}
    kept = []
    matches = args.entries * rounds
    for index in range(matches):
        seed = args.seed * 1_000_003 + index
        for traces in (True, False) if index % 2 else (False, True):
            before = time.perf_counter()
            bots = [InProcessPlayer(make("random", seed=seed + s)) for s in range(players)]
            result = play_match(
                args.variant, bots, games_count=args.games, seed=seed, time_control=tc,
                traces=traces,
            )  # fmt: skip
            for game in result.games:
                packed_bytes(game.record)
            seconds[traces] += time.perf_counter() - before
            if traces and index < args.entries:
                kept.append(result)
    per_decision, decisions = trace_bytes(kept)
    return {
        "matches": matches,
        "games_per_match": args.games,
        "matches_per_s": matches / seconds[True],
        "traces_off_matches_per_s": matches / seconds[False],
        "slowdown": seconds[True] / seconds[False] - 1,
        "bytes_per_decision": per_decision,
        "decisions_measured": decisions,
    }


def report_traces(t: dict[str, Any]) -> None:
    print(
        f"  decision traces, referee only, {t['matches']} matches of {t['games_per_match']}"
        f" game(s): on {t['matches_per_s']:.1f} matches/s, off"
        f" {t['traces_off_matches_per_s']:.1f} ({t['slowdown']:+.1%}, target at most"
        f" +10 %); {t['bytes_per_decision']:.1f} bytes a decision compressed"
        f" ({t['decisions_measured']} decisions)"
    )


def measure(args) -> dict[str, Any]:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"cardroom-bench-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    cpus = sorted(os.sched_getaffinity(0))
    speeds: list[dict[str, float]] = []

    def two_workers():  # the CPUs' shared speed, measured just before
        speeds.append(parallel_speed(cpus))
        return run_workers(args, 2, tmp), None

    ways = {
        "direct": lambda: run_direct(args),
        "one_worker": lambda: (run_workers(args, 1, tmp), None),
        "two_workers": two_workers,
    }
    turns: list[dict[str, dict[str, Any]]] = []
    for turn in range(max(1, args.turns)):  # in turn: forward, then backward, ...
        runs: dict[str, dict[str, Any]] = {}
        for way in list(ways) if turn % 2 == 0 else list(ways)[::-1]:
            runs[way], referee = ways[way]()
            if referee is not None:  # played match by match beside the direct run
                runs["referee"] = referee
        turns.append(runs)
    ceilings = [
        ceiling(len(cpus), speed["speed"], kept_busy(t["one_worker"]["cores_busy"]))
        for speed, t in zip(speeds, turns, strict=True)
    ]
    first = turns[0]
    direct, referee, one, two = (
        first[k] for k in ("direct", "referee", "one_worker", "two_workers")
    )

    def ratio(a: str, b: str) -> float:
        """The median over the turns of ``a`` matches/s over ``b``'s in the same turn."""
        return statistics.median(t[a]["matches_per_s"] / t[b]["matches_per_s"] for t in turns)

    long = argparse.Namespace(
        **{**vars(args), "games": args.long_games, "entries": args.long_entries}
    )
    long_direct, long_referee = run_direct(long)
    long_one = run_workers(long, 1, tmp)
    live_cost = run_live_cost(long)
    return {
        "bookkeeping": measure_bookkeeping(args),
        "traces": traces_cost(args),
        "long_traces": traces_cost(long, rounds=1),
        "variant": args.variant,
        "entries": args.entries,
        "games_per_match": args.games,
        "cpus": len(cpus),
        "parallel_speed": speeds[0],
        "parallel_speeds": speeds,
        "two_vs_one_ceilings": ceilings,
        "two_vs_one_ceiling": statistics.median(ceilings),
        "referee": referee,
        "direct": direct,
        "one_worker": one,
        "two_workers": two,
        "direct_vs_referee": ratio("direct", "referee"),
        "one_worker_vs_direct": ratio("one_worker", "direct"),
        "one_worker_vs_referee": ratio("one_worker", "referee"),
        "two_vs_one_worker": ratio("two_workers", "one_worker"),
        "turns": [{way: run["matches_per_s"] for way, run in t.items()} for t in turns],
        "long": {
            "games_per_match": args.long_games,
            "entries": args.long_entries,
            "referee": long_referee,
            "direct": long_direct,
            "one_worker": long_one,
            "direct_vs_referee": long_direct["matches_per_s"] / long_referee["matches_per_s"],
            "one_worker_vs_direct": long_one["matches_per_s"] / long_direct["matches_per_s"],
        },
        "live": live_cost,
    }


def measure_bookkeeping(args) -> dict[str, Any]:
    """Where a match's bookkeeping time goes (``bench.bookkeeping``), on a competition of
    ``--breakdown-entries`` played direct."""
    from bench import bookkeeping

    parts = argparse.Namespace(**{**vars(args), "entries": args.breakdown_entries})
    return bookkeeping.measure(parts, new_competition)


def run_direct_paired(args, label: str) -> dict[str, Any]:
    """One competition played here with the metrics on for every other match and off for
    the rest, each match timed alone: a swing in the machine's speed hits both alike."""
    from config import metrics
    from tournaments import services
    from tournaments.models import Match
    from tournaments.worker import execution

    comp = new_competition(args, label)
    spent = {True: 0.0, False: 0.0}
    played = {True: 0, False: 0}
    services.competition_start(competition=comp, send=None)
    on = True
    while ids := list(
        comp.matches.filter(status=Match.Status.PENDING).order_by("id").values_list("pk", flat=True)
    ):
        for match_id in ids:
            metrics.ENABLED = on
            before = time.perf_counter()
            execution.match_execute(match_id=match_id, claimed_by="bench-direct", send=None)
            spent[on] += time.perf_counter() - before
            played[on] += 1
            on = not on
    metrics.ENABLED = True
    ms = {way: spent[way] * 1000 / played[way] for way in (True, False)}
    return {"ms_on": ms[True], "ms_off": ms[False], "matches": sum(played.values())}


UPDATES = """
import time
from config import metrics
kind, rounds = "competition", 20_000
started = time.perf_counter()
for _ in range(rounds):
    metrics.inc(metrics.MATCHES_STARTED, kind)
    metrics.observe(lambda: metrics.MATCHES_FINISHED.labels(kind, "recorded").inc())
    metrics.observe(lambda: metrics.MATCH_DURATION.labels(kind).observe(0.01))
    metrics.observe(lambda: metrics.RECORDING.labels(kind).observe(0.002))
print((time.perf_counter() - started) * 1e6 / rounds)
"""


def metric_updates_us(multiprocess_dir: Path | None) -> float:
    """Microseconds of one match's metric updates (started, finished, duration, recording)
    timed alone in a fresh process, in multiprocess mode if ``multiprocess_dir``."""
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    if multiprocess_dir is not None:
        multiprocess_dir.mkdir(parents=True, exist_ok=True)
        env["PROMETHEUS_MULTIPROC_DIR"] = str(multiprocess_dir)
    run = subprocess.run(
        [sys.executable, "-c", UPDATES], env=env, cwd=ROOT, capture_output=True, text=True
    )
    return float(run.stdout.strip())


def measure_metrics_cost(args) -> dict[str, Any]:
    """The metrics' cost a match: a direct run alternating on and off match by match; the
    updates timed alone in both modes; one-worker runs (multiprocess mode, as deployed)
    with the metrics on and off, taking turns (``--turns``), all in the same run."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"cardroom-bench-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    paired = run_direct_paired(args, "paired")
    updates = {"single": metric_updates_us(None), "multi": metric_updates_us(tmp / "updates")}
    turns = []
    for turn in range(args.turns):
        row: dict[str, Any] = {}
        for on in (True, False) if turn % 2 == 0 else (False, True):
            way = "on" if on else "off"
            directory = tmp / f"metrics-{turn}-{way}"
            directory.mkdir()
            env = {"CARDROOM_METRICS": "1" if on else "0"}
            env["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
            row[f"worker_{way}"] = run_workers(args, 1, tmp, env)
        turns.append(row)
    ratios = [t["worker_on"]["matches_per_s"] / t["worker_off"]["matches_per_s"] for t in turns]
    return {
        "variant": args.variant,
        "entries": args.entries,
        "games_per_match": args.games,
        "paired": paired,
        "updates_us": updates,
        "turns": turns,
        "worker_on_vs_off": statistics.median(ratios),
    }


def report_metrics_cost(r: dict[str, Any]) -> None:
    p = r["paired"]
    print(
        f"metrics cost: {r['variant']}, {p['matches']} matches of {r['games_per_match']}"
        f" game(s), round robin of {r['entries']} random bots"
    )
    print(
        f"  direct, on and off match by match: {p['ms_on']:.2f} ms a match with the metrics,"
        f" {p['ms_off']:.2f} ms without: {(p['ms_on'] - p['ms_off']) * 1000:+.0f} us"
        f" ({(p['ms_on'] / p['ms_off'] - 1) * 100:+.1f} %)"
    )
    u = r["updates_us"]
    print(
        f"  one match's four updates timed alone: {u['single']:.1f} us in one process,"
        f" {u['multi']:.1f} us in multiprocess mode (the workers')"
    )
    for i, t in enumerate(r["turns"], 1):
        rates = ", ".join(f"{k.replace('_', ' ')} {v['matches_per_s']:.1f}" for k, v in t.items())
        print(f"  turn {i}: {rates} matches/s")
    print(f"  1 worker on / off: {r['worker_on_vs_off']:.3f} (median of the turns)")


def measure_live(args) -> dict[str, Any]:
    """The live row alone (``--live-only``), on the longer matches."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    long = argparse.Namespace(
        **{**vars(args), "games": args.long_games, "entries": args.long_entries}
    )
    return {"live": run_live_cost(long)}


def measure_breakdown(args) -> dict[str, Any]:
    """The bookkeeping breakdown alone (``--breakdown-only``)."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return {"bookkeeping": measure_bookkeeping(args)}


def kept_busy(cores: dict[str, float]) -> float:
    """The CPUs a run kept busy itself: ``busy`` without what the host stole (``/proc/stat``
    counts stolen time as busy, but it was never the run's)."""
    return cores["busy"] - cores.get("stolen", 0.0)


def ceiling(cpus: int, speed: float, one_busy: float) -> float:
    """The most ``2 workers / 1 worker`` can be if a match costs two workers the CPU it
    costs one: ``cpus`` CPUs at ``speed`` of their lone speed, over the ``one_busy`` CPUs
    that one worker's run keeps busy (itself, PostgreSQL, Redis and the rest)."""
    return cpus * speed / one_busy


def report(r: dict[str, Any]) -> None:
    from bench import bookkeeping

    print(
        f"{r['variant']}: {r['direct']['matches']} matches of {r['games_per_match']} game(s), "
        f"round robin of {r['entries']} random bots, {r['cpus']} CPUs"
    )
    rows = [("referee only", r["referee"]), ("direct (no Celery)", r["direct"])]
    rows += [("1 worker", r["one_worker"]), ("2 workers", r["two_workers"])]
    for name, row in rows:  # the first turn
        print(f"  {name:<20} {row['matches_per_s']:8.1f} matches/s  ({row['seconds']:.1f} s)")
    turns = r.get("turns") or []
    for key, name, target in (
        ("direct_vs_referee", "direct / referee", "0.50"),
        ("one_worker_vs_direct", "1 worker / direct", "0.90"),
        ("one_worker_vs_referee", "1 worker / referee", ""),
        ("two_vs_one_worker", "2 workers / 1 worker", "1.70"),
    ):
        notes = [f"target >= {target}"] if target else []
        notes += [f"median of {len(turns)} turns"] if len(turns) > 1 else []
        print(f"  {name:<21} {r[key]:6.2f}" + (f"  ({', '.join(notes)})" if notes else ""))
    ceilings = r.get("two_vs_one_ceilings") or []
    for i, t in enumerate(turns, 1):
        rates = ", ".join(f"{way.replace('_', ' ')} {rate:.1f}" for way, rate in t.items())
        line = f"    turn {i}: {rates} matches/s"
        if i <= len(ceilings):
            line += (
                f"; 2 / 1 {t['two_workers'] / t['one_worker']:.2f}"
                f" (at most {ceilings[i - 1]:.2f})"
            )
        print(line)
    for name in ("one_worker", "two_workers"):
        c = r[name]["cores_busy"]
        print(
            f"  {name.replace('_', ' ')}: {c['busy']:.2f} of {r['cpus']} CPUs busy (workers"
            f" {c['workers']:.2f}, PostgreSQL {c['postgres']:.2f}, Redis {c['redis']:.2f},"
            f" bench {c['bench']:.2f}, other {c['other']:.2f}, stolen by the host"
            f" {c.get('stolen', 0.0):.2f}),"
            f" {c['busy'] * 1000 / r[name]['matches_per_s']:.1f} ms of CPU a match"
        )
    one = kept_busy(r["one_worker"]["cores_busy"])
    speeds = r.get("parallel_speeds") or [r["parallel_speed"]]
    speed = speeds[0]["speed"]
    sides = ", ".join(f"{s['speed']:.2f}" for s in speeds)
    print(
        f"  {r['cpus']} CPU-bound processes side by side run at"
        f" {sides} of one alone here, just before"
        f" each two-worker run ({speeds[0]['alone_s'] * 1000:.0f} ms alone,"
        f" {speeds[0]['together_s'] * 1000:.0f} ms side by side in the first)"
    )
    best = r.get("two_vs_one_ceiling", ceiling(r["cpus"], speed, one))
    print(
        f"  2 workers / 1 worker at most {best:.2f} here (median of the turns): {r['cpus']}"
        f" CPUs at their side-by-side speed, over what one worker's run keeps busy, the"
        f" host's stolen time left out ({one:.2f} in the first turn)"
    )
    report_traces(r["traces"])
    long = r["long"]
    print(f"  {long['games_per_match']}-game matches, round robin of {long['entries']}:")
    for name in ("referee", "direct", "one_worker"):
        row = long[name]
        print(
            f"    {name.replace('_', ' '):<18} {row['matches_per_s']:8.1f} matches/s"
            f"  {row['games_per_s']:8.1f} games/s  ({row['seconds']:.1f} s)"
        )
    print(f"    direct / referee    {long['direct_vs_referee']:6.2f}")
    print(f"    1 worker / direct   {long['one_worker_vs_direct']:6.2f}")
    report_traces(r["long_traces"])
    report_live(r["live"])
    bookkeeping.report(r["bookkeeping"])
    workers = [("one_worker", w) for w in r["one_worker"]["workers"]]
    workers += [("two_workers", w) for w in r["two_workers"]["workers"]]
    workers += [("long one_worker", w) for w in long["one_worker"]["workers"]]
    for i, (key, w) in enumerate(workers):
        print(
            f"  {key} worker {i}: VmRSS main {w['start']['main_kb']} -> {w['end']['main_kb']} kB,"
            f" pool {w['start']['pool_kb']} -> {w['end']['pool_kb']} kB (peak"
            f" {w['pool_peak_kb']}, growth after the first quarter {w['pool_growth_kb']} kB,"
            f" {w['samples']} samples)"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="money-jordan")
    parser.add_argument("--entries", type=int, default=46, help="46 two-player: 1035 matches")
    parser.add_argument("--games", type=int, default=1, help="games per match")
    parser.add_argument("--long-games", type=int, default=6, help="games of the longer row")
    parser.add_argument("--long-entries", type=int, default=16, help="16: 120 longer matches")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--turns", type=int, default=3,
        help="rounds of the direct, one- and two-worker runs; the median ratios are reported",
    )  # fmt: skip
    parser.add_argument(
        "--pool", default="prefork", choices=["prefork", "solo"], help="the workers' Celery pool"
    )
    parser.add_argument("--worker-args", default="", help="more options for `celery worker`")
    parser.add_argument(
        "--metrics-cost",
        action="store_true",
        help="only direct and one-worker runs with the metrics on and off, in turns",
    )
    parser.add_argument(
        "--traces-only", action="store_true",
        help="measure only what decision traces cost the referee (no database)",
    )  # fmt: skip
    parser.add_argument(
        "--live-only", action="store_true", help="only the live row (publishing off and on)"
    )
    parser.add_argument(
        "--breakdown-entries", type=int, default=30,
        help="entries of the competition whose matches' bookkeeping is broken down (30: 435)",
    )  # fmt: skip
    parser.add_argument(
        "--breakdown-only", action="store_true",
        help="only where a match's bookkeeping time goes (a direct run with timers)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.traces_only:
        result = {"traces": traces_cost(args), "long_traces": traces_cost(
            argparse.Namespace(**{**vars(args), "games": args.long_games,
                                  "entries": args.long_entries}), rounds=1)}  # fmt: skip
        if args.json:
            print(json.dumps(result, indent=2))
        else:
            report_traces(result["traces"])
            report_traces(result["long_traces"])
        return
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres") or not os.environ.get("REDIS_URL"):
        sys.exit("bench.bulk needs DATABASE_URL (PostgreSQL) and REDIS_URL")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    tag = uuid.uuid4().hex[:8]
    os.environ["CARDROOM_MATCH_QUEUE"] = f"bench-matches-{tag}"
    os.environ["CARDROOM_DEFAULT_QUEUE"] = f"bench-default-{tag}"
    url, name = scratch_database(base)
    os.environ["DATABASE_URL"] = url  # this process and the workers share it
    try:
        if args.metrics_cost:
            result = measure_metrics_cost(args)
        elif args.live_only:
            result = measure_live(args)
        elif args.breakdown_only:
            result = measure_breakdown(args)
        else:
            result = measure(args)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(base, name)
    print(json.dumps(result, indent=2) if args.json else "", end="")
    if args.json:
        return
    if args.metrics_cost:
        report_metrics_cost(result)
    elif args.live_only:
        print(f"{args.variant}, {os.cpu_count()} CPUs")
        report_live(result["live"])
    elif args.breakdown_only:
        from bench import bookkeeping

        print(f"{args.variant}, {os.cpu_count()} CPUs")
        bookkeeping.report(result["bookkeeping"])
    else:
        report(result)


if __name__ == "__main__":
    main()
