"""A validation is claimed with a lease (``config.leases``), as matches and version tests
are: held while its worker's lease lives, taken over once the lease runs out or its
worker process stops beating, and never while that process lives."""

from __future__ import annotations

import importlib
import os
import uuid
from datetime import timedelta

import pytest
import redis
from django.apps import apps
from django.contrib.auth import get_user_model
from django.utils import timezone

from bots.models import BotVersion
from bots.services import (
    QUEUE_KEY,
    bot_create,
    bot_version_queue,
    bot_version_upload,
    bot_versions_requeue,
    validation_queue,
    validation_run,
)
from config import liveness

pytestmark = pytest.mark.django_db


@pytest.fixture
def names():
    """Names of processes of this test alone."""
    tag = uuid.uuid4().hex[:8]
    yield tag
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    for key in client.scan_iter(f"cardroom:*:{tag}*"):
        client.delete(key)


@pytest.fixture
def versions(settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = tmp_path
    owner = get_user_model().objects.create_user("leaser", password="pw-123456789")
    made = []
    for n in range(2):
        bot = bot_create(owner=owner, name=f"leased-{n}")
        version = bot_version_upload(bot=bot, filename="bot.py", content=b"print(1)\n")
        with django_capture_on_commit_callbacks(execute=True):
            made.append(bot_version_queue(version=version, send=lambda pk: None))
    return made


def test_a_claimed_validation_is_not_claimed_again_until_its_lease_runs_out(versions):
    version = versions[0]
    assert validation_run._version_claim(version, revalidate=False, limit_s=600)
    version.refresh_from_db()
    lease_s = validation_queue.validation_lease_s(version.validation_report[QUEUE_KEY])
    assert version.claimed_by == liveness.process_name()
    assert version.lease_until > timezone.now() + timedelta(seconds=lease_s - 60)

    assert not validation_run._version_claim(version, revalidate=False, limit_s=600)
    BotVersion.objects.filter(pk=version.pk).update(lease_until=timezone.now())
    assert validation_run._claimable(version)  # its worker cannot be running it any more


def test_the_requeue_takes_over_at_once_what_a_dead_process_held_and_leaves_a_live_ones(
    versions, names
):
    dead, alive = f"{names}-dead/7", f"{names}-alive/8"
    liveness.beat(dead)
    liveness.stop_beating(dead)
    liveness.beat(alive)
    lease = timezone.now() + timedelta(hours=1)  # far from running out
    for version, holder in zip(versions, (dead, alive), strict=True):
        assert validation_run._version_claim(version, revalidate=False, limit_s=600)
        BotVersion.objects.filter(pk=version.pk).update(claimed_by=holder, lease_until=lease)
    sent: list[int] = []

    assert bot_versions_requeue(older_than_s=3600, send=sent.append) == [versions[0].pk]
    resumed, kept = (BotVersion.objects.get(pk=v.pk) for v in versions)
    assert sent == [resumed.pk] and resumed.claimed_by == "" and resumed.lease_until is None
    assert resumed.validation_report[QUEUE_KEY]["resumed_at"]
    assert "started_at" not in resumed.validation_report[QUEUE_KEY]
    assert validation_run._claimable(resumed)
    assert kept.claimed_by == alive and not validation_run._claimable(kept)


def test_validations_running_when_leases_came_get_the_lease_they_would_have_had(versions):
    started = timezone.now() - timedelta(seconds=100)
    version = versions[0]
    queue = {**version.validation_report[QUEUE_KEY], "limit_s": 300}
    queue.update(started_at=started.isoformat(), worker="host-x/42", attempts=1)
    report = {**version.validation_report, QUEUE_KEY: queue}
    BotVersion.objects.filter(pk=version.pk).update(validation_report=report)

    migration = importlib.import_module("bots.migrations.0015_validation_leases")
    migration.leases_from_reports(apps, None)

    version.refresh_from_db()
    assert version.claimed_by == "host-x/42"
    assert version.lease_until == started + timedelta(seconds=300 + 60)
    assert "worker" not in version.validation_report[QUEUE_KEY]
    other = BotVersion.objects.get(pk=versions[1].pk)  # queued, not started: no claim
    assert other.claimed_by == "" and other.lease_until is None
