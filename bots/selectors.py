"""Reads on bots: a user's bots, the version that plays, a version's report."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Max, Q, QuerySet

from bots.models import Bot, BotVersion


def bots_for_user(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Bot]:
    """The bots ``user`` owns, by name, each annotated with ``latest_number`` (its newest
    version's number, or None) and ``ready_count`` (how many versions are ready).

    Nothing for an anonymous user.
    """
    if not user.is_authenticated:
        return Bot.objects.none()
    return (
        Bot.objects.filter(owner=user)
        .annotate(
            latest_number=Max("versions__number"),
            ready_count=Count("versions", filter=Q(versions__status=BotVersion.Status.READY)),
        )
        .order_by("name", "id")
    )


def version_for_play(*, bot: Bot, pinned: BotVersion | int | None = None) -> BotVersion | None:
    """The version of ``bot`` to play: its newest ready one, or the ``pinned`` one
    (a version or its number) if that is ready; None when there is nothing ready to play.

    Raises ``ValueError`` when ``pinned`` is a version of another bot.
    """
    ready = BotVersion.objects.filter(bot=bot, status=BotVersion.Status.READY)
    if pinned is None:
        return ready.order_by("-number").first()
    if isinstance(pinned, BotVersion):
        if pinned.bot_id != bot.pk:
            raise ValueError(f"pinned version {pinned} is not a version of {bot}")
        pinned = pinned.number
    return ready.filter(number=pinned).first()


def bot_version_report(*, version: BotVersion) -> dict[str, Any]:
    """What is known of a version, read afresh: identity, status and its validation report.

    ``upload`` summarizes the upload's checks; ``validation`` is what the
    validation match found (None until it has run).
    """
    version = BotVersion.objects.select_related("bot").get(pk=version.pk)
    report = dict(version.validation_report or {})
    upload = report.pop("upload", None)
    return {
        "bot": str(version.bot),
        "bot_id": version.bot_id,
        "number": version.number,
        "status": version.status,
        "runtime": version.runtime,
        "entry_point": version.entry_point,
        "size": version.size,
        "sha256": version.sha256,
        "created_at": version.created_at.isoformat(),
        "upload": upload,
        "validation": report or None,
    }
