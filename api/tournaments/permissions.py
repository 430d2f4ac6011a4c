"""Who may create and run competitions: the DRF permission classes of the API, on the
framework-neutral rules of ``tournaments.permissions``."""

from __future__ import annotations

from rest_framework import permissions
from rest_framework.request import Request

from tournaments.models import Competition
from tournaments.permissions import can_manage, is_organiser


class IsOrganiserOrReadOnly(permissions.BasePermission):
    """Anyone may read; creating a competition takes an organiser."""

    message = "Only organisers may create competitions."

    def has_permission(self, request: Request, view) -> bool:
        return request.method in permissions.SAFE_METHODS or is_organiser(request.user)


class CanManageCompetition(permissions.BasePermission):
    """Changing a competition takes its creator, one of its organisers, or staff."""

    message = "Only this competition's organisers may change it."

    def has_object_permission(self, request: Request, view, obj: Competition) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return can_manage(competition=obj, user=request.user)
