"""Who may do what with a competition: the one module every door asks.

Reads (no services) and no web framework: the API's permission classes
(``api.tournaments.permissions``), the HTML pages, the admin, the consumers and the
services themselves call these. Its one write grants or takes back the organiser right
(:func:`organiser_right_set`, from the admin).
"""

from __future__ import annotations

from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied

from tournaments.models import Competition

#: The permission of the organiser right ("Can create and run competitions").
ORGANISE_CODENAME = "organise_competitions"
#: The permission that makes a user an organiser (besides staff).
ORGANISE = f"tournaments.{ORGANISE_CODENAME}"


def is_organiser(user) -> bool:
    """Staff, and users holding the ``organise_competitions`` permission."""
    return bool(user.is_authenticated and (user.is_staff or user.has_perm(ORGANISE)))


def can_manage(*, competition: Competition, user) -> bool:
    """Staff, the creator and the organisers may change a competition."""
    if user is None or not user.is_authenticated:
        return False
    return (
        user.is_staff
        or competition.created_by_id == user.pk
        or competition.organisers.filter(pk=user.pk).exists()
    )


def require_manager(competition: Competition, user) -> None:
    """``PermissionDenied`` unless ``user`` may change ``competition`` (a service called
    without a user, by the platform itself, is never refused)."""
    if user is not None and not can_manage(competition=competition, user=user):
        raise PermissionDenied("only the competition's organisers may do this")


def organiser_permission() -> Permission:
    return Permission.objects.get(codename=ORGANISE_CODENAME, content_type__app_label="tournaments")


def organiser_right_set(*, user, granted: bool) -> None:
    """Grant (or with ``granted=False`` take back) the right to create and run
    competitions. Staff hold it anyway; a competition's own organisers keep running it
    (pausing, resuming and the other competition writes are :mod:`tournaments.services`)."""
    if granted:
        user.user_permissions.add(organiser_permission())
    else:
        user.user_permissions.remove(organiser_permission())
