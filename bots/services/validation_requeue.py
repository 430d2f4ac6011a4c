"""The periodic requeue of validations: those whose task was lost or whose worker
died are sent again, or taken up where they stopped."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from bots.models import BotVersion
from bots.services.validation_queue import (
    CLAIMED,
    QUEUE_KEY,
    Sender,
    _parse_time,
    send_validation_task,
    validations_top_up,
)
from config import leases

log = logging.getLogger(__name__)


def bot_versions_requeue(*, older_than_s: float, send: Sender = send_validation_task) -> list[int]:
    """Send again the queued validations that have not started ``older_than_s`` after
    being queued, and those whose worker is gone: their claim's lease ran out (their
    task's hard time limit, ``limit_s`` and :data:`TASK_HARD_LIMIT_EXTRA_S`, and
    :data:`LOST_AFTER_HARD_LIMIT_S` have passed, so never one that may still run), or
    their worker process stopped beating (``config.leases.expire_the_dead``: taken over
    at once); and those held for their turn whose owner has room
    (:func:`validations_top_up`). Returns their ids; safe to run at any time.
    """
    now = timezone.now()
    leases.expire_the_dead(BotVersion.objects.filter(CLAIMED), now=now)
    waiting = BotVersion.objects.filter(
        status__in=[BotVersion.Status.VALIDATING, BotVersion.Status.READY],
        validation_report__has_key=QUEUE_KEY,
    ).values_list("pk", "validation_report", "bot__owner_id", "claimed_by", "lease_until")
    ids, owners = [], set()
    for pk, report, owner, claimed_by, until in waiting:
        queue = (report or {}).get(QUEUE_KEY)
        if not isinstance(queue, dict):
            continue
        if queue.get("held") and not claimed_by:
            owners.add(owner)  # waits for its turn: sent below if the owner has room
            continue
        if claimed_by:
            due = (until is None or until < now) and _version_resume(pk, now=now)
        else:
            queued = _parse_time(queue.get("queued_at"))
            due = queued is None or queued + timedelta(seconds=older_than_s) < now
        if due:
            ids.append(pk)
            send(pk)
    for owner in owners:  # a lost top-up
        ids += validations_top_up(owner_id=owner, send=send)
    return ids


def _version_resume(pk: int, *, now) -> bool:
    """A validation whose claim ran out (``config.leases``) waits again, resumed: queued
    now, not claimed nor started, ``resumed_at`` set (the page says so); False if it was
    claimed again meanwhile."""
    with transaction.atomic():
        expired = leases.expired(BotVersion, now=now, holding=CLAIMED)
        locked = BotVersion.objects.select_for_update().filter(expired, pk=pk).first()
        queue = None if locked is None else locked.validation_report.get(QUEUE_KEY)
        if not isinstance(queue, dict):
            return False
        stamp = timezone.now().isoformat()
        queue = {k: v for k, v in queue.items() if k not in ("started_at", "worker")}
        queue.update(queued_at=stamp, resumed_at=stamp)
        locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
        released = leases.released()
        for field, value in released.items():
            setattr(locked, field, value)
        locked.save(update_fields=["validation_report", *released])
    log.warning("validation of version %s resumed: its worker stopped", pk)
    return True
