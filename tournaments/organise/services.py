"""The organiser right: who may create and run competitions (pausing, resuming and
the other competition writes are :mod:`tournaments.services`)."""

from __future__ import annotations

from django.contrib.auth.models import Permission

#: The permission of the organiser right ("Can create and run competitions").
ORGANISE_CODENAME = "organise_competitions"


def organiser_permission() -> Permission:
    return Permission.objects.get(codename=ORGANISE_CODENAME, content_type__app_label="tournaments")


def organiser_right_set(*, user, granted: bool) -> None:
    """Grant (or with ``granted=False`` take back) the right to create and run
    competitions. Staff hold it anyway; a competition's own organisers keep running it."""
    if granted:
        user.user_permissions.add(organiser_permission())
    else:
        user.user_permissions.remove(organiser_permission())
