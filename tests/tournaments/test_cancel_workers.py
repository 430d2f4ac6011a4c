"""Cancel means stop, and work whose worker died is played again (a version test, a quick
game) at once and once: real ``celery -A config worker`` processes on the real PostgreSQL
and Redis, playing built-in bots slow enough to be caught in the middle of a deal (a deal
of manni-basic between ``ismcts-strong`` bots takes about a minute)."""

from __future__ import annotations

import os
import re
import signal
import time
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from bots.models import Bot
from tests.factories import builtin_version
from tests.workers import SERVICES, Worker, wait_for
from tournaments.models import Challenge, GameRecord, Match, VersionTest
from tournaments.selectors.allowance_use import usage_for_user
from tournaments.services import challenges, version_tests

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
]

#: A cancelled task must end within this long: a look between two decisions (every
#: ``leases.WATCH_S``) and the decision in play (``ismcts-strong``: a quarter of a second
#: here), with room for a loaded machine; the rest of the deal would take about a minute.
STOPS_WITHIN_S = 5.0


@pytest.fixture
def start(tmp_path, settings):
    """Start a worker (one slot) on private queues; this process sends to them too."""
    tag = uuid.uuid4().hex[:10]
    queues = (f"test-cancel-matches-{tag}", f"test-cancel-other-{tag}")
    settings.CARDROOM_MATCH_QUEUE = queues[0]
    settings.CARDROOM_CHALLENGE_QUEUE = settings.CARDROOM_VERSION_TEST_QUEUE = queues[1]
    started: list[Worker] = []

    def start_worker(*, beat: bool = False, **env: str) -> Worker:
        # A line per task that ends, with what it returned (the times the tests read).
        env = {"CARDROOM_TASK_LOG_LEVEL": "INFO", **env}
        worker = Worker(tmp_path, os.environ["REDIS_URL"], queues, **env)
        started.append(worker)
        return worker.start(concurrency=1, beat=beat)

    yield start_worker
    for worker in started:
        worker.kill(signal.SIGKILL)
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).delete(*queues)


@pytest.fixture
def owner():
    return get_user_model().objects.create_user("ada", password="pw-123456")


def used(user) -> dict[str, int]:
    return {row["name"]: row["used"] for row in usage_for_user(user=user)}


def task_ended(worker: Worker, task: str, outcome: str) -> bool:
    pattern = rf"Task {re.escape(task)}\[[^\]]+\] succeeded in [\d.]+s: .*{re.escape(outcome)}"
    return re.search(pattern, worker.log.read_text()) is not None


def sprt(owner, plays: str, **kw) -> VersionTest:
    bot = Bot.objects.create(owner=owner, name=f"learner-{plays}")
    builtin_version(bot, 1, plays)
    builtin_version(bot, 2, plays)
    with transaction.atomic():  # as the API's and the site's views do
        return version_tests.version_test_create(
            bot=bot, new=2, old=1, variant="manni-basic", by=owner, **kw
        )


def test_a_cancelled_version_test_stops_its_task_within_seconds_and_gives_its_games_back(
    start, owner
):
    worker = start()
    test = sprt(owner, "ismcts-strong", max_games=3_000)
    wait_for(lambda: VersionTest.objects.filter(pk=test.pk, status="running").exists(), 60, "play")
    time.sleep(2)  # in the middle of its first deal
    assert used(owner)["version_test_games_per_day"] == 3_000  # reserved while it plays

    cancelled_at = time.monotonic()
    version_tests.version_test_cancel(test=test, by=owner)
    wait_for(
        lambda: task_ended(worker, version_tests.VERSION_TEST_TASK, "'cancelled'"),
        60,
        "the task to end",
    )

    assert time.monotonic() - cancelled_at < STOPS_WITHIN_S
    test.refresh_from_db()
    assert (test.status, test.trials) == ("cancelled", 0)  # the deal cut off is not counted
    assert used(owner)["version_test_games_per_day"] == 0
    assert used(owner)["open_version_tests"] == 0


def test_a_version_test_whose_worker_was_killed_is_played_again_by_the_reaper(start, owner):
    first = start()
    test = sprt(owner, "ismcts-quick", max_games=3)  # one deal, a few seconds
    wait_for(lambda: VersionTest.objects.filter(pk=test.pk, status="running").exists(), 60, "play")
    time.sleep(1)

    first.kill(signal.SIGKILL)  # the machine goes away in the middle of the deal
    test.refresh_from_db()
    assert (test.status, test.trials) == ("running", 0)
    # Its lease has ten minutes to run, but its worker's heartbeat stopped: the reaper
    # (every second here) sends it again within seconds (config.liveness).
    assert test.lease_until > timezone.now() + timezone.timedelta(minutes=5)
    second = start(beat=True)

    wait_for(
        lambda: VersionTest.objects.filter(pk=test.pk, status="done").exists(),
        60,
        "the reaper to send the test again and the second worker to play it",
    )
    test.refresh_from_db()
    assert test.trials == 1  # the deal cut off, played again from its seed, counted once
    # (the task's line follows the commit that finished the test)
    wait_for(lambda: task_ended(second, version_tests.VERSION_TEST_TASK, "'done'"), 30, "it")
    assert used(owner)["version_test_games_per_day"] == 3


def test_a_cancelled_challenge_stops_its_match_in_play_within_seconds(start, owner):
    worker = start()
    bot = Bot.objects.create(owner=owner, name="searcher", builtin="ismcts")
    builtin_version(bot, 1, "ismcts")
    opponents = ["builtin:ismcts", "builtin:ismcts"]
    challenge = challenges.challenge_create(
        bot=bot, by=owner, opponents=opponents, variant="manni-basic", games=36
    )  # three matches of twelve games
    matches = challenge.competition.matches
    wait_for(lambda: matches.filter(status="running").exists(), 60, "the first match to start")
    time.sleep(2)
    assert used(owner)["challenge_games_per_day"] == 36

    cancelled_at = time.monotonic()
    challenges.challenge_cancel(challenge=challenge, by=owner)
    wait_for(lambda: "'refused'" in worker.log.read_text(), 60, "the match task to end")

    assert time.monotonic() - cancelled_at < STOPS_WITHIN_S
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.CANCELLED
    in_play = matches.get()  # the two not started are gone
    assert (in_play.status, in_play.error) == (Match.Status.FAILED, challenges.CANCELLED_IN_PLAY)
    assert not GameRecord.objects.filter(match__competition=challenge.competition).exists()
    assert used(owner)["challenge_games_per_day"] == 0
    assert used(owner)["open_challenges"] == 0


def test_a_quick_game_whose_worker_was_killed_is_played_again_at_once_and_once(start, owner):
    lease = {"CARDROOM_MATCH_LEASE_S": "1800"}  # half an hour, as deployed
    first = start(**lease)
    bot = Bot.objects.create(owner=owner, name="searcher", builtin="ismcts")
    builtin_version(bot, 1, "ismcts")
    opponents = ["builtin:ismcts", "builtin:ismcts"]
    with transaction.atomic():  # as the API's and the site's views do
        quick = challenges.challenge_create(
            bot=bot, by=owner, opponents=opponents, variant="manni-basic", games=1
        )  # a quick game: one game, played now
    match = quick.competition.matches.get()
    wait_for(lambda: Match.objects.filter(pk=match.pk, status="running").exists(), 60, "play")
    time.sleep(2)  # in the middle of its game (17 s between these bots on a quiet machine)

    first.kill(signal.SIGKILL)
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("running", 1)
    assert match.lease_until > timezone.now() + timezone.timedelta(minutes=5)  # far off
    second = start(beat=True, **lease)  # its reaper (every second) sees the dead claim

    wait_for(
        lambda: Match.objects.filter(pk=match.pk, attempts__gte=2).exists(),
        30,
        "the quick game to be played again, long before its lease runs out",
    )
    wait_for(lambda: task_ended(second, "tournaments.match_run", "'recorded'"), 240, "its end")
    quick.refresh_from_db()
    match.refresh_from_db()
    assert quick.status == Challenge.Status.DONE and match.status == Match.Status.DONE
    # Lost nothing, doubled nothing: its one game, recorded once, counted once.
    assert GameRecord.objects.filter(match__competition=quick.competition).count() == 1
    assert used(owner)["challenge_games_per_day"] == 1
