"""Who may do what with a competition: the one module every door asks.

Reads only (no writes, no services) and no web framework: the API's permission
classes (``tournaments.api.permissions``), the HTML pages, the admin, the consumers
and the services themselves call these.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from tournaments.models import Competition

#: The permission that makes a user an organiser (besides staff).
ORGANISE = "tournaments.organise_competitions"


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
