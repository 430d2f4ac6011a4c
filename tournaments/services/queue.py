"""Queuing matches for the workers: mark pending matches ``queued`` and send their
tasks once the transaction commits.

:func:`matches_enqueue` marks the pending matches of a running competition
``queued`` and, after the transaction commits, sends their tasks
(:func:`send_match_tasks`): one ``tournaments.match_run`` task per match, except for
matches shorter than ``CARDROOM_TASK_GAMES`` games, whose messages would cost more
than playing them. Those go out as a list, one ``tournaments.matches_run`` task that
plays the list's waiting matches one after another. ``lease_until`` of a queued match
is its requeue deadline: if no worker has claimed it by then (its message was lost
with the broker), the reaper (``tournaments.worker.execution.matches_reap``) sends it again.
A duplicate message is harmless. Each competition has a window of messages in the
broker at a time; the rest wait queued in the database for a turn
(:func:`competition_top_up`).

The services that create or free matches (``competition_start``,
``competition_resume``, ``match_retry``, a round's closing) queue them here, so that
every door makes one call per write; ``send`` is the sender (a test's fake, or None
to leave the matches pending for a caller that plays them itself).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from config.task_sending import send_tasks
from tournaments.live import events
from tournaments.models import Competition, Match
from tournaments.services.notify import notify_on_commit

log = logging.getLogger(__name__)

Status = Match.Status

#: Sends the tasks of the given match ids (called after commit).
Sender = Callable[[list[int]], None]


#: The Celery task that plays one match (``tournaments.worker.tasks.match_run``).
MATCH_RUN_TASK = "tournaments.match_run"
#: The Celery task that plays the waiting matches of a list
#: (``tournaments.worker.tasks.matches_run``).
MATCHES_RUN_TASK = "tournaments.matches_run"
#: At most this many match ids in one ``matches_run`` message.
TASK_LIST_MAX = 64


def send_match_tasks(match_ids: list[int]) -> None:
    """Send the tasks that play ``match_ids`` (see :func:`match_tasks`), each on the queue
    of its competition's kind (:func:`match_queue`). Tasks are found by name in the app's
    registry, so that this module needs no import of the tasks that call it.

    The messages of a round go out together (``config.task_sending.send_tasks``: one
    Redis pipeline, where the broker's transport batches publishes), not a round trip
    each. With the broker down the matches stay queued: the reaper sends them again."""
    queues = match_queues(match_ids)
    messages = [
        (name, args, queues.get(first_match(args), settings.CARDROOM_MATCH_QUEUE))
        for name, args in match_tasks(match_ids)
    ]
    send_tasks(messages, unsent=f"matches {match_ids} wait for the reaper")


def first_match(args: list) -> int:
    """The match id of a message's ``args`` (:func:`match_tasks`), the first of a list's."""
    return args[0][0] if isinstance(args[0], list) else args[0]


def match_queue(kind: str) -> str:
    """The queue of the matches of a competition of ``kind`` (``Competition.Kind``): a
    ladder's on ``CARDROOM_LADDER_QUEUE``, a tournament's or a league's (whose next round
    waits on them) on ``CARDROOM_MATCH_QUEUE``, taken first (``CARDROOM_QUEUES``); a
    challenge's on ``CARDROOM_CHALLENGE_QUEUE``, after every competition's and ladder's."""
    if kind == Competition.Kind.LADDER:
        return settings.CARDROOM_LADDER_QUEUE
    if kind == Competition.Kind.CHALLENGE:
        return settings.CARDROOM_CHALLENGE_QUEUE
    return settings.CARDROOM_MATCH_QUEUE


def match_queues(match_ids: list[int]) -> dict[int, str]:
    """The queue of each match of ``match_ids`` (:func:`match_queue`)."""
    kinds = Match.objects.filter(pk__in=match_ids).values_list("pk", "competition__kind")
    return {pk: match_queue(kind) for pk, kind in kinds}


def match_tasks(match_ids: list[int]) -> list[tuple[str, list]]:
    """The messages (task name, arguments) that play ``match_ids``.

    A match of at least ``CARDROOM_TASK_GAMES`` games is one ``match_run(id)``. Shorter
    matches would cost more in messages than in play (a message costs a worker a few
    milliseconds; a one-game match of quick bots, about five), so those of a competition
    go out as one ``matches_run(ids, 0)`` per :data:`TASK_LIST_MAX` of them. That task
    plays the list's waiting matches one after another and, while at least two wait,
    first sends one more such task for the list (:func:`matches_execute`): as many
    workers join in as are free, and a list leaves one task at most that finds nothing.
    """
    short = _short_matches(match_ids)
    messages: list[tuple[str, list]] = []
    lists: dict[int, list[int]] = {}
    for match_id in match_ids:
        competition = short.get(match_id)
        if competition is None:
            messages.append((MATCH_RUN_TASK, [match_id]))
        else:
            lists.setdefault(competition, []).append(match_id)
    for ids in lists.values():
        for at in range(0, len(ids), TASK_LIST_MAX):
            chunk = ids[at : at + TASK_LIST_MAX]
            messages.append(
                (MATCH_RUN_TASK, chunk) if len(chunk) == 1 else (MATCHES_RUN_TASK, [chunk, 0])
            )
    return messages


def _short_matches(match_ids: list[int]) -> dict[int, int]:
    """The competition of each match of ``match_ids`` that is shorter than
    ``CARDROOM_TASK_GAMES`` games (those share tasks)."""
    if settings.CARDROOM_TASK_GAMES <= 1 or len(match_ids) < 2:
        return {}
    return dict(
        Match.objects.filter(
            pk__in=match_ids, competition__games_per_match__lt=settings.CARDROOM_TASK_GAMES
        ).values_list("pk", "competition_id")
    )


def queue_deadline():
    return timezone.now() + timedelta(seconds=settings.CARDROOM_QUEUE_GRACE_S)


def mark_queued_and_send(queryset, send: Sender, *, limit: int | None = None) -> list[int]:
    """Lock the rows of ``queryset`` that nobody else holds (the first ``limit``), mark them
    queued, send after commit those that fit their competition's window
    (:func:`_within_windows`); the others wait queued without a deadline for a turn
    (:func:`competition_top_up`). Returns the ids it queued or sent."""
    with transaction.atomic():
        locked = queryset.select_for_update(skip_locked=True, of=("self",)).order_by("id")
        rows = list(
            locked.values_list(
                "pk", "competition_id", "competition__games_per_match", "status", "lease_until"
            )[:limit]
        )
        if not rows:
            return []
        sent = _within_windows([row[:3] for row in rows])
        chosen = set(sent)
        # Those already waiting for a turn are left as they are (no write).
        held = [
            pk
            for pk, _, _, status, deadline in rows
            if pk not in chosen and not (status == Status.QUEUED and deadline is None)
        ]
        Match.objects.filter(pk__in=sent).update(
            status=Status.QUEUED, claimed_by="", lease_until=queue_deadline()
        )
        if held:
            Match.objects.filter(pk__in=held).update(
                status=Status.QUEUED, claimed_by="", lease_until=None
            )
        if sent:
            transaction.on_commit(lambda: send(sent))
    return sent + held


def competition_window(games_per_match: int) -> int:
    """How many matches of a competition may wait in the broker at a time:
    ``CARDROOM_COMPETITION_WINDOW`` messages' worth (a message plays one match, or a list
    of up to :data:`TASK_LIST_MAX` short ones: :func:`match_tasks`)."""
    short = settings.CARDROOM_TASK_GAMES > 1 and games_per_match < settings.CARDROOM_TASK_GAMES
    return settings.CARDROOM_COMPETITION_WINDOW * (TASK_LIST_MAX if short else 1)


def _within_windows(rows: list[tuple[int, int, int]]) -> list[int]:
    """The ids of ``rows`` (id, competition, games per match) that may be sent now.

    Turns within a kind: each competition has at most :func:`competition_window` matches
    sent and not yet claimed; the rest wait in the database and are sent (to the back of
    the queue) as workers take the competition's work (:func:`competition_top_up`). A
    10-match league's round so waits behind a few messages of a 10,000-match tournament,
    not its whole backlog, however many workers play either."""
    ids = [pk for pk, _, _ in rows]
    waiting = dict(
        Match.objects.filter(
            competition_id__in={c for _, c, _ in rows},
            status=Status.QUEUED,
            lease_until__isnull=False,
        )
        .exclude(pk__in=ids)
        .values_list("competition_id")
        .annotate(count=Count("id"))
        .order_by()
    )
    sent: list[int] = []
    for pk, competition, games in rows:
        if waiting.get(competition, 0) < competition_window(games):
            waiting[competition] = waiting.get(competition, 0) + 1
            sent.append(pk)
    return sent


def competition_top_up(*, match_id: int, send: Sender = send_match_tasks) -> list[int]:
    """Send the matches of ``match_id``'s competition that wait for a turn, as many as fit
    its window (:func:`_within_windows`); a worker calls it as it takes and as it ends the
    competition's work, the reaper for every competition. Returns the ids sent."""
    found = Match.objects.filter(pk=match_id).values_list(
        "competition_id", "competition__games_per_match"
    )
    competition_id, games = found.first() or (None, 0)
    if competition_id is None:
        return []
    return top_up(competition_id, games, send)


def top_up(competition_id: int, games: int, send: Sender) -> list[int]:
    held = Match.objects.filter(
        competition_id=competition_id,
        competition__status=Competition.Status.RUNNING,
        status=Status.QUEUED,
        lease_until=None,
    )
    return mark_queued_and_send(held, send, limit=competition_window(games))


def matches_enqueue(*, competition: Competition, send: Sender = send_match_tasks) -> list[int]:
    """Queue the pending matches of a running ``competition``; tasks go out after commit.

    Returns the ids queued. Inside an outer transaction nothing is sent until it commits.
    """
    pending = Match.objects.filter(
        competition_id=competition.pk,
        competition__status=Competition.Status.RUNNING,
        status=Status.PENDING,
    )
    ids = mark_queued_and_send(pending, send)
    if ids:
        announce_queue_status([competition.pk])
    return ids


def announce_queue_status(competition_ids: Iterable[int]) -> None:
    """A ``queue.changed`` notification of each competition once the transaction commits."""
    for competition_id in competition_ids:
        notify_on_commit(competition_id, events.QUEUE_CHANGED)


def announce_queue_status_of_match(match_id: int) -> None:
    """As :func:`announce_queue_status`; never raises (the change is already made)."""
    try:
        found = Match.objects.filter(pk=match_id).values_list("competition_id", flat=True)
        announce_queue_status(list(found[:1]))
    except Exception:
        log.warning("could not announce the queue status of match %s", match_id, exc_info=True)
