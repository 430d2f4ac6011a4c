"""Uploads are validated on a worker: queued, claimed once, sent again when lost."""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.auth import get_user_model
from django.utils import timezone

from bots import services, validation
from bots.models import BotVersion
from bots.services import (
    QUEUE_KEY,
    VALIDATION_MAX_ATTEMPTS,
    VALIDATION_STALE_S,
    bot_create,
    bot_version_queue,
    bot_version_upload,
    bot_version_validate,
    bot_versions_requeue,
    validation_queue,
    validation_run,
)
from bots.tasks import version_validate, versions_requeue

pytestmark = pytest.mark.django_db

BOT = b"print('hello')\n"


@pytest.fixture
def version(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    owner = get_user_model().objects.create_user("uploader", password="pw-123456789")
    bot = bot_create(owner=owner, name="queued")
    return bot_version_upload(bot=bot, filename="bot.py", content=BOT)


def queued(version, django_capture_on_commit_callbacks) -> tuple[BotVersion, list[int]]:
    sent: list[int] = []
    with django_capture_on_commit_callbacks(execute=True):
        version = bot_version_queue(version=version, send=sent.append)
    return version, sent


def shift(version: BotVersion, **ago_s: float) -> None:
    """Move the queue's timestamps (``queued_at``, ``started_at``) into the past; a
    ``started_at`` is a worker's claim taken then (``config.leases``), by another process
    (one that never beat: only its lease ends it) unless the version is claimed already."""
    version.refresh_from_db()
    queue = dict(version.validation_report[QUEUE_KEY])
    claim = {}
    for key, seconds in ago_s.items():
        at = timezone.now() - timedelta(seconds=seconds)
        queue[key] = at.isoformat()
        if key == "started_at":
            lease_s = validation_queue.validation_lease_s(queue)
            claimed_by = version.claimed_by or "another-host/1"
            claim = {"claimed_by": claimed_by, "lease_until": at + timedelta(seconds=lease_s)}
    report = {**version.validation_report, QUEUE_KEY: queue}
    BotVersion.objects.filter(pk=version.pk).update(validation_report=report, **claim)


def test_queueing_marks_the_version_validating_and_sends_it_after_commit(
    version, django_capture_on_commit_callbacks
):
    version, sent = queued(version, django_capture_on_commit_callbacks)

    assert version.status == "validating" and sent == [version.pk]
    assert version.validation_report[QUEUE_KEY]["attempts"] == 0
    again, sent_again = queued(version, django_capture_on_commit_callbacks)
    assert again.status == "validating" and sent_again == []  # queued once


def test_a_validation_already_started_is_not_run_twice(
    version, django_capture_on_commit_callbacks, monkeypatch
):
    version, _ = queued(version, django_capture_on_commit_callbacks)
    shift(version, started_at=1)  # another worker is on it

    def played(*args, **kwargs):
        raise AssertionError("validated twice")

    monkeypatch.setattr(validation_run, "_validation_match", played)
    assert bot_version_validate(version=BotVersion.objects.get(pk=version.pk)).status == (
        "validating"
    )


def test_requeue_sends_lost_and_stale_validations_only(version, django_capture_on_commit_callbacks):
    version, _ = queued(version, django_capture_on_commit_callbacks)
    sent: list[int] = []

    assert bot_versions_requeue(older_than_s=60, send=sent.append) == []
    shift(version, queued_at=120)
    assert bot_versions_requeue(older_than_s=60, send=sent.append) == [version.pk]
    limit_s = version.validation_report[QUEUE_KEY]["limit_s"]
    shift(version, started_at=10)
    assert bot_versions_requeue(older_than_s=60, send=sent.append) == []  # a worker is on it
    shift(version, started_at=limit_s - 10)
    assert bot_versions_requeue(older_than_s=60, send=sent.append) == []  # still within its limit
    # Past its soft limit its task may still run until the hard one (30 s later) kills it.
    hard_s = limit_s + services.TASK_HARD_LIMIT_EXTRA_S
    shift(version, started_at=hard_s - 5)
    assert bot_versions_requeue(older_than_s=60, send=sent.append) == []
    assert not validation_run._claimable(
        BotVersion.objects.get(pk=version.pk)
    )  # nor taken by another
    shift(version, started_at=hard_s + services.LOST_AFTER_HARD_LIMIT_S + 10)
    assert bot_versions_requeue(older_than_s=60, send=sent.append) == [version.pk]
    assert validation_run._claimable(BotVersion.objects.get(pk=version.pk))
    assert sent == [version.pk, version.pk]


def passed(version, plan, options) -> dict:
    """A validation match every game of which went well (no bot run)."""
    ok = {"status": "ok"}
    return {
        **plan.describe(), "options": options or {}, "ok": True, "statuses": [ok, ok],
        "reasons": [], "stderr_tail": "", "duration_s": 0.0,
    }  # fmt: skip


def test_owners_take_turns_in_the_validations_queue(
    settings, tmp_path, django_capture_on_commit_callbacks, monkeypatch
):
    """One user's uploads wait in the database, one at a time in the broker: another
    user's upload, sent after them, is not behind them all, and each is sent (to the
    back of the queue) as the one before it starts."""
    settings.MEDIA_ROOT = tmp_path
    users = get_user_model().objects
    alice = bot_create(owner=users.create_user("alice", password="pw-123456789"), name="a")
    bob = bot_create(owner=users.create_user("bob", password="pw-123456789"), name="b")
    sent: list[int] = []
    monkeypatch.setattr(validation_queue, "send_validation_task", sent.append)  # top-ups' default

    def upload(bot, n: int) -> BotVersion:
        content = BOT + f"# {n}\n".encode()
        with django_capture_on_commit_callbacks(execute=True):
            version = bot_version_upload(bot=bot, filename="bot.py", content=content)
            return bot_version_queue(version=version, send=sent.append)

    hers = [upload(alice, n) for n in range(3)]
    his = upload(bob, 0)

    def held() -> list[int]:
        return [
            v.pk for v in BotVersion.objects.filter(bot__in=[alice, bob]).order_by("pk")
            if v.validation_report.get(QUEUE_KEY, {}).get("held")
        ]  # fmt: skip

    assert sent == [hers[0].pk, his.pk]
    assert held() == [hers[1].pk, hers[2].pk]
    mine = BotVersion.objects.filter(pk__in=[*(v.pk for v in hers), his.pk])
    assert set(mine.values_list("status", flat=True)) == {"validating"}
    # Her first waits in the broker: the requeuing sends none of the others.
    assert bot_versions_requeue(older_than_s=3600, send=sent.append) == []

    # A worker starts her first: her second is sent, not her third.
    monkeypatch.setattr(validation_run, "_validation_match", passed)
    with django_capture_on_commit_callbacks(execute=True):
        done = bot_version_validate(version=BotVersion.objects.get(pk=hers[0].pk))
    assert done.status == "ready"
    assert sent == [hers[0].pk, his.pk, hers[1].pk] and held() == [hers[2].pk]

    # Her second starts on a worker that dies before its top-up: the requeuing sends her
    # third once the second has started, not before.
    second = BotVersion.objects.get(pk=hers[1].pk)
    assert validation_run._version_claim(second, revalidate=False, limit_s=600)
    assert held() == [hers[2].pk]
    with django_capture_on_commit_callbacks(execute=True):
        assert bot_versions_requeue(older_than_s=3600, send=sent.append) == [hers[2].pk]
    assert sent[-1] == hers[2].pk and held() == []


def test_a_validation_task_limit_is_minutes_derived_from_its_matches(
    version, django_capture_on_commit_callbacks, monkeypatch, settings
):
    version, _ = queued(version, django_capture_on_commit_callbacks)
    plans = services.validation_plans(version=version)
    sent = {}

    def apply_async(args, **options):
        sent.update(options, args=args)

    # The task the worker runs: the service finds it by name in the app's registry.
    monkeypatch.setattr(version_validate, "apply_async", apply_async)
    services.send_validation_task(version.pk)

    limit_s = version.validation_report[QUEUE_KEY]["limit_s"]
    assert limit_s == validation.task_limit_s(plans) > VALIDATION_STALE_S  # ten variants
    assert 60 < limit_s < 2 * 3600
    assert sent["soft_time_limit"] == limit_s and sent["time_limit"] > limit_s
    assert sent["args"] == (version.pk,) and sent["queue"] == settings.CARDROOM_VALIDATE_QUEUE


def test_a_soft_time_limit_counts_as_a_failed_attempt_and_says_so(
    version, django_capture_on_commit_callbacks, monkeypatch
):
    version, _ = queued(version, django_capture_on_commit_callbacks)

    def too_long(*args, **kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(validation_run, "_validation_match", too_long)
    for attempt in range(1, VALIDATION_MAX_ATTEMPTS + 1):
        with pytest.raises(SoftTimeLimitExceeded):
            bot_version_validate(version=BotVersion.objects.get(pk=version.pk))
        queue = BotVersion.objects.get(pk=version.pk).validation_report.get(QUEUE_KEY)
        if attempt < VALIDATION_MAX_ATTEMPTS:
            assert queue["attempts"] == attempt and "started_at" not in queue

    final = BotVersion.objects.get(pk=version.pk)
    assert final.status == "rejected"
    minutes = round(version.validation_report[QUEUE_KEY]["limit_s"] / 60)
    assert final.validation_report["reasons"] == [
        f"the validation did not finish within its limit of {minutes} min, 3 times"
    ]


def test_the_periodic_task_uses_the_grace_setting(settings, monkeypatch):
    seen = {}
    monkeypatch.setattr(services, "bot_versions_requeue", lambda **kw: seen.update(kw) or [7])
    settings.CARDROOM_VALIDATE_GRACE_S = 42

    assert versions_requeue() == [7] and seen == {"older_than_s": 42}


def test_a_platform_error_queues_again_then_rejects(
    version, django_capture_on_commit_callbacks, monkeypatch
):
    version, _ = queued(version, django_capture_on_commit_callbacks)

    def broken(*args, **kwargs):
        raise RuntimeError("referee bug")

    monkeypatch.setattr(validation_run, "_validation_match", broken)
    for _ in range(VALIDATION_MAX_ATTEMPTS):
        assert BotVersion.objects.get(pk=version.pk).status == "validating"
        with pytest.raises(RuntimeError):
            bot_version_validate(version=BotVersion.objects.get(pk=version.pk))

    final = BotVersion.objects.get(pk=version.pk)
    assert final.status == "rejected"
    assert "failed to validate it 3 times" in final.validation_report["reasons"][0]
    assert final.validation_report["upload"]["filename"] == "bot.py"
