"""Faults during match execution: bots, infrastructure, killed workers, a restarted broker.

A bot's fault is a result; the platform's fault is retried and never charged to
a bot; a killed worker or a lost broker loses no match and doubles none, nor any of
the users' lane's work: a validation, a challenge, a quick game, a version test.
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import time
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError, transaction

from bots import builtin
from bots.models import Bot, BotVersion
from bots.sdk import Bot as SdkBot
from config.task_sending import queue_lengths
from tests.factories import make_competition
from tests.workers import (
    SERVICES,
    WORKER_ENV,
    Worker,
    assert_ratings_equal_a_recompute,
    assert_recorded_exactly_once,
    finished,
    wait_for,
)
from tournaments import services
from tournaments.models import Match, RatingEvent
from tournaments.worker import execution, tasks

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]


class CrashingBot(SdkBot):
    name = "crasher"

    def __init__(self, seed: int = 0) -> None:
        pass

    def act(self, observation, legal):
        raise RuntimeError("bug in the bot")


@pytest.fixture(autouse=True)
def crasher():
    """The crashing bot as the built-in ``crasher``, for this module's tests only (other
    tests list the built-ins)."""
    builtin.register("crasher", CrashingBot)
    yield
    builtin.unregister("crasher")


# -- in-process ----------------------------------------------------------------------------


def test_a_bot_fault_is_a_result_not_a_retry():
    comp = make_competition(entries=1, variant="money-jordan", games=2, duplicate=False)
    services.entry_create(competition=comp, bot=Bot.objects.create(name="c", builtin="crasher"))
    match = services.competition_start(competition=comp, send=None)[0]

    assert tasks.match_run.apply(args=[match.pk]).get() == execution.RECORDED

    match.refresh_from_db()
    assert (match.status, match.attempts, match.error) == ("done", 1, "")
    crasher = match.seats.get(entry__bot__builtin="crasher")
    assert crasher.statuses == {"crash": comp.games_per_match} and crasher.rank == 2
    assert RatingEvent.objects.filter(match=match).count() == 2  # rated like any result


@pytest.mark.parametrize("error", [OSError("sandbox host gone"), OperationalError("db down")])
def test_an_infrastructure_fault_is_retried_and_not_charged_to_a_bot(monkeypatch, error):
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]
    play, calls = services.match_play, []

    def flaky(*, match, **watching):
        calls.append(match.pk)
        if len(calls) == 1:
            raise error
        return play(match=match, **watching)

    monkeypatch.setattr(services, "match_play", flaky)

    assert tasks.match_run.apply(args=[match.pk]).get() == execution.RECORDED

    match.refresh_from_db()
    assert calls == [match.pk, match.pk]
    assert (match.status, match.attempts, match.error) == ("done", 2, "")
    assert all(set(s.statuses) == {"ok"} for s in match.seats.all())  # nobody forfeited
    assert RatingEvent.objects.filter(match=match).count() == 2


def test_after_the_last_retry_the_match_fails_with_the_error(monkeypatch, settings):
    settings.CARDROOM_MATCH_MAX_RETRIES = 2
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]

    def down(*, match, **watching):
        raise OSError("sandbox unavailable")

    monkeypatch.setattr(services, "match_play", down)

    assert tasks.match_run.apply(args=[match.pk]).get() == execution.FAILED

    match.refresh_from_db()
    assert (match.status, match.attempts) == ("failed", 3)
    assert "OSError: sandbox unavailable" in match.error
    assert not RatingEvent.objects.filter(match=match).exists()
    assert all(s.rank is None and s.statuses == {} for s in match.seats.all())
    assert set(comp.entries.values_list("games", flat=True)) == {0}


def test_an_unexpected_error_fails_the_match_at_once_instead_of_holding_it(monkeypatch):
    """Not the infrastructure's and not a bot's: failed with the error, where an organiser
    sees it, not left running until its lease expires (again and again)."""
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]

    def broken(*, match, **watching):
        raise RuntimeError("a bug of the platform")

    monkeypatch.setattr(services, "match_play", broken)

    assert tasks.match_run.apply(args=[match.pk]).get() == execution.FAILED

    match.refresh_from_db()
    assert (match.status, match.attempts, match.lease_until) == ("failed", 1, None)
    assert match.error == "unexpected error: RuntimeError: a bug of the platform"
    assert not RatingEvent.objects.filter(match=match).exists()


def test_a_log_with_a_nul_byte_is_recorded_without_it(monkeypatch):
    """PostgreSQL's text columns refuse NUL: the recording keeps the rest of the log."""
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]
    play = services.match_play

    def noisy(*, match, **watching):
        played = play(match=match, **watching)
        played.logs = ["before\x00after", ""]
        return played

    monkeypatch.setattr(services, "match_play", noisy)

    assert tasks.match_run.apply(args=[match.pk]).get() == execution.RECORDED
    seat = match.seats.get(seat=0)
    assert seat.log == "before\N{REPLACEMENT CHARACTER}after"


# -- real worker processes -----------------------------------------------------------------


@pytest.mark.slow
def test_a_worker_killed_mid_match_loses_and_doubles_nothing(workers):
    first = workers()
    comp = make_competition(
        entries=6, games=150, variant="money-jordan", duplicate=False
    )  # 15 matches of a few tenths of a second
    services.competition_start(competition=comp, send=first.send)
    wait_for(
        lambda: comp.matches.filter(status="done").count() >= 3
        and comp.matches.filter(status="running").exists(),
        90,
        "matches to be running",
    )
    running = set(comp.matches.filter(status="running").values_list("pk", flat=True))

    first.kill(signal.SIGKILL)  # main process and pool children, mid-match
    workers()  # a new worker: its reaper requeues the matches whose lease expires

    # Generous: on a loaded machine the lease's expiry and the 12 matches left take time.
    wait_for(lambda: finished(comp), 180, "the competition to finish")
    assert_recorded_exactly_once(comp)
    assert_ratings_equal_a_recompute(comp)
    retried = comp.matches.filter(pk__in=running, attempts__gte=2)
    assert retried.exists(), "a match killed mid-run is played again"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """A ``redis-server`` of our own (never the shared one), without persistence."""

    def __init__(self, tmp) -> None:
        self.port, self.tmp = free_port(), tmp
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        argv = [shutil.which("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--dir", str(self.tmp)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        wait_for(lambda: self._up(), 30, "redis-server")

    def _up(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def private_redis(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.mark.slow
def test_a_broker_restarted_mid_run_loses_and_doubles_no_match(workers, private_redis):
    worker = workers(broker=private_redis.url, concurrency=2)
    comp = make_competition(
        entries=8, games=60, variant="money-jordan", duplicate=False
    )  # 28 matches in 7 rounds
    services.competition_start(competition=comp, send=worker.send)
    wait_for(lambda: comp.matches.filter(status="done").count() >= 2, 90, "first results")

    private_redis.stop()  # every queued message is lost with it
    time.sleep(1.0)
    private_redis.start()

    # A liveness bound, not a speed figure: the lost messages come back through the
    # reaper's deadline, later on a loaded machine.
    wait_for(lambda: finished(comp), 120, "the competition to finish after the restart")
    assert_recorded_exactly_once(comp)
    assert_ratings_equal_a_recompute(comp)
    assert comp.matches.count() == 28
    assert not Match.objects.filter(competition=comp, attempts=0).exists()


def message_in_hand(private_redis, settings):
    """A connection through ``config.broker``'s transport and the one message it received
    and has not acknowledged (a running task's, with ``acks_late``)."""
    from kombu import Connection, Consumer, Exchange, Producer, Queue

    connection = Connection(private_redis.url, transport=settings.CELERY_BROKER_TRANSPORT)
    channel = connection.default_channel
    queue = Queue("in-hand", Exchange("in-hand"), "in-hand")
    Producer(channel).publish({"n": 1}, exchange=queue.exchange, routing_key="in-hand",
                              declare=[queue])  # fmt: skip
    held = []
    Consumer(channel, [queue], callbacks=[lambda body, message: held.append(message)]).consume()
    connection.drain_events(timeout=5)
    assert len(held) == 1 and channel.qos._delivered  # received, not acknowledged
    return connection, channel, held[0]


def test_a_broker_connection_torn_down_with_a_task_in_hand_closes_without_error(
    private_redis, settings
):
    """A worker that loses Redis while running a task (unacknowledged: ``acks_late``)
    reconnects. Celery's consumer collects the broken connection, then closes it; when
    the collect's channel close fails on the dead socket, the transport is gone before
    that close, and kombu's own transport then raised ``AttributeError`` trying to put
    the message back: the worker stopped ("Unrecoverable error"). ``config.broker``'s
    transport closes that channel without error and keeps nothing in hand."""
    connection, channel, _ = message_in_hand(private_redis, settings)

    private_redis.stop()
    connection._do_close_transport()  # what the failed collect leaves behind
    connection.close()

    assert channel.closed and not channel.qos._delivered


def test_a_task_ending_after_the_reconnect_acknowledges_on_the_torn_down_channel_without_error(
    private_redis, settings
):
    """The same loss, then the task received before it ends once the worker has
    reconnected: Celery acknowledges its message on the old channel, whose transport is
    gone. kombu built a pool from it and raised ``AttributeError`` (the worker stopped,
    and a competition waited for a worker that was no more). ``config.broker``'s
    transport forgets the message locally; the copy kept in Redis's unacknowledged set
    comes back after the visibility timeout and is skipped as already played."""
    connection, channel, message = message_in_hand(private_redis, settings)

    private_redis.stop()
    connection._do_close_transport()
    connection.close()
    private_redis.start()  # the worker has reconnected on a new channel; the task ends

    message.ack()
    assert message.acknowledged and not channel.qos._delivered and not channel.qos._dirty


#: An uploaded bot that thinks half a second per decision: its validation holds the users'
#: worker's one slot long enough for the work asked after it to wait in the broker.
THINKER = """import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        time.sleep(%s)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""


@pytest.fixture
def publishing_to():
    """``publishing_to(url)``: this process's services send their tasks to the broker at
    ``url`` (the app's connection and producer pools made anew), until the test ends."""
    from celery import current_app

    conf, before = current_app.conf, current_app.conf.broker_url

    def renew(url: str) -> None:
        conf.broker_url = url
        current_app._pool = None
        current_app.amqp._producer_pool = None

    yield renew
    renew(before)


def users_lane(tmp_path, broker: str, tag: str, **env: str) -> tuple[Worker, Worker]:
    """The deployed users' lane on private queues: a worker of one slot on the validations,
    challenges, version tests and default queues (no periodic one), and the periodic
    worker, with beat, on the periodic queue alone (docs/queues.md "Lanes")."""
    names = {
        "CARDROOM_PERIODIC_QUEUE": f"test-periodic-{tag}",
        "CARDROOM_MATCH_QUEUE": f"test-matches-{tag}",
        "CARDROOM_LADDER_QUEUE": f"test-ladders-{tag}",
        "CARDROOM_VALIDATE_QUEUE": f"test-validations-{tag}",
        "CARDROOM_CHALLENGE_QUEUE": f"test-challenges-{tag}",
        "CARDROOM_VERSION_TEST_QUEUE": f"test-version-tests-{tag}",
        "CARDROOM_DEFAULT_QUEUE": f"test-celery-{tag}",
    }
    env = {**names, **env}
    periodic = Worker(tmp_path, broker, (names["CARDROOM_PERIODIC_QUEUE"],), **env)
    queues = tuple(names[k] for k in list(names)[3:])
    users = Worker(tmp_path, broker, queues, **env)
    users.listen = queues  # the users' lane: no periodic queue
    return periodic, users


@pytest.fixture
def users_workers(tmp_path, private_redis, publishing_to, settings):
    """The users' lane and its periodic worker on the private Redis, this process sending
    there too; short deadlines, as :data:`WORKER_ENV`'s for matches, so that a lost message
    is sent again within seconds, not after the production grace (ten minutes for a
    validation, an hour for a match or a version test)."""
    env = {
        "CARDROOM_VALIDATE_GRACE_S": "3",
        "CARDROOM_REQUEUE_EVERY_S": "1",
        "CARDROOM_TASK_LOG_LEVEL": "INFO",  # a line per task that ends
    }
    periodic, users = users_lane(tmp_path, private_redis.url, uuid.uuid4().hex[:8], **env)
    for name, queue in users.env.items():
        if name.startswith("CARDROOM_") and name.endswith("_QUEUE"):
            setattr(settings, name, queue)
    settings.CARDROOM_QUEUE_GRACE_S = int(WORKER_ENV["CARDROOM_QUEUE_GRACE_S"])
    publishing_to(private_redis.url)
    try:
        yield periodic.start(concurrency=1, beat=True), users.start(concurrency=1, beat=False)
    finally:
        users.kill(signal.SIGKILL)
        periodic.kill(signal.SIGKILL)


def upload(owner, name: str, think_s: float) -> BotVersion:
    """An upload of :data:`THINKER` queued for validation, as the API's upload does."""
    from bots import services as bot_services

    bot = bot_services.bot_create(owner=owner, name=name)
    with transaction.atomic():
        version = bot_services.bot_version_upload(
            bot=bot, filename="bot.py", content=(THINKER % think_s).encode(),
            variants=["money-jordan"],
        )  # fmt: skip
        return bot_services.bot_version_queue(version=version)


def ask_users_work(owner) -> tuple[list, object]:
    """A challenge of 24 games, a quick game and a version test of 40 games at most,
    of built-in versions of ``owner``'s, asked as the API's and the site's views do."""
    from tests.factories import builtin_version
    from tournaments.services import challenge_requests, challenges, version_tests

    mine = Bot.objects.create(owner=owner, name="house", builtin="random")
    builtin_version(mine, 1, "random")
    builtin_version(mine, 2, "random")
    asked = []
    for games in (24, challenge_requests.QUICK_GAME):
        with transaction.atomic():
            asked.append(
                challenges.challenge_create(
                    bot=mine,
                    by=owner,
                    opponents=["builtin:greedy"],
                    variant="money-jordan",
                    version=1,
                    games=games,
                )  # fmt: skip
            )
    with transaction.atomic():
        test = version_tests.version_test_create(
            bot=mine, new=2, old=1, variant="money-jordan", max_games=40, by=owner
        )
    return asked, test


def requeue_runs(worker: Worker) -> int:
    """How many runs of the validations' requeuing ``worker`` logged."""
    ended = r"Task bots\.versions_requeue\[[^\]]+\] succeeded"
    return len(re.findall(ended, worker.log.read_text()))


@pytest.mark.slow
def test_a_broker_restart_loses_and_doubles_no_validation_challenge_or_version_test(
    private_redis, users_workers, settings
):
    """Two uploads (one validating, one waiting in the broker), a challenge, a quick game
    and a version test waiting behind them: the broker stops, losing every message, and
    starts again. Each validation ends once, ready with its report; every game is played
    once; no allowance is charged twice."""
    from tournaments.models import Challenge, GameRecord, VersionTest
    from tournaments.selectors.allowance_use import usage_for_user

    periodic, _ = users_workers
    ada = get_user_model().objects.create_user("ada", password="pw-123456789")
    bob = get_user_model().objects.create_user("bob", password="pw-123456789")
    slow = upload(ada, "thinker", 0.5)
    claimed = BotVersion.objects.filter(pk=slow.pk).exclude(claimed_by="")
    wait_for(claimed.exists, 120, "the first validation to start")
    quick = upload(bob, "quick", 0.0)  # another owner's: sent, it waits in the broker
    asked, test = ask_users_work(ada)
    lost = [
        settings.CARDROOM_VALIDATE_QUEUE,
        settings.CARDROOM_CHALLENGE_QUEUE,
        settings.CARDROOM_VERSION_TEST_QUEUE,
    ]
    waits = queue_lengths(private_redis.url, lost, timeout_s=2.0)
    assert all(waits.values()), waits  # the messages the restart loses wait in the broker
    assert claimed.filter(status="validating").exists()  # the first one is mid-run

    private_redis.stop()  # every message with it, waiting or unacknowledged
    time.sleep(1.0)
    private_redis.start()

    versions = BotVersion.objects.filter(pk__in=[slow.pk, quick.pk])
    # Liveness bounds, not speed figures: the lost messages come back through the periodic
    # requeuing and the reaper, later on a loaded machine.
    wait_for(lambda: not versions.filter(status="validating").exists(), 300, "validations")
    ended = {v.pk: (v.status, v.validation_report) for v in versions}
    for status, report in ended.values():
        assert status == "ready" and report["ok"] and report["passed"] == ["money-jordan"]
        assert "queue" not in report  # ended: nothing waits to be validated again
    done = Challenge.objects.filter(pk__in=[c.pk for c in asked], status=Challenge.Status.DONE)
    wait_for(lambda: done.count() == 2, 300, "the challenge and the quick game to end")
    test_done = VersionTest.objects.filter(pk=test.pk, status=VersionTest.Status.DONE)
    wait_for(test_done.exists, 300, "the version test to end")
    runs = requeue_runs(periodic)
    wait_for(
        lambda: requeue_runs(periodic) >= runs + 5,
        120,
        "more requeuing runs (a validation sent twice would run again meanwhile)",
    )

    for version in versions:  # each validation ended once: the outcome written stands
        assert (version.status, version.validation_report) == ended[version.pk]
    for challenge in asked:
        matches = list(challenge.competition.matches.all())
        assert matches and all(m.status == "done" for m in matches)
        for match in matches:  # played once: its games stored once
            assert match.game_records.count() == challenge.competition.games_per_match
        played = GameRecord.objects.filter(match__competition=challenge.competition)
        assert played.count() == challenge.games
    test.refresh_from_db()
    assert sum(test.counts.values()) == test.trials and 0 < test.trials * 2 <= 40
    used = {row["name"]: row["used"] for row in usage_for_user(user=ada)}
    assert used["challenge_games_per_day"] == 25 and used["open_challenges"] == 0
    assert used["version_test_games_per_day"] == test.trials * 2
    assert used["open_version_tests"] == 0
    assert {row["name"]: row["used"] for row in usage_for_user(user=bob)}["versions_per_day"] == 1
