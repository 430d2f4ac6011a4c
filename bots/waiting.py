"""Where a validation waits: its place in the validations' queue and an estimated start.

The validations' queue is first come, first served over the validations sent to it,
and each owner has one sent at a time (``bots.services.VALIDATION_WINDOW``): an upload
held for its turn goes to the back of the queue as its owner's one before it starts.
So a sent validation waits behind those sent before it; a held one behind every sent
one and, for each of its owner's held ones before it, about one of every other owner
waiting. The estimate divides that work by the validations running now (at least
one slot) and takes the length of a validation from the last ones that ran.
"""

from __future__ import annotations

import statistics
from datetime import datetime
from typing import Any, NotRequired, TypedDict

from bots.models import BotVersion

#: The report's key of a queued validation (``bots.services.QUEUE_KEY``).
QUEUE_KEY = "queue"
#: A validation's length when none has run yet (seconds).
DEFAULT_VALIDATION_S = 10.0
#: The validations whose length makes the estimate: the last this many.
RECENT = 20


class Place(TypedDict):
    """What the API's ``queue`` object says of work that waits (null once it started)."""

    position: int
    ahead: int
    estimated_start_s: float
    #: Started by a worker that stopped (killed, restarted), and waiting again.
    resumed: NotRequired[bool]


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def waiting_validations() -> list[tuple[int, int | None, dict]]:
    """(version id, owner id, queue entry) of every validation queued and not started."""
    rows = BotVersion.objects.filter(
        status__in=[BotVersion.Status.VALIDATING, BotVersion.Status.READY],
        validation_report__has_key=QUEUE_KEY,
    ).values_list("pk", "bot__owner_id", "validation_report")
    out = []
    for pk, owner, report in rows:
        queue = (report or {}).get(QUEUE_KEY)
        if isinstance(queue, dict) and not queue.get("started_at"):
            out.append((pk, owner, queue))
    return out


def running_validations() -> int:
    rows = BotVersion.objects.filter(
        status__in=[BotVersion.Status.VALIDATING, BotVersion.Status.READY],
        validation_report__queue__has_key="started_at",
    )
    return rows.count()


def validation_length_s() -> float:
    """The median length of the last validations that ran (seconds)."""
    recent = (
        BotVersion.objects.filter(validation_report__has_key="duration_s")
        .order_by("-pk")
        .values_list("validation_report__duration_s", flat=True)[:RECENT]
    )
    lengths = [float(s) for s in recent if isinstance(s, int | float) and s > 0]
    return statistics.median(lengths) if lengths else DEFAULT_VALIDATION_S


def validation_place(version: BotVersion) -> Place | None:
    """Where ``version``'s validation waits; None if it is not waiting (started, done)."""
    mine = (version.validation_report or {}).get(QUEUE_KEY)
    if not isinstance(mine, dict) or mine.get("started_at"):
        return None
    waiting = waiting_validations()
    sent = [(q, pk) for pk, _, q in waiting if not q.get("held")]
    owners = {owner for _, owner, _ in waiting}
    since = _time(mine.get("queued_at"))
    if mine.get("held"):
        earlier_own = sum(
            1
            for pk, owner, q in waiting
            if owner == version.bot.owner_id and q.get("held") and pk != version.pk
            and (_time(q.get("queued_at")) or since) < (since or datetime.max)
        )  # fmt: skip
        ahead = len(sent) + earlier_own * max(1, len(owners) - 1)
    else:
        ahead = sum(
            1
            for q, pk in sent
            if pk != version.pk
            and ((_time(q.get("queued_at")) or since), pk) < (since or datetime.max, version.pk)
        )  # fmt: skip
    return place(ahead, unit_s=validation_length_s(), running=running_validations())


def place(ahead: int, *, unit_s: float, running: int) -> Place:
    """A place behind ``ahead`` pieces of work of about ``unit_s`` seconds each, while
    ``running`` run now (the slots: at least one; half a piece left to each, if busy)."""
    slots = max(1, running)
    start = (ahead // slots + (0.5 if running else 0.0)) * unit_s
    return Place(position=ahead + 1, ahead=ahead, estimated_start_s=round(start, 1))


def validation_owners_waiting(queue: str) -> set[int | None]:
    """The owners of the validations whose messages wait first in ``queue`` (a look at
    the broker, ``config.task_sending.peek``)."""
    from config.task_sending import peek

    ids = [args[0] for task, args in peek([queue]) if task == VALIDATE_TASK and args]
    if not ids:
        return set()
    return set(BotVersion.objects.filter(pk__in=ids).values_list("bot__owner_id", flat=True))


#: The validation task's name (``bots.services.VALIDATE_TASK``).
VALIDATE_TASK = "bots.version_validate"
