"""Who may touch a bot: its owner, and staff."""

from __future__ import annotations

from rest_framework import permissions
from rest_framework.request import Request

from bots.models import Bot


def is_owner_or_staff(user, bot: Bot) -> bool:
    return bool(user.is_authenticated and (user.is_staff or bot.owner_id == user.pk))


class IsBotOwnerOrStaff(permissions.BasePermission):
    """Object permission on a Bot (or anything with a ``bot``): writes by owner or staff only."""

    message = "Only the bot's owner (or staff) may do this."

    def has_object_permission(self, request: Request, view, obj) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        bot = obj if isinstance(obj, Bot) else obj.bot
        return is_owner_or_staff(request.user, bot)
