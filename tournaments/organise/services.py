"""The organiser right; pausing and resuming, now in ``tournaments.services``
beside create, enter, start and close, are still importable from here.

A paused competition queues nothing: matches waiting for a worker go back to
``pending``, the reaper and ``matches_enqueue`` take only running competitions'
matches, and a ladder schedules no batch. Matches already being played finish and
count (a round they complete is still paired, and stays pending); a worker that
receives a task of a paused competition's match does not claim it
(``tournaments.execution.match_claim``). Resuming makes
it running again; the caller then queues its pending matches
(``tournaments.execution.matches_enqueue``), as after a start.
"""

from __future__ import annotations

from django.contrib.auth.models import Permission

# Pausing and resuming live with the other competition writes; these names stay
# importable from here.
from tournaments.services import competition_pause, competition_resume

__all__ = [
    "ORGANISE_CODENAME",
    "competition_pause",
    "competition_resume",
    "organiser_permission",
    "organiser_right_set",
]


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
