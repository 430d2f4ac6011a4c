"""Writes on a bot itself: creating it, its public play and whether it may be challenged."""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction

from bots import allowances
from bots.models import Bot, BotVersion

log = logging.getLogger(__name__)


MAX_NAME_LENGTH = Bot._meta.get_field("name").max_length


def bot_create(*, owner: AbstractBaseUser, name: str, description: str = "") -> Bot:
    """A new bot of ``owner`` named ``name`` (a slug, unique among the owner's bots).

    Raises ``ValidationError`` keyed ``name`` for an invalid or taken name and
    ``bots.allowances.AllowanceExceeded`` when the owner has all the bots allowed.
    """
    if owner is None or owner.pk is None:
        raise ValueError(f"bot_create needs a saved user as owner, got {owner!r}")
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_LENGTH or not _is_slug(name):
        raise ValidationError(
            {
                "name": ValidationError(
                    f"{name!r} is not a valid bot name: use 1 to {MAX_NAME_LENGTH} letters, "
                    f"digits, hyphens or underscores.",
                    code="invalid",
                )
            }
        )
    taken = ValidationError(
        {"name": ValidationError(f"You already have a bot named {name!r}.", code="unique")}
    )
    if Bot.objects.filter(owner=owner, name=name).exists():
        raise taken
    try:
        with transaction.atomic():
            allowances.user_lock(user=owner)
            allowances.allowance_check(
                user=owner, name="bots", used=allowances.bots_used(user=owner)
            )
            return Bot.objects.create(owner=owner, name=name, description=description)
    except IntegrityError:  # created by a concurrent request since the check above
        if Bot.objects.filter(owner=owner, name=name).exists():
            raise taken from None
        raise


def bot_play_set(*, bot: Bot, pinned_number: int | None, active: bool) -> Bot:
    """Which version of ``bot`` plays: ``pinned_number`` pins that ready version (None:
    the newest ready one), ``active=False`` deactivates the bot (pairing skips its
    entries; nothing is forfeited). Takes effect for matches not yet claimed: a match's
    versions are chosen when a worker claims it.

    Raises ``ValidationError`` keyed ``pinned_version`` for a version that does not exist,
    was rejected or is not ready yet, and for a built-in bot (it has no versions to pin).
    """
    pinned = None
    if pinned_number is not None:
        if bot.builtin:
            raise ValidationError({"pinned_version": f"{bot} is built in: it has no versions"})
        pinned = bot.versions.filter(number=pinned_number).first()
        if pinned is None:
            raise ValidationError({"pinned_version": f"{bot} has no version {pinned_number}"})
        if pinned.status == BotVersion.Status.REJECTED:
            raise ValidationError(
                {"pinned_version": f"version {pinned_number} was rejected: pin a ready version"}
            )
        if pinned.status != BotVersion.Status.READY:
            raise ValidationError(
                {
                    "pinned_version": f"version {pinned_number} is {pinned.status}, not ready: "
                    "wait for its validation"
                }
            )
    bot.pinned_version = pinned
    bot.active = active
    bot.save(update_fields=["pinned_version", "active"])
    return bot


def bot_challengeable_set(*, bot: Bot, challengeable: bool) -> Bot:
    """Whether other authors may challenge ``bot`` (``tournaments.services.challenges``; its owner's
    own challenges are not affected). Challenges already asked for still play."""
    bot.challengeable = bool(challengeable)
    bot.save(update_fields=["challengeable"])
    return bot


def _is_slug(name: str) -> bool:
    try:
        validate_slug(name)
    except ValidationError:
        return False
    return True
