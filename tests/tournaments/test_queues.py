"""Work by kind, most urgent first; turns within a kind; periodic tasks that users cannot block.

Real ``celery -A config worker`` processes on private queues (one per kind, in the order
of ``CARDROOM_QUEUES``) and the real PostgreSQL and Redis.
"""

from __future__ import annotations

import os
import re
import signal
import uuid
from pathlib import Path

import pytest
import redis
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.fairshare import HONEST
from bots.models import Bot, BotVersion
from bots.tasks import version_validate
from tests.factories import builtin_version, enter_builtins, make_competition
from tests.workers import SERVICES, Worker, assert_recorded_exactly_once, finished, wait_for
from tournaments import services
from tournaments.live import events
from tournaments.models import Challenge, Competition, Match, RatingEvent
from tournaments.services import challenges, queue
from tournaments.worker import tasks

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]

#: The setting of each kind's queue (``CARDROOM_QUEUES``), most urgent first.
SETTINGS = {
    "periodic": "CARDROOM_PERIODIC_QUEUE",
    "competition": "CARDROOM_MATCH_QUEUE",
    "ladder": "CARDROOM_LADDER_QUEUE",
    "validation": "CARDROOM_VALIDATE_QUEUE",
    "challenge": "CARDROOM_CHALLENGE_QUEUE",
    "version-test": "CARDROOM_VERSION_TEST_QUEUE",
    "default": "CARDROOM_DEFAULT_QUEUE",
}


def test_the_kinds_of_work_are_named_in_their_order_of_urgency():
    kinds = [kind for kind, _ in django_settings.CARDROOM_QUEUES]
    assert kinds == list(SETTINGS)
    queues = dict(django_settings.CARDROOM_QUEUES)
    assert all(queues[kind] == getattr(django_settings, name) for kind, name in SETTINGS.items())
    assert len(set(queues.values())) == len(queues)  # one queue per kind


def test_worker_queues_prints_the_queues_of_the_kinds_asked_most_urgent_first():
    everything = call_command("worker_queues")
    assert everything == "periodic,matches,ladders,validations,challenges,version-tests,celery"
    assert call_command("worker_queues", "version-test", "competition") == "matches,version-tests"
    # The two lanes of the deployed workers (docs/queues.md "Lanes").
    competitions = call_command("worker_queues", "periodic", "competition", "ladder")
    users = call_command("worker_queues", "validation", "challenge", "version-test", "default")
    assert (competitions, users) == (
        "periodic,matches,ladders",
        "validations,challenges,version-tests,celery",
    )
    with pytest.raises(CommandError, match="unknown kind of work: matches"):
        call_command("worker_queues", "matches")


def test_a_ladder_and_a_tournament_go_to_their_own_queues():
    tournament = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    ladder = make_competition(
        entries=2,
        kind=Competition.Kind.LADDER,
        format="ladder",
        variant="money-jordan",
        games=2,
        duplicate=False,
    )
    services.competition_start(competition=tournament, send=None)
    services.competition_start(competition=ladder, send=None)
    ids = list(Match.objects.values_list("pk", flat=True))
    queues = queue.match_queues(ids)
    assert {queues[m.pk] for m in tournament.matches.all()} == {"matches"}
    assert {queues[m.pk] for m in ladder.matches.all()} == {"ladders"}


@pytest.fixture
def kinds(settings):
    """A private queue per kind, here (``settings``) and for the workers (``env``)."""
    tag = uuid.uuid4().hex[:10]
    names = {kind: f"test-{kind}-{tag}" for kind in SETTINGS}
    for kind, name in names.items():
        setattr(settings, SETTINGS[kind], name)
    settings.CARDROOM_QUEUES = tuple(names.items())
    env = {SETTINGS[kind]: name for kind, name in names.items()}
    env["CARDROOM_TASK_LOG_LEVEL"] = "INFO"  # a line per task received: the order taken
    yield names, env
    redis.Redis.from_url(os.environ["REDIS_URL"]).delete(*names.values())


@pytest.fixture
def start(tmp_path, kinds):
    """Start a worker on the given kinds' queues (default all, most urgent first)."""
    names, env = kinds
    started: list[Worker] = []

    def start_worker(
        *listen: str, concurrency: int = 1, pool: str = "", args: tuple = (), **extra
    ) -> Worker:
        queues = tuple(names[kind] for kind in (listen or names))
        worker = Worker(tmp_path, os.environ["REDIS_URL"], queues, **{**env, **extra})
        started.append(worker)
        return worker.start(concurrency=concurrency, beat=False, pool=pool, args=args)

    yield start_worker
    for worker in started:
        worker.kill(signal.SIGKILL)


#: The periodic tasks, which a worker also sends itself as it starts (it looks for lost
#: work at once: ``config.celery``), on the periodic queue taken first.
PERIODIC = {"tournaments.matches_reap", "bots.versions_requeue", "bots.versions_prune"}


def taken(worker: Worker) -> list[str]:
    """The tasks the worker received, in order (``tournaments.match_run``, ...), the
    periodic ones aside."""
    found = re.findall(r"Task ([\w.]+)\[[^\]]+\] received", worker.log.read_text())
    return [name for name in found if name not in PERIODIC]


@pytest.mark.slow
def test_a_competitions_matches_are_played_before_version_tests_and_validations_sent_earlier(
    start, kinds
):
    names, _ = kinds
    # Users' work queued first: version tests and validations (ids nobody has: each is
    # taken and finds nothing to do, which is all the order needs).
    for missing in range(10**9, 10**9 + 4):
        tasks.version_test_run.apply_async(args=[missing], queue=names["version-test"])
        version_validate.apply_async(args=[missing], queue=names["validation"])
    # Then a round robin of four (three rounds of two matches, one message each).
    comp = make_competition(entries=4, games=20, variant="money-jordan", duplicate=False)
    services.competition_start(competition=comp)
    worker = start()
    wait_for(lambda: finished(comp), 60, "the competition to finish")
    wait_for(lambda: len(taken(worker)) == 6 + 8, 90, "the users' work")

    order = taken(worker)
    assert order[:6] == ["tournaments.match_run"] * 6, order
    assert sorted(order[6:]) == ["bots.version_validate"] * 4 + ["tournaments.version_test_run"] * 4
    assert order[6:10] == ["bots.version_validate"] * 4  # validations before version tests
    assert_recorded_exactly_once(comp)


@pytest.mark.slow
def test_a_competitions_matches_are_played_before_a_challenge_queued_earlier(start):
    author = get_user_model().objects.create_user("ada", password="pw-123456")
    bot = Bot.objects.create(owner=author, name="learner", builtin="random")
    builtin_version(bot, 1, "random")
    # The challenge first: two matches of twelve games, sent to the challenges' queue.
    challenge = challenges.challenge_create(
        bot=bot, by=author, opponents=["builtin:greedy"], variant="money-jordan", games=24
    )
    assert challenge.competition.matches.filter(status="queued").count() == 2
    # Then a round robin of four (three rounds of two matches).
    comp = make_competition(entries=4, games=20, variant="money-jordan", duplicate=False)
    services.competition_start(competition=comp)
    start()

    wait_for(lambda: finished(comp), 60, "the competition to finish")
    wait_for(
        lambda: Challenge.objects.filter(pk=challenge.pk, status="done").exists(),
        60,
        "the challenge to finish",
    )
    last_of_competition = max(comp.matches.values_list("finished_at", flat=True))
    first_of_challenge = min(challenge.competition.matches.values_list("finished_at", flat=True))
    assert last_of_competition < first_of_challenge
    assert_recorded_exactly_once(comp)
    assert not RatingEvent.objects.filter(match__competition=challenge.competition).exists()


@pytest.mark.slow
def test_one_users_uploads_take_turns_with_another_users_in_the_validations_queue(start):
    from bots import services as bot_services

    def uploads(name: str, count: int) -> list[int]:
        owner = get_user_model().objects.create_user(name, password="pw-123456789")
        bot = bot_services.bot_create(owner=owner, name=f"{name}-bot")
        ids = []
        for n in range(count):
            code = HONEST.format(seed=n).encode()  # a random legal action
            version = bot_services.bot_version_upload(
                bot=bot, filename="bot.py", content=code, variants=["money-jordan"]
            )
            ids.append(bot_services.bot_version_queue(version=version).pk)
        return ids

    hers = uploads("alice", 3)  # first: one user's three uploads
    his = uploads("bob", 1)  # then another user's one
    start("validation")  # one slot

    def validated() -> list[int]:
        done = BotVersion.objects.filter(pk__in=[*hers, *his], status="ready")
        return [pk for pk, _ in sorted(
            done.values_list("pk", "validation_report__validated_at"), key=lambda r: r[1]
        )]  # fmt: skip

    wait_for(lambda: len(validated()) == 4, 240, "the four validations")
    # His comes right after her first (which was in the queue before him), not after all
    # of hers: each of hers was sent to the back of the queue as the one before started.
    assert validated() == [hers[0], his[0], hers[1], hers[2]]


STALLER = Path(__file__).resolve().parents[1] / "bots" / "hostile" / "staller.py"


@pytest.mark.slow
def test_an_upload_that_sleeps_through_its_validation_does_not_keep_the_next_persons_waiting(
    start,
):
    """A hostile upload sleeps just under its time ceiling on every decision of its
    validation (tests/bots/hostile/staller.py: about half a minute): it holds the users'
    one slot and no CPU. The pool grows by a process (config.autoscale) and another
    person's upload, sent after it, is validated meanwhile (a pool that may not grow kept
    him waiting about 30 s, until the staller's validation ended)."""
    from bots import services as bot_services

    def upload(name: str, code: bytes) -> int:
        owner = get_user_model().objects.create_user(name, password="pw-123456789")
        bot = bot_services.bot_create(owner=owner, name=f"{name}-bot")
        version = bot_services.bot_version_upload(
            bot=bot, filename="bot.py", content=code, variants=["money-jordan"]
        )
        return bot_services.bot_version_queue(version=version).pk

    worker = start("validation", args=("--autoscale", "2,1"))  # one slot, grown while asleep
    hers = upload("mallory", STALLER.read_bytes())
    claimed = BotVersion.objects.filter(pk=hers).exclude(claimed_by="")
    wait_for(claimed.exists, 60, "the staller's validation to start", logs=(worker,))
    his = upload("bob", HONEST.format(seed=1).encode())

    def status(pk: int) -> str:
        return BotVersion.objects.values_list("status", flat=True).get(pk=pk)

    wait_for(lambda: status(his) == "ready", 20, "bob's validation", logs=(worker,))
    assert status(hers) == "validating"  # still asleep on its slot
    assert "pool grows to 2 processes" in worker.log.read_text()


@pytest.mark.slow
def test_a_small_competition_progresses_while_a_big_one_has_a_large_backlog(start, settings):
    # One-game matches, one message each: the big round robin's first round alone is 60.
    settings.CARDROOM_TASK_GAMES = 1
    settings.CARDROOM_COMPETITION_WINDOW = 4
    big = make_competition(entries=120, games=1, variant="money-jordan", duplicate=False)
    services.competition_start(competition=big)
    waiting = big.matches.filter(status="queued")
    assert waiting.count() == 60
    assert waiting.filter(lease_until__isnull=False).count() == 4  # sent: its window
    small = make_competition(
        entries=4, games=1, variant="money-jordan", duplicate=False
    )  # a club's league: 3 rounds of 2
    services.competition_start(competition=small)
    start(CARDROOM_TASK_GAMES="1", CARDROOM_COMPETITION_WINDOW="4")

    wait_for(lambda: finished(small), 60, "the small competition to finish")
    played = big.matches.filter(status="done").count()
    # Its rounds took turns with the big one's matches: 6 of its own, about 4 of the
    # big one's ahead of each of its rounds (a few more while they were sent).
    assert played <= 20, f"the big competition played {played} matches first"
    assert_recorded_exactly_once(small)
    wait_for(lambda: big.matches.filter(status="done").count() >= 60, 120, "the big round")
    assert big.matches.filter(round__number=1, status="done").count() == 60  # none lost


@pytest.mark.slow
def test_the_reaper_runs_while_users_work_fills_every_worker_slot(start, kinds):
    names, _ = kinds
    # A tournament of slow built-in bots fills the one slot of the match worker, which
    # listens to the periodic queue too (first): it cannot take the reaper while it plays.
    comp = make_competition(entries=0, games=2, variant="money-jordan", duplicate=False)
    enter_builtins(comp, 2, "ismcts")
    lease = {"CARDROOM_MATCH_LEASE_S": "300"}
    busy = start("periodic", "competition", "ladder", "validation", "version-test", **lease)
    periodic = start("periodic", pool="solo", **lease)
    services.competition_start(competition=comp)
    wait_for(lambda: comp.matches.filter(status="running").exists(), 90, "the match to start")

    done = re.compile(r"Task tournaments\.matches_reap\[[^\]]+\] succeeded")
    before = len(done.findall(periodic.log.read_text()))  # those the workers sent at start
    tasks.matches_reap.apply_async(queue=names["periodic"])
    wait_for(lambda: len(done.findall(periodic.log.read_text())) > before, 60, "the reaper")
    assert comp.matches.filter(status="running").exists()  # the slot is still busy
    assert taken(busy) == ["tournaments.match_run"]


def test_the_dashboards_backlog_counts_the_messages_of_matches_of_every_competition(kinds):
    names, _ = kinds
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    client.rpush(names["competition"], "a tournament's match")
    client.rpush(names["ladder"], "a ladder's match", "another")
    client.rpush(names["version-test"], "not a match")
    assert events.celery_backlog() == 3


def niceness(pid: int) -> int:
    """The nice value of process ``pid`` (field 19 of ``/proc/<pid>/stat``)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[16])


def test_a_worker_and_its_pool_run_nicer_than_the_web_tier(start):
    """Where workers share a machine with the web tier, pages and live pushes come first."""
    default = start(concurrency=1)
    kept = start(concurrency=1, CARDROOM_WORKER_NICE="0")

    main = default.proc.pid
    pool = [int(p) for p in Path(f"/proc/{main}/task/{main}/children").read_text().split()]
    assert niceness(default.proc.pid) == 10 and pool and {niceness(p) for p in pool} == {10}
    assert niceness(kept.proc.pid) == niceness(os.getpid())  # 0: the priority kept


def autogroup_nice(pid: int) -> int | None:
    """The niceness of the scheduling group of ``pid``'s session (``/autogroup-N nice K``),
    None for a process in the root group (the kernel shows it an empty file: init's
    session, or a CI runner's processes that never called setsid)."""
    text = Path(f"/proc/{pid}/autogroup").read_text()
    return int(text.split("nice")[-1]) if "nice" in text else None


@pytest.mark.skipif(
    not Path("/proc/self/autogroup").exists()
    or Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "1",
    reason="the kernel groups processes by session only with sched_autogroup_enabled",
)
def test_a_worker_leading_its_session_lowers_the_sessions_share_too(start):
    """With autogroups the CPUs are shared between sessions first: a worker in a session
    of its own, nice only inside it, would still take a full share against the web tier."""
    own = autogroup_nice(os.getpid())
    default = start(concurrency=1)
    kept = start(concurrency=1, CARDROOM_WORKER_NICE="0")

    assert os.getsid(default.proc.pid) == default.proc.pid  # started with setsid
    assert autogroup_nice(default.proc.pid) == 10
    assert autogroup_nice(kept.proc.pid) == 0
    assert autogroup_nice(os.getpid()) == own  # the test's own session is left alone


def test_a_niceness_out_of_range_is_refused_at_start_with_the_settings_name(tmp_path):
    import subprocess
    import sys

    env = {**os.environ, "CARDROOM_WORKER_NICE": "25"}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "CARDROOM_WORKER_NICE must be a whole number from 0 to 19, got 25" in done.stderr


@pytest.mark.slow
def test_a_list_of_ladder_matches_gives_way_to_a_tournaments_match_sent_while_it_plays(start):
    """A worker takes the most urgent work first also in the middle of a list of short
    matches: between two of them it looks at the queues it takes first, and if one holds
    work it sends the rest of its list again and takes that work."""
    ladder = make_competition(
        kind=Competition.Kind.LADDER, format="ladder", entries=24, games=8,
        variant="money-jordan", duplicate=False, builtin="greedy",
    )  # fmt: skip
    services.competition_start(competition=ladder)
    batch = set(ladder.matches.values_list("pk", flat=True))
    assert len(batch) >= 6
    # The budget alone would let the list run to its end before anything else.
    start(CARDROOM_TASK_BUDGET_S="600", CARDROOM_TASK_GAMES="20")
    wait_for(lambda: ladder.matches.filter(status="done").exists(), 60, "the ladder to start")

    tournament = make_competition(entries=2, games=1, variant="money-jordan", duplicate=False)
    services.competition_start(competition=tournament)
    wait_for(lambda: finished(tournament), 60, "the tournament to finish")
    (played_at,) = tournament.matches.values_list("finished_at", flat=True)
    later = Match.objects.filter(pk__in=batch, finished_at__gt=played_at)
    wait_for(lambda: not Match.objects.filter(pk__in=batch).exclude(status="done").exists(),
             120, "the ladder's batch to be played")  # fmt: skip
    assert later.exists()  # the tournament's match was played in the middle of the list
    assert_recorded_exactly_once(tournament)
