"""The version tests whose message was lost: sent again by the reaper.

A pending test waits for a worker with a requeue deadline (its ``lease_until``, set as its
task is sent: ``tournaments.services.version_tests.send_version_test_task``), as a queued match
does. A broker restarted without persistence loses the messages that waited in it; no
worker ever takes those tests, and their deadline passes. The reaper sends them again.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from tournaments.models import VersionTest
from tournaments.services.version_tests import Sender, send_version_test_task


def version_tests_resend(*, send: Sender | None = send_version_test_task) -> list[int]:
    """Pending tests whose requeue deadline passed (sent, and no worker took them since),
    sent again with a new deadline; their ids. A pending test without a deadline (sent
    before tests had one) counts from its creation (``CARDROOM_QUEUE_GRACE_S``). Called by
    the reaper (``tournaments.matches_reap``); a duplicate message is harmless: the first
    to claim the test plays it, the other finds it held or done."""
    now = timezone.now()
    since = now - timedelta(seconds=settings.CARDROOM_QUEUE_GRACE_S)
    lost = VersionTest.objects.filter(
        Q(lease_until__lt=now) | Q(lease_until__isnull=True, created_at__lt=since),
        status=VersionTest.Status.PENDING,
    )
    ids = list(lost.order_by("pk").values_list("pk", flat=True))
    if send is not None:
        for pk in ids:
            send(pk)
    return ids
