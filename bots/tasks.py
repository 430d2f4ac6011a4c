"""Celery tasks of the bots app: validating an uploaded version off the request."""

from __future__ import annotations

from celery import shared_task

from bots import services
from bots.models import BotVersion


@shared_task(name="bots.version_validate", acks_late=True)
def version_validate(version_id: int) -> str:
    """Validate version ``version_id`` (a sandboxed smoke match); safe to run twice."""
    version = BotVersion.objects.filter(pk=version_id).first()
    if version is None:
        return "missing"
    return services.bot_version_validate(version=version).status
