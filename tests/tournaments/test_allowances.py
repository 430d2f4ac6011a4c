"""Allowances count what was played: games reserved while a version test or a challenge
runs, and given back when it ends by a cancel, an early decision or a failure. Cancelling
stops the work in play between two decisions."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from bots import builtin
from bots.allowances import AllowanceExceeded
from bots.builtin.random_bot import RandomBot
from bots.models import Bot, BotVersion
from config import leases
from tests.factories import builtin_version, passed, play_to_the_end
from tournaments.models import Challenge, GameRecord, Match, VersionTest
from tournaments.selectors.allowance_use import usage_for_user
from tournaments.services import challenges, version_tests
from tournaments.worker import execution, tasks, version_test_slices

pytestmark = pytest.mark.django_db

#: How long the ``slow`` built-in takes to decide.
DECISION_S = 0.05
#: The most decisions of ``slow`` bots after a cancel: those within one look of the watch
#: (``leases.WATCH_S``), the one in play, and one for the clock's slack. A whole deal
#: of manni-basic asks the two versions for about 60.
AFTER_CANCEL_MAX = round(leases.WATCH_S / DECISION_S) + 2


class SlowBot(RandomBot):
    """Random, :data:`DECISION_S` a decision; calls ``SlowBot.at_act(n)`` at its n-th
    decision (a test's way to cancel in the middle of a deal)."""

    acts = 0
    at_act = staticmethod(lambda n: None)

    def act(self, observation, legal):
        SlowBot.acts += 1
        SlowBot.at_act(SlowBot.acts)
        time.sleep(DECISION_S)
        return super().act(observation, legal)


@pytest.fixture
def slow():
    """The ``slow`` built-in, for this module's tests only, its count of decisions reset."""
    builtin.register("slow", SlowBot)
    SlowBot.acts, SlowBot.at_act = 0, staticmethod(lambda n: None)
    yield SlowBot
    builtin.unregister("slow")


@pytest.fixture
def owner():
    return get_user_model().objects.create_user("ada", password="pw-123456")


@pytest.fixture
def bot(owner) -> Bot:
    """Versions 1 and 3 play random, 2 greedy, 4 and 5 the ``slow`` built-in."""
    bot = Bot.objects.create(owner=owner, name="learner", builtin="random")
    for number, plays in ((1, "random"), (2, "greedy"), (3, "random"), (4, "slow"), (5, "slow")):
        builtin_version(bot, number, plays)
    return bot


def used(user) -> dict[str, int]:
    return {row["name"]: row["used"] for row in usage_for_user(user=user)}


def sprt(bot, owner, **kw) -> VersionTest:
    args = {"new": 2, "old": 1, "variant": "manni-basic", "elo1": 50.0, "by": owner, "send": None}
    return version_tests.version_test_create(bot=bot, **{**args, **kw})


def ask(bot, by, **kw) -> Challenge:
    args = {"opponents": ["builtin:greedy"], "variant": "money-jordan", "send": None}
    return challenges.challenge_create(bot=bot, by=by, **{**args, **kw})


def play(match_ids) -> list[str]:
    return [execution.match_execute(match_id=pk, claimed_by="test", send=None) for pk in match_ids]


# -- version tests ----------------------------------------------------------------------------


def test_an_sprt_that_decides_early_counts_the_games_it_played(bot, owner):
    test = sprt(bot, owner)  # up to 20,000 games
    VersionTest.objects.filter(pk=test.pk).update(seed=20261201)  # fixed deals: no flake
    assert used(owner)["version_test_games_per_day"] == 20_000  # reserved while it may play

    play_to_the_end(test, slice_s=3600)

    test.refresh_from_db()
    assert test.decision == "H1" and test.trials * 3 < 20_000
    assert used(owner)["version_test_games_per_day"] == test.trials * 3  # three seats a deal
    assert used(owner)["open_version_tests"] == 0


def test_a_cancelled_and_a_failed_test_give_back_the_games_they_did_not_play(bot, owner):
    cancelled = sprt(bot, owner, max_games=9_000)
    version_test_slices.version_test_play(test_id=cancelled.pk, slice_s=0.0, send=None)  # one deal
    version_tests.version_test_cancel(test=cancelled, by=owner)
    broken = BotVersion.objects.create(
        bot=bot, number=9, runtime="python", entry_point="bot.py", sha256="0" * 64, status="ready"
    )  # no files were ever stored for it
    passed(broken, "manni-basic")
    failed = sprt(bot, owner, new=9, max_games=6_000)
    assert used(owner)["version_test_games_per_day"] == 3 + 6_000  # played, reserved

    assert version_test_slices.version_test_play(test_id=failed.pk, send=None) == "failed"

    assert used(owner)["version_test_games_per_day"] == 3  # the one deal played


def test_a_version_test_cancelled_in_play_stops_between_two_decisions(bot, owner, slow):
    test = sprt(bot, owner, new=4, old=5)

    def cancel(n: int) -> None:
        if n == 1:  # in the middle of the first deal
            version_tests.version_test_cancel(test=test, by=owner)

    slow.at_act = cancel
    outcome = version_test_slices.version_test_play(test_id=test.pk, slice_s=3600, send=None)

    assert outcome == "cancelled"
    assert slow.acts <= 1 + AFTER_CANCEL_MAX  # not the rest of the deal
    test.refresh_from_db()
    assert (test.status, test.trials, test.lease_until) == ("cancelled", 0, None)
    assert used(owner)["version_test_games_per_day"] == 0
    assert used(owner)["open_version_tests"] == 0


def test_a_deal_longer_than_a_task_may_run_fails_the_test_saying_so(bot, owner, slow, settings):
    settings.CELERY_TASK_SOFT_TIME_LIMIT = version_test_slices.TIME_LIMIT_MARGIN_S + 1
    test = sprt(bot, owner, new=4, old=5)

    assert (
        version_test_slices.version_test_play(test_id=test.pk, slice_s=3600, send=None) == "failed"
    )

    test.refresh_from_db()
    assert test.status == "failed" and "too slow to test" in test.error
    assert test.trials == 0 and test.lease_until is None


def test_the_reaper_sends_again_a_test_whose_worker_died_and_no_other(
    bot, owner, settings, monkeypatch
):
    settings.CARDROOM_ALLOWANCE_OPEN_VERSION_TESTS = 5
    dead, held, cancelled = sprt(bot, owner), sprt(bot, owner), sprt(bot, owner)
    now = timezone.now()
    VersionTest.objects.filter(pk=dead.pk).update(status="running", lease_until=now)
    VersionTest.objects.filter(pk=held.pk).update(
        status="running", lease_until=now + timedelta(seconds=version_test_slices.LEASE_S)
    )
    VersionTest.objects.filter(pk=cancelled.pk).update(status="cancelled", lease_until=now)
    sent: list[tuple] = []
    monkeypatch.setattr(version_tests, "send_task", lambda *a, **kw: sent.append(a))

    reaped = tasks.matches_reap()  # the periodic task

    assert reaped["version_tests"] == [dead.pk]
    assert sent == [(version_tests.VERSION_TEST_TASK, [dead.pk])]
    assert version_test_slices.version_tests_reap() == []  # sent once, not at every pass
    dead.refresh_from_db()
    assert dead.status == "pending" and dead.lease_until > timezone.now()  # its requeue deadline
    assert (
        version_test_slices.version_test_play(test_id=dead.pk, slice_s=0.0, send=None)
        == "continued"
    )


def test_a_worker_whose_test_was_taken_over_writes_nothing_more(bot, owner):
    test = sprt(bot, owner)
    version_test_slices.version_test_play(test_id=test.pk, slice_s=0.0, send=None)  # deal 1
    stale = version_test_slices._claim(test.pk)  # a worker that then hangs past its lease
    VersionTest.objects.filter(pk=test.pk).update(lease_until=timezone.now())
    version_test_slices.version_tests_reap(send=None)
    version_test_slices.version_test_play(
        test_id=test.pk, slice_s=0.0, send=None
    )  # deal 2, elsewhere

    assert not stale.still_held()
    assert not stale.write(trials=99)
    test.refresh_from_db()
    assert test.trials == 2


# -- challenges ---------------------------------------------------------------------------


def test_a_challenge_cancelled_at_once_gives_back_the_games_it_did_not_play(owner, bot, settings):
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 2_000
    small = ask(bot, owner, games=20)  # two matches of ten games
    play(small.competition.matches.values_list("pk", flat=True))
    big = ask(bot, owner, games=1_000)
    assert used(owner)["challenge_games_per_day"] == 1_020  # reserved while it runs
    with pytest.raises(AllowanceExceeded):
        ask(bot, owner, games=1_000)
    play(big.competition.matches.order_by("id").values_list("pk", flat=True)[:1])

    challenges.challenge_cancel(challenge=big, by=owner)

    assert used(owner)["challenge_games_per_day"] == 30  # what was played
    assert ask(bot, owner, games=1_000).games == 1_000  # the rest is free again


def test_a_failed_match_gives_its_games_back(owner, bot):
    challenge = ask(bot, owner, games=16)  # two matches of eight games
    failing, played = challenge.competition.matches.order_by("id")
    assert used(owner)["challenge_games_per_day"] == 16  # reserved
    execution.match_claim(match_id=failing.pk, claimed_by="w")

    execution.match_fail(match_id=failing.pk, claimed_by="w", error="boom")

    assert used(owner)["challenge_games_per_day"] == 8  # the other match may still play
    play([played.pk])

    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.DONE
    assert used(owner)["challenge_games_per_day"] == 8


def test_a_challenge_match_in_play_stops_when_the_challenge_is_cancelled(owner, slow):
    sloth = Bot.objects.create(owner=owner, name="sloth", builtin="slow")  # plays ``slow``
    builtin_version(sloth, 1, "slow")
    challenge = ask(sloth, owner, games=2)
    match = challenge.competition.matches.get()

    def cancel(n: int) -> None:
        if n == 1:
            challenges.challenge_cancel(challenge=challenge, by=owner)

    slow.at_act = cancel
    assert play([match.pk]) == ["refused"]

    assert slow.acts <= 1 + AFTER_CANCEL_MAX
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED and match.error == challenges.CANCELLED_IN_PLAY
    assert not GameRecord.objects.filter(match=match).exists()
    assert used(owner)["challenge_games_per_day"] == 0
    assert used(owner)["open_challenges"] == 0


def test_a_deal_longer_than_a_version_tests_deal_budget_fails_the_test_well_within_the_task(
    bot, owner, slow, settings, monkeypatch
):
    # A task may run half an hour; a deal of bots that sleep just under their move time
    # may not hold its slot that long: it is cut at the deal budget (here 1 s).
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 1800
    monkeypatch.setattr(version_test_slices, "DEAL_LIMIT_S", 1.0)
    test = sprt(bot, owner, new=4, old=5)

    started = time.monotonic()
    assert (
        version_test_slices.version_test_play(test_id=test.pk, slice_s=3600, send=None) == "failed"
    )

    assert time.monotonic() - started < 30
    test.refresh_from_db()
    assert test.status == "failed" and "longer than 1 s" in test.error
