"""Celery tasks of the bots app: validating uploaded versions off the request."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from bots import services
from bots.models import BotVersion


@shared_task(name="bots.version_validate", acks_late=True)
def version_validate(version_id: int) -> str:
    """Validate version ``version_id`` (a sandboxed smoke match); safe to run twice.

    Returns the version's status afterwards, or ``missing`` for an unknown id.
    """
    version = BotVersion.objects.filter(pk=version_id).first()
    if version is None:
        return "missing"
    return services.bot_version_validate(version=version).status


@shared_task(name="bots.versions_requeue")
def versions_requeue() -> list[int]:
    """Periodic: send again the validations lost with the broker or with their worker."""
    return services.bot_versions_requeue(older_than_s=settings.CARDROOM_VALIDATE_GRACE_S)
