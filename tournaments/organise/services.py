"""Pausing and resuming a running competition (the rest of its life is in
``tournaments.services``: create, enter, start, close), and the organiser right.

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
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from tournaments.models import Competition, Match
from tournaments.services import can_manage


def _locked_managed(competition: Competition, by) -> Competition:
    locked = Competition.objects.select_for_update().get(pk=competition.pk)
    if by is not None and not can_manage(competition=locked, user=by):
        raise PermissionDenied("only the competition's organisers may do this")
    return locked


@transaction.atomic
def competition_pause(*, competition: Competition, by=None) -> Competition:
    """Running to paused; its queued matches go back to pending. Raises
    ``ValidationError`` unless it is running, ``PermissionDenied`` for a non-organiser."""
    locked = _locked_managed(competition, by)
    if locked.status != Competition.Status.RUNNING:
        raise ValidationError(
            f"only a running competition can be paused; this one is {locked.status}"
        )
    locked.matches.filter(status=Match.Status.QUEUED).update(
        status=Match.Status.PENDING, lease_until=None, claimed_by=""
    )
    locked.status = Competition.Status.PAUSED
    locked.save(update_fields=["status"])
    competition.status = locked.status
    return locked


@transaction.atomic
def competition_resume(*, competition: Competition, by=None) -> Competition:
    """Paused to running. Raises ``ValidationError`` unless it is paused."""
    locked = _locked_managed(competition, by)
    if locked.status != Competition.Status.PAUSED:
        raise ValidationError(
            f"only a paused competition can be resumed; this one is {locked.status}"
        )
    locked.status = Competition.Status.RUNNING
    locked.save(update_fields=["status"])
    competition.status = locked.status
    return locked


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
