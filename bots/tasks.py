"""Celery tasks of the bots app: validating uploaded versions off the request, pruning."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from bots import pruning, services
from bots.models import BotVersion


@shared_task(name=services.VALIDATE_TASK, acks_late=True)
def version_validate(version_id: int) -> str:
    """Validate version ``version_id`` (a sandboxed match per variant); safe to run twice.

    Sent with the time limits of its matches (``bots.services.send_validation_task``);
    its soft limit interrupts it as a failed attempt (queued again, rejected after
    three). Returns the version's status afterwards, or ``missing`` for an unknown id.
    """
    version = BotVersion.objects.filter(pk=version_id).first()
    if version is None:
        return "missing"
    return services.bot_version_validate(version=version).status


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
