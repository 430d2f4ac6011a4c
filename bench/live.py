"""Live benchmark: how fast results reach the WebSocket clients watching a competition.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_live \\
        python -m bench.live [--sizes 1,100,500] [--rate 10] [--seconds 15] [--entries N] [--json]

For each size N it starts a public round robin of built-in random bots
(manni-basic, one game per match, enough entries for ``rate * seconds``
matches, or ``--entries``: a few hundred make every standings event carry the
live table's 200 rows), opens N WebSocket clients on ``ws/competitions/<id>/`` of a uvicorn
subprocess (real Redis channel layer under a prefix of this run alone), then
plays and records ``rate`` matches a second for ``seconds`` seconds with
``services.match_play`` and ``services.match_record``. The time of each
commit is taken by a commit hook registered before the service's own (so it
runs right after COMMIT, before the events are built and sent); every client
stamps the arrival of each ``match.finished``. Reported per size: the delay from
commit to arrival over all (client, match) pairs (median, 95th percentile,
maximum), the events lost (expected events a client never received) and what one
client downloaded a second while the results came (``kB/s``: the frames' characters,
the snapshot included, over the recording's wall time).

The baseline of the same run is N = 1 (the floor: one watcher); each size
prints its 95th percentile as a multiple of it. Targets: 95th percentile under
200 ms at 500 clients, nothing lost.

With ``--live`` it measures instead a match watched while it is played: one match of
``--games`` games (manni-basic, built-in random bots) is claimed and played as a worker
plays it, its games finishing ``--rate`` a second, each published as it finishes
(``tournaments.live.publisher``); the N clients watch it on ``ws/matches/<id>/``. Each finished
game is stamped as the worker hands it to the publisher, and every client stamps the
first ``live.games`` event that lists it. The same figures and targets.

The clients run in one separate process (asyncio, ``websockets``), so the
recording process does not share its interpreter with them. The database is
created if missing and migrated; the benchmark's competitions and bots are
deleted at the end, and the server and the client process are always stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import platform
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tournaments.demo.processes import asgi_server_argv

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/cardroom_live"
VARIANT = "manni-basic"
SEATS = 3
#: Handshakes in flight at once while the clients connect.
CONNECT_CONCURRENCY = 50
#: How long the clients wait for the last events after the last result.
DRAIN_SECONDS = 10.0


def raise_fd_limit() -> int:
    """Raise the soft limit of open files to the hard one; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 65536
    if soft == resource.RLIM_INFINITY or soft >= hard:
        return soft
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation; nan if empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


# --- the clients (a process of their own, no Django) ---

#: A ``match.finished`` event and its match id, as the server encodes events (compact
#: JSON, ``type`` then ``competition`` then the payload; ``tournaments.live.events``).
FINISHED = re.compile(r'\{"type":"match\.finished","competition":\d+,"match":\{"id":(\d+)')


def finished_ids(frame: str) -> list[int]:
    """The ids of the matches whose ``match.finished`` the frame holds (one event or an array).

    Read with a pattern rather than a JSON parse: 500 clients share one core here, and
    parsing every standings table would measure the clients instead of the server. A
    frame that names the event but does not match the pattern is parsed after all.
    """
    ids = [int(m) for m in FINISHED.findall(frame)]
    if ids or '"match.finished"' not in frame:
        return ids
    value = json.loads(frame)
    events = value if isinstance(value, list) else [value]
    return [e["match"]["id"] for e in events if e.get("type") == "match.finished"]


#: A game of a ``live.games`` event (``tournaments.watching.live_match``): its number.
GAME_NUMBER = re.compile(r'"number":(\d+)')


def game_numbers(frame: str) -> list[int]:
    """The numbers of the finished games a frame's ``live.games`` events list."""
    if '"live.games"' not in frame:
        return []
    return [int(m) for m in GAME_NUMBER.findall(frame)]


def _clients_main(conn, url: str, origin: str, n: int, live: bool = False) -> None:
    """``n`` clients in this process, in a session of its own: the clients stand for
    browsers on other machines, so where the kernel shares the CPUs between sessions
    first they are weighed apart from the recorder and the server, not with them."""
    os.setsid()
    raise_fd_limit()
    try:
        asyncio.run(_clients(conn, url, origin, n, live))
    finally:
        conn.close()


async def _clients(conn, url: str, origin: str, n: int, live: bool = False) -> None:
    from websockets.asyncio.client import connect

    loop = asyncio.get_running_loop()
    received: list[dict[int, float]] = [{} for _ in range(n)]
    messages = [0] * n
    received_bytes = [0] * n
    errors: list[str] = []
    sockets: list[Any] = []
    settled = [0]  # clients connected with their snapshot, or failed
    opened = asyncio.Event()
    handshake = asyncio.Semaphore(CONNECT_CONCURRENCY)

    async def watch(i: int) -> None:
        try:
            async with handshake:
                ws = await connect(
                    url,
                    origin=origin,
                    compression="deflate",  # offered, as browsers do
                    max_size=None,
                    ping_interval=None,
                    open_timeout=120,
                    close_timeout=2,
                )
                sockets.append(ws)
                first = json.loads(await ws.recv())
                if isinstance(first, list):
                    first = first[0]
                if first.get("type") != ("live.games" if live else "snapshot"):
                    raise RuntimeError(f"first message is {first.get('type')!r}, not a snapshot")
        except Exception as exc:
            errors.append(f"client {i}: {exc!r}")
            return
        finally:
            settled[0] += 1
            if settled[0] >= n:
                opened.set()
        mine = received[i]
        try:
            async for message in ws:
                now = time.time()
                messages[i] += 1
                received_bytes[i] += len(message)
                for match_id in game_numbers(message) if live else finished_ids(message):
                    mine.setdefault(match_id, now)
        except Exception as exc:
            errors.append(f"client {i} closed: {exc!r}")

    started = time.monotonic()
    tasks = [asyncio.create_task(watch(i)) for i in range(n)]
    await opened.wait()
    connect_s = time.monotonic() - started
    conn.send(("ready", connect_s, n - len(errors), list(errors)))

    command, expected = await loop.run_in_executor(None, conn.recv)
    assert command == "expect"
    wanted = set(expected)
    deadline = time.monotonic() + DRAIN_SECONDS
    while time.monotonic() < deadline:
        if all(wanted <= r.keys() for r in received):
            break
        await asyncio.sleep(0.05)
    conn.send(
        (
            "results",
            [{m: t for m, t in r.items() if m in wanted} for r in received],
            messages,
            received_bytes,
            errors,
        )
    )
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.wait_for(
        asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True), timeout=10
    )


# --- the server and the database ---


def ensure_database(url: str) -> None:
    """Create the database of ``url`` if it does not exist (PostgreSQL only)."""
    import dj_database_url
    import psycopg

    db = dj_database_url.parse(url)
    if "postgresql" not in db["ENGINE"]:
        raise SystemExit("bench.live needs a PostgreSQL DATABASE_URL (the ASGI server shares it)")
    params = {
        "host": db["HOST"] or "127.0.0.1",
        "port": db["PORT"] or 5432,
        "user": db["USER"],
        "password": db["PASSWORD"] or None,
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]])
        if exists.fetchone() is None:
            conn.execute(f'CREATE DATABASE "{db["NAME"]}"')


def start_server(env: dict[str, str], port: int, log_path: Path) -> subprocess.Popen:
    """The ASGI server in a session of its own, as a service of its own is deployed: where
    the kernel shares the CPUs between sessions first (``sched_autogroup_enabled``), it
    is weighed apart from this process and its clients, not together with them."""
    log = log_path.open("wb")
    process = subprocess.Popen(
        asgi_server_argv(host="127.0.0.1", port=port),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()
    from django.templatetags.static import static

    script = f"http://127.0.0.1:{port}{static('dashboard/live.js')}"  # the page's script
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(script, timeout=1).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                stop(process)
                raise RuntimeError(
                    f"the ASGI server did not start:\n{log_path.read_text()[-3000:]}"
                ) from None
            time.sleep(0.2)


def stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


# --- the recording side ---


def entries_for(matches: int) -> int:
    """Entries of a 3-seat round robin that schedules at least ``matches`` matches."""
    n = SEATS * 3
    while True:
        games = math.ceil((n - 1) / (SEATS - 1))
        tables = n // SEATS
        rounds = math.ceil(n * games / (tables * SEATS))
        if rounds * tables >= matches:
            return n
        n += 1


def make_competition(tag: str, entries: int, games: int = 1):
    from bots.models import Bot
    from tournaments import services

    competition = services.competition_create(
        created_by=None,
        name=f"bench-live-{tag}",
        kind="tournament",
        variant=VARIANT,
        format="round-robin",
        games_per_match=games,
        duplicate=False,
        is_public=True,
        seed=1,
    )
    for i in range(entries):
        bot = Bot.objects.create(name=f"bench-live-{tag}-{i}", builtin="random")
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)  # played here
    return competition


def record(competition, rate: float, seconds: float) -> tuple[dict[int, float], float]:
    """Record ``rate`` results a second for ``seconds``; {match id: commit time}, wall time."""
    from django.db import transaction

    from tournaments import services
    from tournaments.models import Match

    stamps: dict[int, float] = {}
    total = int(rate * seconds)
    started = time.monotonic()
    for i in range(total):
        match = competition.matches.filter(status=Match.Status.PENDING).order_by("id").first()
        if match is None:
            break
        result = services.match_play(match=match)
        delay = started + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        with transaction.atomic():
            # Registered before the service's own hook: runs first, right after COMMIT.
            transaction.on_commit(lambda pk=match.pk: stamps.__setitem__(pk, time.time()))
            services.match_record(match=match, played=result, send=None)
    return stamps, time.monotonic() - started


def record_live(match, rate: float) -> tuple[dict[int, float], float]:
    """Play the claimed ``match`` as a worker does, publishing its games as they finish
    (one every ``1 / rate`` s), then record it; {game number: time handed over}, wall time."""
    from tournaments import services
    from tournaments.live import publisher as live
    from tournaments.worker import execution

    stamps: dict[int, float] = {}
    publisher = live.live_publisher(match=match)
    started = time.monotonic()

    def finished(game, playoff: int) -> None:
        delay = started + (len(stamps) + 1) / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        stamps[game.index + 1] = time.time()
        publisher.game_finished(game, playoff)

    played = services.match_play(match=match, on_game=finished, on_action=publisher.action_applied)
    wall = time.monotonic() - started
    services.match_record(
        match=match,
        played=played,
        claimed_by=match.claimed_by,
        send=None,
        synchronous_commit=not execution.async_commit_allowed(),  # as a worker records
    )
    publisher.close()
    return stamps, wall


def measure(n: int, args, port: int) -> dict[str, Any]:
    from django.db import connections

    from tournaments.worker import execution

    if args.live:
        competition = make_competition(f"{uuid.uuid4().hex[:8]}-{n}", SEATS, args.games)
        first = competition.matches.order_by("id").first()
        match = execution.match_claim(match_id=first.pk, claimed_by=f"bench-live/{n}")
        url = f"ws://127.0.0.1:{port}/ws/matches/{match.pk}/"
    else:
        needed = entries_for(int(args.rate * args.seconds) + 5)
        competition = make_competition(f"{uuid.uuid4().hex[:8]}-{n}", max(needed, args.entries))
        url = f"ws://127.0.0.1:{port}/ws/competitions/{competition.pk}/"
    entries = competition.entries.count()
    connections.close_all()
    context = multiprocessing.get_context("spawn")
    shares = [n // args.client_processes + (i < n % args.client_processes)
              for i in range(min(n, args.client_processes))]  # fmt: skip
    pipes, processes = [], []
    for share in shares:
        parent, child = context.Pipe()
        process = context.Process(
            target=_clients_main,
            args=(child, url, f"http://127.0.0.1:{port}", share, args.live),
            daemon=True,
        )
        process.start()
        child.close()
        pipes.append(parent)
        processes.append(process)
    try:
        connect_s, connected, connect_errors = 0.0, 0, []
        for parent in pipes:
            if not parent.poll(180):
                raise RuntimeError(f"{n} clients did not connect within 180 s")
            _, seconds, count, failed = parent.recv()
            connect_s, connected = max(connect_s, seconds), connected + count
            connect_errors += failed
        time.sleep(0.5)  # let the last snapshots go out before the first result
        if args.live:
            stamps, wall = record_live(match, args.rate)
        else:
            stamps, wall = record(competition, args.rate, args.seconds)
        for parent in pipes:
            parent.send(("expect", list(stamps)))
        received, messages, sizes, errors = [], [], [], []
        for parent in pipes:
            if not parent.poll(DRAIN_SECONDS + 60):
                raise RuntimeError("the clients did not report")
            _, got, counts, size, failed = parent.recv()
            received, messages, errors = received + got, messages + counts, errors + failed
            sizes += size
        for process in processes:
            process.join(timeout=20)
    finally:
        for parent in pipes:
            parent.close()
        for process in processes:
            if process.is_alive():
                process.kill()
                process.join(timeout=5)
    delays = []
    lost = 0
    for got in received:
        for match_id, committed in stamps.items():
            arrived = got.get(match_id)
            if arrived is None:
                lost += 1
            else:
                delays.append((arrived - committed) * 1000)
    expected = len(stamps) * n
    return {
        "clients": n,
        "connected": connected,
        "connect_s": round(connect_s, 2),
        "entries": entries,
        "results": len(stamps),
        "results_per_s": round(len(stamps) / wall, 2) if wall else None,
        "expected_events": expected,
        "received_events": len(delays),
        "lost": lost,
        "messages": sum(messages),
        # What one watcher downloads while results come (characters of the frames).
        "kb_per_client_per_s": round(statistics.fmean(sizes) / 1000 / wall, 1)
        if sizes and wall
        else None,
        "p50_ms": round(percentile(delays, 0.5), 2),
        "p95_ms": round(percentile(delays, 0.95), 2),
        "max_ms": round(max(delays), 2) if delays else math.nan,
        "mean_ms": round(statistics.fmean(delays), 2) if delays else math.nan,
        "errors": (connect_errors + [e for e in errors if e not in connect_errors])[:10],
        "_competition": competition.pk,
    }


def cleanup(competition_ids: list[int]) -> None:
    from bots.models import Bot
    from tournaments.models import Competition

    for pk in competition_ids:
        competition = Competition.objects.filter(pk=pk).first()
        if competition is None:
            continue
        bots = list(competition.entries.values_list("bot_id", flat=True))
        try:
            competition.delete()
            Bot.objects.filter(pk__in=bots, name__startswith="bench-live-").delete()
        except Exception as exc:  # leave the rows rather than fail the report
            print(f"could not delete competition {pk}: {exc}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,100,500", help="numbers of clients (comma list)")
    parser.add_argument("--rate", type=float, default=10.0, help="results recorded per second")
    parser.add_argument("--seconds", type=float, default=15.0, help="recording time per size")
    parser.add_argument(
        "--entries",
        type=int,
        default=0,
        help="entries of each competition (default: just enough for the matches)",
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="watch one match while it is played: its games published as they finish",
    )
    parser.add_argument("--games", type=int, default=60, help="--live: games of the match")
    parser.add_argument(
        "--client-processes", type=int, default=2,
        help="processes the clients are shared between (each in a session of its own)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if args.client_processes < 1:
        parser.error(f"--client-processes must be at least 1, got {args.client_processes}")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if 1 not in sizes:
        sizes.insert(0, 1)  # the baseline

    fd_limit = raise_fd_limit()
    database_url = os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    prefix = f"cardroom-bench-live-{uuid.uuid4().hex[:10]}"
    ensure_database(database_url)
    if args.live:  # games finish ten a second from the start: none waits for a quiet start
        os.environ["CARDROOM_LIVE_AFTER_S"] = "0"
    os.environ.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        CARDROOM_CHANNEL_LAYER="redis",
        CARDROOM_CHANNEL_PREFIX=prefix,
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", interactive=False, verbosity=0)
    connections.close_all()

    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env["CARDROOM_SERVE_STATIC"] = "1"  # the readiness probe fetches a static file
    # Every client of the bench connects from 127.0.0.1: no per-client socket limit here.
    env["CARDROOM_WS_PER_CLIENT"] = "0"
    log_dir = Path(tempfile.mkdtemp(prefix="bench-live-"))
    server = None
    rows: list[dict[str, Any]] = []
    try:
        server = start_server(env, port, log_dir / "server.log")
        for n in sizes:
            if not args.json:
                print(f"measuring {n} client(s)...", file=sys.stderr, flush=True)
            rows.append(measure(n, args, port))
            if server.poll() is not None:
                log = (log_dir / "server.log").read_text()
                raise RuntimeError(f"the ASGI server stopped:\n{log}")
    finally:
        stop(server)
        cleanup([r["_competition"] for r in rows])
    base = next(r for r in rows if r["clients"] == 1)
    for row in rows:
        row.pop("_competition")
        row["p95_vs_one_client"] = (
            round(row["p95_ms"] / base["p95_ms"], 2) if base["p95_ms"] else None
        )
    target = max(rows, key=lambda r: r["clients"])
    report = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "variant": VARIANT,
        "mode": f"live match of {args.games} games" if args.live else "results",
        "rate": args.rate,
        "seconds": args.seconds,
        "fd_limit": fd_limit,
        "baseline": "clients=1",
        "sizes": rows,
        "targets": {
            "clients": target["clients"],
            "p95_under_200_ms": target["p95_ms"] < 200,
            "none_lost": all(r["lost"] == 0 for r in rows),
        },
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    if args.live:
        print(
            f"live match: {VARIANT}, one match of {args.games} games, {args.rate:g} games "
            f"finished a second, each published as it finishes (events: games listed), "
            f"python {report['python']}, {report['cpus']} cpus"
        )
    else:
        print(
            f"live events: {VARIANT}, {args.rate:g} results/s for {args.seconds:g} s per size, "
            f"python {report['python']}, {report['cpus']} cpus"
        )
    header = (
        f"{'clients':>7} {'connect s':>9} {'results':>7} {'res/s':>6} {'events':>7} "
        f"{'lost':>5} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'p95 vs 1':>8} {'kB/s':>6}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['clients']:>7} {r['connect_s']:>9.2f} {r['results']:>7} "
            f"{r['results_per_s']:>6.2f} {r['expected_events']:>7} {r['lost']:>5} "
            f"{r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f} {r['max_ms']:>7.1f} "
            f"{r['p95_vs_one_client']:>8.2f} {r['kb_per_client_per_s'] or 0:>6.1f}"
        )
        for error in r["errors"]:
            print(f"        {error}")
    t = report["targets"]
    print(
        f"targets at {t['clients']} clients: p95 < 200 ms "
        f"{'met' if t['p95_under_200_ms'] else 'MISSED'}; nothing lost "
        f"{'met' if t['none_lost'] else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
