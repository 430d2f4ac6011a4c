"""Latency for people: how long an upload, a challenge, a quick game and a version test
wait for their answer while the fleet is busy.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.latency [--json]

The workers as deployed (``bench.fairshare``'s layout: ``--workers`` on the
competitions' lane, one slot each; one on the users' lane with two slots at niceness 19;
one on the periodic tasks, with the beat), every standing open ladder running (``manage.py
ladders ensure``, an author's bot entered in each so that none rests), an organiser's
round robin of ``--entries`` ``builtin:ismcts`` being played again and again, and
``bench.fairshare``'s flood from another user (staller uploads that sleep to the
ceiling on every decision, honest uploads, version tests, challenges, a ladder of its
own). After ``--warmup`` seconds, fresh authors (new accounts, default allowances) ask,
one every ``--every`` seconds, in turn:

- an **upload** (an honest program, queued for validation as the API queues it): from
  the request to its validation's result;
- a **challenge** of 12 games against ``builtin:greedy``: from the request to its first
  match finished (a match of several games: an upper bound of its first game);
- a **quick game** (``"games": 1``): from the request to its result;
- a **version test**: from the request to its first deal played.

Printed: p50, p95 and max of each, against the target (p95 at most 30 s for uploads,
quick games and challenges' first results); with ``--demo``, also ``make demo``'s time at
its default pace from its start to its three tournaments' last match (a ``manage.py
demo`` in a scratch directory on SQLite, as a newcomer runs it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.bulk import Worker, drop_database, scratch_database
from bench.fairshare import HONEST, flood, flooder_ready, round_robin, start_workers

ROOT = Path(__file__).resolve().parent.parent
#: The kinds of request timed, and the target of their p95 (seconds; None: none set).
KINDS = {"upload": 30.0, "challenge": 30.0, "quick game": 30.0, "version test": None}
#: The demo's tournaments (``manage.py demo``), whose last match ends its run.
DEMO_TOURNAMENTS = ("Demo Manni", "Demo Maniglia", "Demo Money")


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": statistics.median(values),
        "p95": percentile(values, 0.95),
        "max": max(values),
    }


def author(label: str):
    """A new account with default allowances and a bot with a ready version (it plays as
    the built-in random: no sandbox needed to set it up)."""
    import hashlib

    from django.contrib.auth import get_user_model

    from bots.models import Bot, BotVersion

    user = get_user_model().objects.create_user(label, password=f"{label}-pw-123")
    bot = Bot.objects.create(owner=user, name=f"{label}-bot", builtin="random")
    for number, plays in ((1, "random"), (2, "greedy")):
        BotVersion.objects.create(
            bot=bot,
            number=number,
            runtime=BotVersion.Runtime.BUILTIN,
            entry_point=f"builtin:{plays}",
            sha256=hashlib.sha256(f"{number}:{plays}".encode()).hexdigest(),
            status=BotVersion.Status.READY,
        )
    return user, bot


def every_ladder_running() -> list[int]:
    """The standing ladders (``ladders ensure``), an author's bot entered in each."""
    from tournaments import services
    from tournaments.services import ladders

    made = ladders.standing_ladders_ensure()
    player, _ = author("ladder-player")
    from bots.models import Bot

    ids = []
    for competition, _ in made:
        bot = Bot.objects.create(owner=player, name=f"in-{competition.pk}", builtin="greedy")
        bot.versions.create(
            number=1,
            runtime="builtin",
            entry_point="builtin:greedy",
            sha256=f"{competition.pk:064d}",
            status="ready",
        )
        services.entry_create(competition=competition, bot=bot, by=player)
        ids.append(competition.pk)
    return ids


class Request:
    """One person's request, sent now, and how to tell it was answered."""

    def __init__(self, kind: str, args, n: int) -> None:
        from django.db import transaction

        from bots import services as bot_services
        from tournaments.services.challenge_requests import QUICK_GAME
        from tournaments.services.challenges import challenge_create
        from tournaments.services.version_tests import version_test_create

        self.kind = kind
        user, bot = author(f"author-{kind.replace(' ', '-')}-{n}")
        self.sent = time.monotonic()
        with transaction.atomic():  # as the API's request is
            if kind == "upload":
                own = bot_services.bot_create(owner=user, name=f"upload-{n}")
                version = bot_services.bot_version_upload(
                    bot=own,
                    filename="bot.py",
                    content=HONEST.format(seed=1000 + n).encode(),
                    variants=[args.variant],
                )
                self.id = bot_services.bot_version_queue(version=version).pk
            elif kind in ("challenge", "quick game"):
                import games

                seats = games.load(args.variant).num_players
                asked = QUICK_GAME if kind == "quick game" else 12 - 12 % seats
                self.id = challenge_create(
                    bot=bot,
                    by=user,
                    opponents=["builtin:greedy"] * (seats - 1),
                    variant=args.variant,
                    games=asked,
                ).competition_id
            else:
                self.id = version_test_create(
                    bot=bot, new=2, old=1, variant=args.variant, max_games=200, by=user
                ).pk
        self.answered: float | None = None

    def done(self) -> bool:
        from bots.models import BotVersion
        from tournaments.models import Match, VersionTest

        if self.answered is not None:
            return True
        if self.kind == "upload":
            finished = (BotVersion.Status.READY, BotVersion.Status.REJECTED)
            ok = BotVersion.objects.filter(pk=self.id, status__in=finished).exists()
        elif self.kind == "version test":
            ok = VersionTest.objects.filter(pk=self.id, trials__gte=1).exists()
        else:
            ok = Match.objects.filter(competition_id=self.id, status=Match.Status.DONE).exists()
        if ok:
            self.answered = time.monotonic() - self.sent
        return ok


def measure(args) -> dict[str, Any]:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from tournaments import services
    from tournaments.models import Competition

    call_command("migrate", verbosity=0)
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"cardroom-latency-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    organiser = get_user_model().objects.create_user("organiser", password="club-pw-123")
    flooder, tested = flooder_ready(args)
    workers: list[Worker] = []
    requests: list[Request] = []
    try:
        workers = start_workers(args, tmp, None)
        ladders = every_ladder_running()
        club = round_robin(args, organiser, "club")
        services.competition_start(competition=club, by=organiser)
        sent = flood(args, flooder, tested)
        time.sleep(args.warmup)
        kinds = list(KINDS)
        for n in range(args.requests * len(kinds)):
            if Competition.objects.filter(pk=club.pk, status="finished").exists():
                club = round_robin(args, organiser, f"club-{n}")
                services.competition_start(competition=club, by=organiser)
            requests.append(Request(kinds[n % len(kinds)], args, n))
            deadline = time.monotonic() + args.every
            while time.monotonic() < deadline:
                for request in requests:
                    request.done()
                time.sleep(0.2)
        deadline = time.monotonic() + args.timeout
        while not all(r.done() for r in requests) and time.monotonic() < deadline:
            time.sleep(0.2)
        ladder_matches = _done_matches(ladders)
        flood_matches = _done_matches([sent["ladder"], *sent["challenges"]])
    finally:
        for worker in workers:
            worker.stop()
    by_kind = {
        kind: summary([r.answered for r in requests if r.kind == kind and r.answered is not None])
        for kind in KINDS
    }
    for kind in KINDS:
        by_kind[kind]["unanswered"] = sum(
            1 for r in requests if r.kind == kind and r.answered is None
        )
    return {
        "variant": args.variant,
        "workers": args.workers,
        "user_workers": args.user_workers,
        "user_concurrency": args.user_concurrency,
        "cpus": len(os.sched_getaffinity(0)),
        "ladders": len(ladders),
        "ladder_matches": ladder_matches,
        "flood_matches": flood_matches,
        "requests": by_kind,
        "targets": KINDS,
    }


def _done_matches(competitions: list[int]) -> int:
    from tournaments.models import Match

    return Match.objects.filter(competition_id__in=competitions, status="done").count()


def demo_time(timeout_s: float) -> dict[str, Any]:
    """``manage.py demo`` at its default pace, fresh (a scratch directory, SQLite, its own
    Redis): seconds from its start to its three tournaments' last match."""
    with tempfile.TemporaryDirectory(prefix="cardroom-demo-") as scratch:
        var = Path(scratch) / "var"
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("CARDROOM_", "CELERY_")) and key not in ("REDIS_URL",)
        }
        env.update(
            CARDROOM_VAR_DIR=str(var),
            DATABASE_URL=f"sqlite:///{Path(scratch) / 'demo.sqlite3'}",
            DJANGO_SETTINGS_MODULE="config.settings",
            PYTHONUNBUFFERED="1",
        )
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "migrate", "--noinput"], cwd=ROOT, env=env, check=True)
        log = Path(scratch) / "demo.log"
        port = _free_port()
        started = time.monotonic()
        with log.open("w") as out:
            demo = subprocess.Popen(
                [*manage, "demo", "--port", str(port)],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            finished = _wait_tournaments(Path(scratch) / "demo.sqlite3", log, started, timeout_s)
        finally:
            demo.send_signal(signal.SIGTERM)
            demo.wait(timeout=120)
        return {"seconds": finished, "pace_s": _pace(log.read_text())}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pace(text: str) -> float | None:
    found = re.search(r"a match every ([\d.]+) s", text)
    return float(found.group(1)) if found else None


def _wait_tournaments(db: Path, log: Path, started: float, timeout_s: float) -> float | None:
    """Seconds from ``started`` until the demo's tournaments all finished; None on timeout."""
    names = " OR ".join("name LIKE ?" for _ in DEMO_TOURNAMENTS)
    query = f"SELECT status FROM tournaments_competition WHERE {names}"
    while time.monotonic() - started < timeout_s:
        time.sleep(1.0)
        try:
            with sqlite3.connect(db, timeout=5) as conn:
                rows = conn.execute(query, [f"{n} %" for n in DEMO_TOURNAMENTS]).fetchall()
        except sqlite3.Error:
            continue
        if len(rows) >= len(DEMO_TOURNAMENTS) and all(s == "finished" for (s,) in rows):
            return time.monotonic() - started
    return None


def report(r: dict[str, Any]) -> None:
    print(
        f"{r['variant']}: {r['workers']} competitions' workers and {r['user_workers']} users'"
        f" ({r['user_concurrency']} slots) on {r['cpus']} CPUs; {r['ladders']} standing"
        " ladders running, a club round robin of builtin:ismcts, bench.fairshare's flood"
    )
    print(
        f"  while measured: {r['ladder_matches']} standing-ladder matches and"
        f" {r['flood_matches']} of the flood's ladder and challenges played"
    )
    for kind, row in r["requests"].items():
        target = r["targets"][kind]
        if not row["n"]:
            print(f"  {kind:<13} no answer ({row['unanswered']} asked)")
            continue
        line = (
            f"  {kind:<13} p50 {row['p50']:6.1f} s  p95 {row['p95']:6.1f} s"
            f"  max {row['max']:6.1f} s  ({row['n']} answered"
            + (f", {row['unanswered']} not" if row["unanswered"] else "")
            + ")"
        )
        if target is not None:
            line += f"  target p95 <= {target:.0f} s: {'met' if row['p95'] <= target else 'MISSED'}"
        print(line)
    demo = r.get("demo")
    if demo is not None:
        if demo["seconds"] is None:
            print("  make demo: its tournaments did not finish in time")
        else:
            print(
                f"  make demo at its default pace ({demo['pace_s']:g} s a match): its three"
                f" tournaments' last match {demo['seconds']:.0f} s after its start"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="money-jordan")
    parser.add_argument("--bot", default="ismcts", help="the club round robin's built-ins")
    parser.add_argument("--entries", type=int, default=6, help="the club round robin's entries")
    parser.add_argument("--workers", type=int, default=2, help="competitions' workers")
    parser.add_argument("--user-workers", type=int, default=1)
    parser.add_argument("--user-concurrency", type=int, default=2)
    parser.add_argument("--user-nice", type=int, default=19)
    parser.add_argument("--stallers", type=int, default=2, help="the flood's staller uploads")
    parser.add_argument("--uploads", type=int, default=20, help="the flood's other uploads")
    parser.add_argument("--version-tests", type=int, default=3)
    parser.add_argument("--version-test-games", type=int, default=20_000)
    parser.add_argument("--challenges", type=int, default=10)
    parser.add_argument("--ladder", type=int, default=40, help="the flood ladder's entries")
    parser.add_argument("--ladder-bot", default="greedy")
    parser.add_argument("--warmup", type=float, default=20.0)
    parser.add_argument("--requests", type=int, default=6, help="requests of each kind")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between requests")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worker-args", default="")
    parser.add_argument("--demo", action="store_true", help="also time make demo's tournaments")
    parser.add_argument("--demo-timeout", type=float, default=1800.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres") or not os.environ.get("REDIS_URL"):
        sys.exit("bench.latency needs DATABASE_URL (PostgreSQL) and REDIS_URL")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Its accounts are made moments before they play: public play without the wait for
    # an account's age and confirmation (docs/fair-play.md), as the demo runs.
    os.environ.setdefault("CARDROOM_PUBLIC_PLAY_MIN_AGE_H", "0")
    os.environ.setdefault("CARDROOM_SIGNUP_CONFIRMATION", "none")
    prefix = f"bench-latency-{uuid.uuid4().hex[:8]}-"
    for variable in [v for v in os.environ if v.startswith("CARDROOM_") and v.endswith("_QUEUE")]:
        del os.environ[variable]
    os.environ["CARDROOM_QUEUE_PREFIX"] = prefix
    url, name = scratch_database(base)
    os.environ["DATABASE_URL"] = url
    try:
        result = measure(args)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(base, name)
        import redis

        client = redis.Redis.from_url(os.environ["REDIS_URL"])
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
    if args.demo:
        os.environ["DATABASE_URL"] = base
        result["demo"] = demo_time(args.demo_timeout)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        report(result)


if __name__ == "__main__":
    main()
