"""Celery tasks of the bots app: validating uploaded versions off the request, pruning."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from bots import links, pruning, services
from bots import waiting as waiting_work
from bots.models import BotVersion
from config import fairshare
from config.task_sending import send_task

log = logging.getLogger(__name__)


@shared_task(bind=True, name=services.VALIDATE_TASK, acks_late=True)
def version_validate(self, version_id: int, yields: int = 0) -> str:
    """Validate version ``version_id`` (a sandboxed match per variant); safe to run twice.

    Sent with the time limits of its matches (``bots.services.send_validation_task``);
    its soft limit interrupts it as a failed attempt (queued again, rejected after
    three). Returns the version's status afterwards, ``missing`` for an unknown id, or
    ``yielded`` when its owner used more than their share of worker seconds lately while
    another owner's validation waits: it is sent again for a few seconds later
    (``config.fairshare``; ``yields`` counts how often).
    """
    version = BotVersion.objects.filter(pk=version_id).select_related("bot").first()
    if version is None:
        return "missing"
    owner = fairshare.owner(links.linked_owner(version.bot.owner_id))
    if _gives_turn(self, version_id, owner, yields):
        return "yielded"
    fairshare.begin([owner], day_of=owner)
    try:
        return services.bot_version_validate(version=version).status
    finally:
        fairshare.end()


def _gives_turn(task, version_id: int, owner: str | None, yields: int) -> bool:
    """Whether the validation gives its turn to another owner's that waits (its owner
    holds a slot of the users' lane already, or used more than their share lately:
    ``config.fairshare``); if so it is sent again for later."""
    queue = (task.request.delivery_info or {}).get("routing_key")
    if queue is None:  # called directly: no queue to share
        return False
    mine = int(owner.partition(":")[2]) if owner else None
    waiting = {links.linked_owner(o) for o in waiting_work.validation_owners_waiting(queue)}
    others_wait = bool(waiting - {mine})
    found = {fairshare.owner(o) or "owner:" for o in waiting}  # None: nobody's
    why = fairshare.users_unit_gives_turn(
        owner, [owner], yields=yields, others_wait=others_wait, waiting=found
    )
    if why is None:
        return False
    log.info("version %s gives its turn (%s, %d times)", version_id, why, yields + 1)
    hard, soft = task.request.timelimit or (None, None)
    return send_task(
        services.VALIDATE_TASK,
        [version_id],
        queue=queue,
        kwargs={"yields": yields + 1},
        countdown=fairshare.YIELD_S,
        soft_time_limit=soft,
        time_limit=hard,
        unsent=f"version {version_id} waits to be sent again",
    )


@shared_task(name="bots.versions_requeue")
def versions_requeue() -> list[int]:
    """Periodic: send again the validations lost with the broker or with their worker."""
    return services.bot_versions_requeue(older_than_s=settings.CARDROOM_VALIDATE_GRACE_S)


@shared_task(name="bots.versions_prune")
def versions_prune() -> int:
    """Periodic: delete the versions that will never play again (``bots.pruning``)."""
    return len(
        pruning.bot_versions_prune(older_than_days=settings.CARDROOM_PRUNE_AFTER_DAYS).versions
    )
