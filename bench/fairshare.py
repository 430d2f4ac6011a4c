"""Fair share: does an organiser's round robin keep its pace while another user floods the fleet?

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.fairshare [--json]

Two worker processes (``--workers``, ``--concurrency 1`` each: the machine's two cores,
each grown by up to ``--grow`` processes while its bots sleep, ``config.autoscale``)
take the competitions' lane (periodic, matches, ladders, most urgent first:
``CARDROOM_QUEUES``, docs/queues.md "Lanes"); one more (``--user-workers``, with
``--user-concurrency`` 2 slots and up to ``--user-grow`` more while its bots sleep, at
niceness ``--user-nice`` 19) takes the users' lane
(validations, challenges, version tests): a bot that sleeps there holds a slot but no
CPU, and it never holds a slot a competition's round waits on. ``--user-workers 0``
measures the older layout instead, every worker on every queue. A last, small worker
runs the periodic tasks on their own queue (``--pool solo``, with the beat), as deployed.
The queues have names of their own on the Redis of
``REDIS_URL`` (``CARDROOM_QUEUE_PREFIX``); a scratch PostgreSQL database is created and
dropped at the end (``bench.bulk``'s machinery).

1. **Alone**: an organiser's round robin of ``--entries`` built-in bots (``--bot``,
   one-game matches of ``--variant``) is played on the idle workers.
2. **Flooded**: another user, whose allowances staff raised, floods the fleet through
   the services the API calls (so every allowance is checked): ``--stallers`` uploads
   of ``tests/bots/hostile/staller.py`` (it sleeps to the wall-clock ceiling on every
   decision), ``--uploads`` uploads of an honest program, each queued for validation
   as ``POST /api/bots/{id}/versions/`` queues it; ``--version-tests`` version tests of
   ``--version-test-games`` games (``POST /api/bots/{id}/sprt/``) between two versions
   it validated beforehand; and a ladder of ``--ladder`` entries that it organises. The
   workers take that work for ``--warmup`` seconds, then the same round robin is
   launched and played again: the same games, deal for deal and move for move (the
   first competition is deleted and the second takes its id, which a match's seed
   hashes; checked from the games' seeds and scores and printed). ``--challenges``
   challenges of 12 games against ``builtin:greedy`` (``POST /api/challenges/``) join
   the flood.
3. **Hogs** (``--hogs`` accounts of one person, ``bench.hogs``): a bot that sleeps just
   under its move time on every decision, entered from each account in an open ladder
   another organiser runs (``--ladder-house`` house bots), a hog upload queued for
   validation from each, and ``--hog-version-tests`` version tests between two hog
   versions; they join the flood. Their matches last minutes and use no CPU: at most
   ``CARDROOM_COMPETITION_OWNER_SLOTS`` of them hold a slot while others' work waits.
4. **Another author** uploads an honest program ``--author-uploads`` times during each
   round robin, as a person does (the next one ``--author-every`` seconds after the last
   one's result): each upload's wait for its validation, alone and flooded (target p95
   <= 30 s).

Printed: the round robin's matches per minute alone and flooded (each measured from its
launch to its last result), their ratio (target >= 0.8), and how much of the flood's
work progressed while the round robin played (validations finished, version-test games
played, ladder matches played, challenge matches played: it must not stop), the
author's validation waits and what the hogs got done.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from bench.bulk import Worker, drop_database, scratch_database
from bench.hogs import (
    InPlay,
    author_ready,
    author_uploads,
    hog_flood,
    hog_progress,
    hogs_ready,
    validation_runs,
    validation_waits,
    waits_summary,
)
from bench.lanes import COMPETITIONS_WEIGHT, USERS_WEIGHT, LaneGroups, lane_groups

ROOT = Path(__file__).resolve().parent.parent
#: The hostile bot of the flood: it sleeps just under each decision's ceiling.
STALLER = ROOT / "tests" / "bots" / "hostile" / "staller.py"
#: The honest program of the flood's other uploads and of its version tests.
HONEST = """import json, random, sys
rng = random.Random({seed})
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"ready": True}}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({{"action": rng.choice(message["legal"])}}), flush=True)
    elif message["type"] == "bye":
        break
"""
#: Allowances staff raise for the flooding user (the defaults would refuse the flood).
RAISED = (
    "bots",
    "versions_per_day",
    "upload_bytes_per_day",
    "version_test_games_per_day",
    "open_version_tests",
    "ladder_entries",
    "challenge_games_per_day",
    "open_challenges",
)
#: The games of each challenge of the flood (against ``builtin:greedy``, duplicate).
CHALLENGE_GAMES = 12


#: The kinds of work of the users' lane (docs/queues.md, "Lanes"): work any signed-up
#: user can ask for, which no round of a competition waits on.
USER_KINDS = ("validation", "challenge", "version-test", "default")


def start_workers(args, tmp: Path, groups: LaneGroups | None) -> list[Worker]:
    """``args.workers`` workers, most urgent first: on the competitions' lane (periodic,
    matches, ladders) with ``args.user_workers`` more on the users' lane (validations,
    challenges, version tests) at ``args.user_nice``, or with none, each on every queue;
    and one on the periodic queue with the beat. With ``groups``, each worker of a lane
    and its bots run in a cgroup of the deployed units' weight (``bench.lanes``)."""
    from django.conf import settings

    def lane(name: str, weight: int) -> dict:
        if groups is None:
            return {"cgroup": None, "env": {}}
        made = groups.lane(name, weight)
        return {"cgroup": made.procs, "env": made.env}

    users = [queue for kind, queue in settings.CARDROOM_QUEUES if kind in USER_KINDS]
    queues = [queue for _, queue in settings.CARDROOM_QUEUES]
    if args.user_workers:
        queues = [queue for queue in queues if queue not in users]
    grows = f" --autoscale={1 + args.grow},1" if args.grow else ""  # config.autoscale
    workers = []
    for i in range(args.workers):
        group = lane(f"competitions-{i}", COMPETITIONS_WEIGHT)
        log = tmp / f"worker-{i}.log"
        workers.append(Worker(log, "prefork", args.worker_args + grows, queues=queues, **group))
    extra = f"{args.worker_args} -c {args.user_concurrency}"
    if args.user_grow:
        extra += f" --autoscale={args.user_concurrency + args.user_grow},{args.user_concurrency}"
    for i in range(args.user_workers):
        group = lane(f"users-{i}", USERS_WEIGHT)
        group["env"]["CARDROOM_WORKER_NICE"] = str(args.user_nice)
        workers.append(Worker(tmp / f"users-{i}.log", "prefork", extra, queues=users, **group))
    beat = f"-B -s {tmp / 'beat-schedule'}"
    workers.append(
        Worker(tmp / "periodic.log", "solo", beat, queues=[settings.CARDROOM_PERIODIC_QUEUE])
    )
    for worker in workers:
        worker.wait_ready()
    return workers


def builtin_bots(label: str, kind: str, count: int) -> list:
    """``count`` rows of the built-in ``kind`` (as ``bench.bulk`` makes them)."""
    from bots.models import Bot

    return [Bot.objects.create(name=f"{label}-{i}", builtin=kind) for i in range(count)]


def round_robin(args, organiser, label: str, *, again=None):
    """The organiser's round robin of ``args.entries`` new built-ins, ready to start.

    ``again``, a round robin played before, is deleted and the new one takes its id, so
    that it plays the same games: a match's seed hashes its competition's id with the
    chosen seed, the round and the table (docs/deals.md), and the built-ins are seeded
    from it and their seat (``ismcts`` with its iteration budget is deterministic). Two
    competitions of different ids would deal different games, whose lengths alone move
    a round robin's pace of one-game Money matches by a third."""
    from django.db import transaction

    from tournaments import services
    from tournaments.models import Competition

    with transaction.atomic():
        if again is not None:
            reused = again.pk
            again.delete()  # (and its pk with it)
        comp = services.competition_create(
            created_by=organiser,
            name=f"club round robin {label}",
            kind="tournament",
            variant=args.variant,
            format="round-robin",
            games_per_match=1,
            duplicate=False,
            seed=args.seed,
        )
        if again is not None:  # the foreign keys are checked at commit (deferred)
            Competition.organisers.through.objects.filter(competition=comp).update(
                competition_id=reused
            )
            Competition.objects.filter(pk=comp.pk).update(id=reused)
            comp = Competition.objects.get(pk=reused)
    for bot in builtin_bots(f"club-{label}", args.bot, args.entries):
        with transaction.atomic():  # as the API's request is
            services.entry_create(competition=comp, bot=bot, by=organiser)
    return comp


def play_round_robin(comp, organiser, timeout_s: float, tmp: Path) -> dict[str, Any]:
    """Launch ``comp`` and wait for its last result: matches, seconds and matches a minute
    from the launch to it, seconds from the launch to the first result, and the games
    played (each game's round, table, match seed and scores, in that order)."""
    from django.db.models import Max, Min

    from tournaments import services
    from tournaments.models import Competition, GameRecord, Match

    started = time.time()
    services.competition_start(competition=comp, by=organiser)
    deadline = time.monotonic() + timeout_s
    while Competition.objects.filter(pk=comp.pk, status=Competition.Status.RUNNING).exists():
        if comp.matches.filter(status=Match.Status.FAILED).exists():
            raise RuntimeError(f"a match of {comp.name} failed: see {tmp}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{comp.name} did not finish in {timeout_s:.0f} s: see {tmp}")
        time.sleep(0.5)
    times = comp.matches.aggregate(first=Min("finished_at"), last=Max("finished_at"))
    seconds = times["last"].timestamp() - started
    matches = comp.matches.filter(status=Match.Status.DONE).count()
    played = GameRecord.objects.filter(match__competition=comp).order_by(
        "match__round__number", "match__table", "index"
    )
    return {
        "matches": matches,
        "seconds": seconds,
        "matches_per_min": matches * 60 / seconds,
        "first_result_s": times["first"].timestamp() - started,
        "games": [
            [number, table, seed, scores]
            for number, table, seed, scores in played.values_list(
                "match__round__number", "match__table", "match__seed", "scores"
            )
        ],
    }


def upload(bot, name: str, content: bytes, variant: str, *, queue: bool):
    """A version of ``bot`` stored as the API stores an upload; queued for its validation
    (after commit, on the validations' queue) if ``queue``."""
    from django.db import transaction

    from bots import services

    with transaction.atomic():
        version = services.bot_version_upload(
            bot=bot, filename=name, content=content, variants=[variant]
        )
        if queue:
            version = services.bot_version_queue(version=version)
    return version


def flooder_ready(args):
    """The flooding user, its allowances raised by staff, and its bot with two versions
    validated (here, before the workers start) for the version tests."""
    from django.contrib.auth import get_user_model

    from bots import services
    from bots.models import BotVersion, UserAllowance

    user = get_user_model().objects.create_user("flooder", password="flood-pw-123")
    for name in RAISED:
        UserAllowance.objects.create(
            user=user, allowance=name, value=10**9, note="bench.fairshare's flood"
        )
    tested = services.bot_create(owner=user, name="tested")
    for number in (1, 2):
        code = HONEST.format(seed=number).encode()
        version = upload(tested, "bot.py", code, args.variant, queue=False)
        services.bot_version_validate(version=version)
        version.refresh_from_db()
        if version.status != BotVersion.Status.READY:
            raise RuntimeError(f"the tested bot's version {number}: {version.validation_report}")
    return user, tested


def flood(args, user, tested) -> dict[str, Any]:
    """Send the flood of ``user``; returns what was sent and the ids to follow."""
    from django.db import transaction

    import games
    from bots import services as bot_services
    from tournaments import services
    from tournaments.services.challenges import challenge_create
    from tournaments.services.version_tests import version_test_create

    staller = bot_services.bot_create(owner=user, name="staller")
    honest = bot_services.bot_create(owner=user, name="honest")
    versions = [
        upload(staller, "staller.py", STALLER.read_bytes() + f"# {i}\n".encode(), args.variant,
               queue=True).pk
        for i in range(args.stallers)
    ]  # fmt: skip
    versions += [
        upload(honest, "bot.py", HONEST.format(seed=100 + i).encode(), args.variant, queue=True).pk
        for i in range(args.uploads)
    ]
    tests = []
    for _ in range(args.version_tests):
        with transaction.atomic():  # as the API's request is
            tests.append(
                version_test_create(
                    bot=tested, new=2, old=1, variant=args.variant,
                    max_games=args.version_test_games, by=user,
                ).pk
            )  # fmt: skip
    ladder = services.competition_create(
        created_by=user,
        name="flood ladder",
        kind="ladder",
        format="ladder",
        variant=args.variant,
        games_per_match=1,
        duplicate=False,
        seed=args.seed,
    )
    for bot in builtin_bots("flood-ladder", args.ladder_bot, args.ladder):
        with transaction.atomic():
            services.entry_create(competition=ladder, bot=bot, by=user)
    services.competition_start(competition=ladder, by=user)
    seats = games.load(args.variant).num_players
    challenges = [
        challenge_create(
            bot=tested, by=user, opponents=["builtin:greedy"] * (seats - 1),
            variant=args.variant, games=CHALLENGE_GAMES - CHALLENGE_GAMES % seats,
        ).competition_id
        for _ in range(args.challenges)
    ]  # fmt: skip
    return {
        "versions": versions,
        "version_tests": tests,
        "ladder": ladder.pk,
        "challenges": challenges,
    }


def progress(sent: dict[str, Any]) -> dict[str, int]:
    """How much of the flood is done: validations finished, version-test games played,
    ladder matches played."""
    from bots.models import BotVersion
    from tournaments.models import Match, VersionTest
    from tournaments.selectors.version_tests import players_of

    finished = (BotVersion.Status.READY, BotVersion.Status.REJECTED)
    return {
        "validations": BotVersion.objects.filter(
            pk__in=sent["versions"], status__in=finished
        ).count(),
        "version_test_games": sum(
            test.trials * players_of(test)
            for test in VersionTest.objects.filter(pk__in=sent["version_tests"])
        ),
        "ladder_matches": Match.objects.filter(
            competition_id=sent["ladder"], status=Match.Status.DONE
        ).count(),
        "challenge_matches": Match.objects.filter(
            competition_id__in=sent["challenges"], status=Match.Status.DONE
        ).count(),
    }


def stallers(sent: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """The staller uploads' validations so far: status and the seconds they held a slot."""
    from bots.models import BotVersion

    rows = BotVersion.objects.filter(pk__in=sent["versions"][:count]).order_by("pk")
    return [
        {"status": v.status, "duration_s": (v.validation_report or {}).get("duration_s")}
        for v in rows
    ]


def measure_live(args, tmp: Path) -> dict[str, Any] | None:
    """``bench.live`` at ``--live-clients`` clients (and its one-client baseline), in a
    process of its own, while the workers go on with the flood (after the flooded round
    robin, so that neither measurement slows the other): its figures at the most clients,
    p50, p95, max and events lost. Its own competition's tasks, if any, go to queues no
    worker of the bench listens to, and its rows to a database of its own."""
    if not args.live_clients:
        return None
    command = [sys.executable, "-m", "bench.live", "--json"]
    command += ["--sizes", f"1,{args.live_clients}", "--seconds", str(args.live_seconds)]
    # A database of its own on the same server: in the flood's, the periodic worker would
    # requeue the live competition's waiting matches to the flood's workers, which would
    # play them before its own recorder does.
    url = os.environ["DATABASE_URL"] + "_live"
    env = {
        **os.environ,
        "CARDROOM_QUEUE_PREFIX": f"bench-live-{uuid.uuid4().hex[:8]}-",
        "DATABASE_URL": url,
    }
    try:
        with (tmp / "live.log").open("w") as log:
            done = subprocess.run(
                command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True,
                timeout=900,
            )  # fmt: skip
    finally:
        drop_database(url, url.rsplit("/", 1)[1])
    if done.returncode:
        raise RuntimeError(f"bench.live failed (exit {done.returncode}); see {tmp / 'live.log'}")
    report = json.loads(done.stdout)
    (tmp / "live.json").write_text(done.stdout)  # every size's figures and client errors
    row = max(report["sizes"], key=lambda r: r["clients"])
    one = min(report["sizes"], key=lambda r: r["clients"])
    keys = ("clients", "p50_ms", "p95_ms", "max_ms", "lost")
    return {**{k: row[k] for k in keys}, "one_client_p95_ms": one["p95_ms"]}


def linked_to_anyone(user) -> bool:
    """Whether the platform linked ``user`` to another account as one person."""
    from django.db.models import Q

    from bots.models import AccountLink

    links = AccountLink.objects.filter(Q(user=user) | Q(other=user), dismissed=False)
    return links.exists()


def play_timing_author(args, comp, organiser, writer, tmp: Path):
    """Play ``comp`` (:func:`play_round_robin`) while another author uploads
    ``args.author_uploads`` times from its launch, each ``args.author_every`` seconds
    after the last one's result; the round robin's figures and each upload's wait for
    its validation (the last ones may end after the round robin, the flood going on)."""
    from django.db import connection

    sent: list[int] = []

    def send() -> None:
        try:
            sent.extend(
                author_uploads(
                    writer, args.variant, args.author_uploads, args.author_every,
                    args.author_timeout,
                )
            )  # fmt: skip
        finally:
            connection.close()  # this thread's own

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    played = play_round_robin(comp, organiser, args.timeout, tmp)
    sender.join()
    waits = validation_waits(sent, args.author_timeout)
    return played, {"waits": waits, "runs": validation_runs(sent)}


def measure(args) -> dict[str, Any]:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"cardroom-fairshare-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    organiser = get_user_model().objects.create_user("organiser", password="club-pw-123")
    user, tested = flooder_ready(args)
    other_organiser = get_user_model().objects.create_user("ladders", password="open-pw-123")
    hogs = hogs_ready(args, other_organiser) if args.hogs else None
    writer = author_ready()
    groups, where = lane_groups(f"cardroom-bench-{os.getpid()}") if args.cgroups else (None, "")
    workers: list[Worker] = []
    try:
        workers = start_workers(args, tmp, groups)
        comp = round_robin(args, organiser, "alone")
        alone, author_alone = play_timing_author(args, comp, organiser, writer, tmp)
        flood_started = time.monotonic()
        sent = flood(args, user, tested)
        hogs_sent = hog_flood(args, hogs) if hogs else None
        sending_s = time.monotonic() - flood_started
        time.sleep(args.warmup)
        before = progress(sent)
        hogs_before = hog_progress(hogs_sent) if hogs_sent else None
        comp = round_robin(args, organiser, "flooded", again=comp)
        with InPlay(waiting_in=comp.pk) as in_play:
            flooded, author_flooded = play_timing_author(args, comp, organiser, writer, tmp)
        after = progress(sent)
        hogs_after = hog_progress(hogs_sent) if hogs_sent else None
        held = stallers(sent, args.stallers)
        live = measure_live(args, tmp)  # while the workers go on with the flood
        author_linked = linked_to_anyone(writer.owner)
    finally:
        for worker in workers:
            worker.stop()
        if groups is not None:
            groups.remove()
    return {
        "variant": args.variant,
        "bot": args.bot,
        "entries": args.entries,
        "workers": args.workers,
        "grow": args.grow,
        "user_grow": args.user_grow,
        "user_workers": args.user_workers,
        "user_nice": args.user_nice,
        "cgroups": where if groups is not None else None,
        "cgroups_refused": where if args.cgroups and groups is None else None,
        "cpus": len(os.sched_getaffinity(0)),
        "alone": alone,
        "flooded": flooded,
        "ratio": flooded["matches_per_min"] / alone["matches_per_min"],
        # the same deals, and the same play on them (scores), alone and flooded
        "same_games": alone["games"] == flooded["games"],
        "live": live,
        "in_play": in_play.summary(),
        "author": {
            "uploads": args.author_uploads,
            "every_s": args.author_every,
            # linked to another account (as one person), the author would share its slots
            "linked": author_linked,
            "alone": waits_summary(author_alone["waits"]),
            "flooded": waits_summary(author_flooded["waits"]),
            # of those seconds, the validations' own run (the rest: waiting for a slot)
            "alone_runs": waits_summary(author_alone["runs"]),
            "flooded_runs": waits_summary(author_flooded["runs"]),
        },
        "hogs": None
        if hogs is None
        else {
            "accounts": args.hogs,
            "linked": hogs["linked"],
            "ladder_house": args.ladder_house,
            "version_tests": args.hog_version_tests,
            "before": hogs_before,
            "after": hogs_after,
        },
        "flood": {
            "stallers": args.stallers,
            "uploads": args.uploads,
            "version_tests": args.version_tests,
            "version_test_games": args.version_test_games,
            "ladder_entries": args.ladder,
            "ladder_bot": args.ladder_bot,
            "challenges": args.challenges,
            "sending_s": sending_s,
            "warmup_s": args.warmup,
            "before": before,
            "after": after,
            "during": {key: after[key] - before[key] for key in after},
            "staller_validations": held,
        },
    }


def report(r: dict[str, Any]) -> None:
    f = r["flood"]
    print(
        f"{r['variant']}: round robin of {r['entries']} builtin:{r['bot']}, one-game matches,"
        f" {r['workers']} workers on {r['cpus']} CPUs"
        + (f", each grown by up to {r['grow']} while its bots sleep" if r.get("grow") else "")
        + (
            f" (competitions' lane; {r['user_workers']} more on the users' lane at nice"
            f" {r['user_nice']}"
            + (f", grown by up to {r['user_grow']}" if r.get("user_grow") else "")
            + ")"
            if r["user_workers"]
            else " (each on every queue)"
        )
    )
    if r["cgroups"]:
        print(
            f"  each worker and its bots in a cgroup of the deployed weight ({r['cgroups']}):"
            f" {COMPETITIONS_WEIGHT} per competitions' worker, {USERS_WEIGHT} for the users'"
            " lane, against 100 for the rest"
        )
    elif r["cgroups_refused"]:
        print(f"  workers told apart by niceness only: {r['cgroups_refused']}")
    for name in ("alone", "flooded"):
        row = r[name]
        print(
            f"  {name:<8} {row['matches_per_min']:7.1f} matches/min"
            f"  ({row['matches']} matches in {row['seconds']:.1f} s,"
            f" the first result after {row['first_result_s']:.1f} s)"
        )
    games = len(r["alone"]["games"])
    print(
        f"  flooded / alone {r['ratio']:.2f}  (target >= 0.80)"
        + (
            f"; the same {games} games both times (deals and scores)"
            if r["same_games"]
            else "; NOT the same games both times: the ratio also measures their lengths"
        )
    )
    print(
        f"  the flood: staller uploads {f['stallers']}, other uploads {f['uploads']},"
        f" version tests {f['version_tests']} of {f['version_test_games']} games, a ladder of"
        f" {f['ladder_entries']} builtin:{f['ladder_bot']} (sent in {f['sending_s']:.1f} s,"
        f" then {f['warmup_s']:.0f} s before the round robin)"
    )
    print(f"  and {f['challenges']} challenges of {CHALLENGE_GAMES} games against builtin:greedy")
    during, after = f["during"], f["after"]
    validations = f["stallers"] + f["uploads"]
    games = f["version_tests"] * f["version_test_games"]
    print("  the flood's progress while the round robin played (and in all by its end):")
    print(
        f"    validations finished {during['validations']:6}"
        f"  ({after['validations']} of {validations})"
    )
    print(
        f"    version-test games   {during['version_test_games']:6}"
        f"  ({after['version_test_games']} of at most {games})"
    )
    print(f"    ladder matches       {during['ladder_matches']:6}  ({after['ladder_matches']})")
    print(
        f"    challenge matches    {during['challenge_matches']:6}"
        f"  ({after['challenge_matches']})"
    )
    held = ", ".join(
        f"{v['status']}" + (f" after {v['duration_s']:.1f} s" if v["duration_s"] else "")
        for v in f["staller_validations"]
    )
    print(f"  the stallers' validations by then: {held}")
    held = ", ".join(
        f"{name} {row['mean']:.2f} (at most {row['max']})" for name, row in r["in_play"].items()
    )
    print(f"  matches in play on average while the round robin's matches waited: {held}")
    a = r["author"]
    if a.get("linked"):
        print("  the other author was linked to another account: their waits are that one's")
    for name in ("alone", "flooded"):
        row = a[name]
        if row["n"]:
            print(
                f"  another author's uploads ({row['n']}, each {a['every_s']:.0f} s after the"
                f" last one's result) with"
                f" the round robin {name}: validated in p50 {row['p50']:.1f} s, p95"
                f" {row['p95']:.1f} s, max {row['max']:.1f} s"
                + ("  (target p95 <= 30 s)" if name == "flooded" else "")
            )
            runs = a[f"{name}_runs"]
            if runs["n"]:
                print(
                    f"    of which validating (the rest waited for a slot): p50"
                    f" {runs['p50']:.1f} s, p95 {runs['p95']:.1f} s, max {runs['max']:.1f} s"
                )
    h = r["hogs"]
    if h is not None:
        b, e = h["before"], h["after"]
        print(
            f"  the hogs: {h['accounts']} accounts of one person"
            f" ({'linked' if h['linked'] else 'NOT linked'} by the platform), each with a bot"
            f" that sleeps just under its move time in an open ladder of {h['ladder_house']}"
            f" house bots, a hog upload each, {h['version_tests']} hog version tests"
        )
        print(
            f"    their ladder matches done {e['ladder_matches']} ({b['ladder_matches']} before"
            f" the round robin), in play at its end {e['ladder_in_play']}; their uploads"
            f" {', '.join(e['validations'])}; version-test games {e['version_test_trials']}"
        )
    live = r["live"]
    if live is not None:
        print(
            f"  live pushes as the workers went on with the flood (bench.live,"
            f" {live['clients']} clients): p50"
            f" {live['p50_ms']:.1f} ms, p95 {live['p95_ms']:.1f} ms (target < 200), max"
            f" {live['max_ms']:.1f} ms, {live['lost']} lost; one client p95"
            f" {live['one_client_p95_ms']:.1f} ms"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="money-jordan")
    parser.add_argument("--bot", default="ismcts", help="the round robin's built-in bots")
    parser.add_argument("--entries", type=int, default=8, help="the round robin's entries")
    parser.add_argument("--workers", type=int, default=2, help="worker processes, one slot each")
    parser.add_argument(
        "--user-workers", type=int, default=1,
        help="worker processes on the users' lane (0: every worker on every queue)",
    )  # fmt: skip
    parser.add_argument(
        "--user-concurrency", type=int, default=2, help="slots of each users' lane worker"
    )
    parser.add_argument(
        "--user-nice", type=int, default=19, help="the users' lane's CARDROOM_WORKER_NICE"
    )
    parser.add_argument(
        "--no-cgroups", dest="cgroups", action="store_false",
        help="run the workers as plain processes, told apart by niceness only (bench.lanes)",
    )  # fmt: skip
    parser.add_argument("--stallers", type=int, default=2, help="uploads of the staller")
    parser.add_argument("--uploads", type=int, default=50, help="other uploads")
    parser.add_argument("--version-tests", type=int, default=5)
    parser.add_argument("--version-test-games", type=int, default=20_000)
    parser.add_argument(
        "--challenges", type=int, default=20, help="challenges against builtin:greedy"
    )
    parser.add_argument("--ladder", type=int, default=100, help="the flood ladder's entries")
    parser.add_argument("--ladder-bot", default="greedy", help="the flood ladder's built-ins")
    parser.add_argument(
        "--warmup", type=float, default=20.0,
        help="seconds the workers take the flood before the round robin starts",
    )  # fmt: skip
    parser.add_argument(
        "--live-clients", type=int, default=500,
        help="bench.live's clients during the flood (0: not measured)",
    )  # fmt: skip
    parser.add_argument("--live-seconds", type=float, default=15.0)
    parser.add_argument(
        "--hogs", type=int, default=2,
        help="accounts of one person whose bot sleeps just under its move time (0: none)",
    )  # fmt: skip
    parser.add_argument("--hog-version-tests", type=int, default=2, help="the hogs' version tests")
    parser.add_argument(
        "--ladder-house", type=int, default=3, help="house bots of the hogs' open ladder"
    )
    parser.add_argument(
        "--author-uploads", type=int, default=4,
        help="another author's uploads timed during each round robin",
    )  # fmt: skip
    parser.add_argument("--author-every", type=float, default=2.0)
    parser.add_argument(
        "--author-timeout", type=float, default=300.0,
        help="seconds the author's validations are waited for after a round robin",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--timeout", type=float, default=3600.0, help="seconds a round robin may take"
    )
    parser.add_argument("--worker-args", default="", help="more options for `celery worker`")
    parser.add_argument(
        "--grow", type=int, default=2,
        help="processes each competitions' worker may add while its bots sleep (0: none)",
    )  # fmt: skip
    parser.add_argument(
        "--user-grow", type=int, default=1,
        help="processes the users' worker may add while its bots sleep (0: none)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres") or not os.environ.get("REDIS_URL"):
        sys.exit("bench.fairshare needs DATABASE_URL (PostgreSQL) and REDIS_URL")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    prefix = f"bench-fairshare-{uuid.uuid4().hex[:8]}-"
    for variable in [v for v in os.environ if v.startswith("CARDROOM_") and v.endswith("_QUEUE")]:
        del os.environ[variable]  # every queue named after the prefix, here and in the workers
    os.environ["CARDROOM_QUEUE_PREFIX"] = prefix
    url, name = scratch_database(base)
    os.environ["DATABASE_URL"] = url  # this process and the workers share it
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
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        report(result)


if __name__ == "__main__":
    main()
