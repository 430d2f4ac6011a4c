"""Queuing a version's validation: marked ``validating`` and the task sent after commit,
one owner's validations at a time, more variants asked of a valid version; and which
validations a worker may claim (``config.leases``, the rule matches and version tests
follow too: :func:`validation_claimable`)."""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bots import archive, validation
from bots.models import BotVersion
from config import leases
from config.task_sending import send_task

log = logging.getLogger(__name__)


#: The report's key of a queued validation: ``queued_at``, ``started_at``, ``attempts``.
#: It is dropped when the validation's outcome is written. Who runs it, and until when,
#: is the version's claim (``claimed_by``, ``lease_until``: :func:`validation_claimable`).
QUEUE_KEY = "queue"


#: A validation started this long ago without an outcome lost its worker, when its
#: queue entry does not state its own time limit (``limit_s``, from its matches).
VALIDATION_STALE_S = 600


#: The task's hard time limit comes this long after its soft one.
TASK_HARD_LIMIT_EXTRA_S = 30


#: A started validation is taken for lost only this long after its hard limit too (the
#: pool's kill and the worker's report of it), so that it is never sent again, nor
#: claimed by another worker, while its task may still run: its lease lasts its task's
#: soft limit, the hard one's extra and this (:func:`validation_lease_s`).
LOST_AFTER_HARD_LIMIT_S = 30


#: Validations a worker's claim holds (``config.leases``): their claimer is named.
CLAIMED = ~Q(claimed_by="")

#: Validations that wait for a worker: pending, or queued and not claimed.
WAITING = Q(status=BotVersion.Status.PENDING) | Q(
    ~CLAIMED,
    status__in=[BotVersion.Status.VALIDATING, BotVersion.Status.READY],
    validation_report__has_key=QUEUE_KEY,
)


#: The Celery task that validates a version (``bots.tasks``).
VALIDATE_TASK = "bots.version_validate"


#: A version whose validation failed on the platform this many times is rejected.
VALIDATION_MAX_ATTEMPTS = 3


#: How many validations of one owner wait in the broker at a time (sent, not started):
#: the others wait in the database (``held`` in their queue entry) and are sent, to the
#: back of the queue, as the earlier ones start (:func:`validations_top_up`). So the
#: owners take turns: one user's many uploads are not all ahead of another's one, and
#: an idle worker still finds the next of them as soon as it starts the last.
VALIDATION_WINDOW = 1


#: Sends the validation task of a version id (called after commit).
Sender = Callable[[int], None]


def send_validation_task(version_id: int) -> None:
    """``bots.version_validate`` of ``version_id`` on ``CARDROOM_VALIDATE_QUEUE``, with
    the task limits its queue entry states (``limit_s``: soft, then 30 s more, hard).
    The task is found by name in the app's registry (``config.task_sending``): the tasks
    module calls this one, never the reverse.

    A broker that is down is logged: the version stays queued and
    :func:`bot_versions_requeue` sends it again.
    """
    report = BotVersion.objects.filter(pk=version_id).values_list("validation_report", flat=True)
    queue = ((report.first() or {}).get(QUEUE_KEY)) or {}
    limit_s = _queue_limit_s(queue)
    send_task(
        VALIDATE_TASK,
        (version_id,),
        queue=settings.CARDROOM_VALIDATE_QUEUE,
        soft_time_limit=limit_s,
        time_limit=limit_s + TASK_HARD_LIMIT_EXTRA_S,
        unsent=f"version {version_id} waits to be sent again",
    )


def validation_plans(
    *, version: BotVersion, variants: Sequence[str] | None = None, **overrides: Any
) -> list[validation.VariantPlan]:
    """The validation matches of ``version``: one per variant of ``variants``, else of
    its declaration (every variant when it declares none), dealt from the platform's
    validation secret and a nonce drawn now (``bots.validation.plans``: fresh deals at
    every call, nothing of them in the upload). ``overrides`` go to
    ``bots.validation.plan``. Raises ``ValueError`` for an unknown variant."""
    wanted = list(variants) if variants else validation.variants_to_validate(version.variants)
    return validation.plans(
        wanted,
        secret=validation_secret(),
        match_time_limit_s=settings.CARDROOM_MATCH_TIME_LIMIT_S,
        **overrides,
    )


def validation_secret() -> bytes:
    """The server's secret that validation deals follow from: an HMAC of ``SECRET_KEY``
    (never sent to a bot, nor shown to anyone), so a seed cannot be computed from
    anything a bot or its owner may read."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, b"cardroom-validation-secret", hashlib.sha256).digest()


def bot_version_queue(
    *,
    version: BotVersion,
    variants: Sequence[str] | None = None,
    send: Sender = send_validation_task,
) -> BotVersion:
    """Queue the validation of a ``pending`` version (it becomes ``validating``), or of a
    ``ready`` one in more ``variants`` (it stays ready and plays meanwhile), and send its
    task after commit.

    The report gets ``queue`` (``queued_at``, ``variants``, ``limit_s``: the task's
    time limit); the outcome replaces it. A version in any other state, or already
    queued, is returned unchanged (nothing is sent). Raises ``ValidationError`` keyed
    ``variants`` for an unknown variant, and ``ValueError`` for a built-in version.
    """
    _check_variants(variants or [])
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        if locked.runtime == BotVersion.Runtime.BUILTIN:
            raise ValueError(f"{locked} is a built-in version: there is nothing to validate")
        more = locked.status == BotVersion.Status.READY and bool(variants)
        queued = isinstance(locked.validation_report.get(QUEUE_KEY), dict)
        if (locked.status == BotVersion.Status.PENDING or more) and not queued:
            plans = validation_plans(version=locked, variants=variants)
            queue = {
                "queued_at": timezone.now().isoformat(),
                "attempts": 0,
                "variants": [p.variant for p in plans],
                "limit_s": validation.task_limit_s(plans),
            }
            waiting, _ = _owner_waiting(locked.bot.owner_id, besides=locked.pk)
            if waiting >= VALIDATION_WINDOW:
                queue["held"] = True  # its turn comes when the owner's others start
            if not more:
                locked.status = BotVersion.Status.VALIDATING
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
            locked.save(update_fields=["status", "validation_report"])
            pk = locked.pk
            if not queue.get("held"):
                transaction.on_commit(lambda: send(pk))
    version.status, version.validation_report = locked.status, locked.validation_report
    return version


def _owner_waiting(owner_id: int | None, *, besides: int | None = None) -> tuple[int, list[int]]:
    """The owner's validations sent and not started (how many), and those held for their
    turn (ids, the oldest first); ``besides`` left out."""
    rows = BotVersion.objects.filter(
        bot__owner_id=owner_id,
        status__in=[BotVersion.Status.VALIDATING, BotVersion.Status.READY],
        validation_report__has_key=QUEUE_KEY,
    ).exclude(pk=besides)
    sent, held = 0, []
    for pk, report in rows.values_list("pk", "validation_report"):
        queue = (report or {}).get(QUEUE_KEY)
        if not isinstance(queue, dict) or queue.get("started_at"):
            continue
        if queue.get("held"):
            held.append((str(queue.get("queued_at") or ""), pk))
        else:
            sent += 1
    return sent, [pk for _, pk in sorted(held)]


def validations_top_up(*, owner_id: int | None, send: Sender | None = None) -> list[int]:
    """Send the owner's validations held for their turn, the oldest first, as many as
    :data:`VALIDATION_WINDOW` has room for (after commit; ``send`` defaults to
    :func:`send_validation_task`); called when one of its validations starts, and by the
    periodic requeuing. Returns the ids sent."""
    send = send or send_validation_task
    sent: list[int] = []
    with transaction.atomic():
        waiting, held = _owner_waiting(owner_id)
        for pk in held[: max(0, VALIDATION_WINDOW - waiting)]:
            locked = BotVersion.objects.select_for_update().get(pk=pk)
            queue = locked.validation_report.get(QUEUE_KEY)
            if not isinstance(queue, dict) or not queue.get("held"):
                continue  # sent meanwhile
            queue = {k: v for k, v in queue.items() if k != "held"}
            queue["queued_at"] = timezone.now().isoformat()  # its wait for a worker
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
            locked.save(update_fields=["validation_report"])
            transaction.on_commit(partial(send, pk))
            sent.append(pk)
    return sent


def bot_version_validate_more(
    *, version: BotVersion, variants: Sequence[str], send: Sender = send_validation_task
) -> BotVersion:
    """Ask for a ready version to be validated in ``variants`` as well (those it has not
    passed yet); it keeps playing what it passed meanwhile. Raises ``ValidationError``
    keyed ``variants`` when there is nothing to validate: an unknown variant, none
    given, all passed already, a version that is not ready or already queued."""
    wanted = _check_variants(list(variants))
    passed = set(version.passes.values_list("variant", flat=True))
    todo = [name for name in wanted if name not in passed]
    if not todo:
        raise _variants_error("name at least one variant it has not passed yet")
    if version.status != BotVersion.Status.READY:
        raise _variants_error(f"version {version.number} is {version.status}, not ready")
    if isinstance(version.validation_report.get(QUEUE_KEY), dict):
        raise _variants_error(f"version {version.number} is already being validated")
    return bot_version_queue(version=version, variants=todo, send=send)


def _check_variants(variants: Sequence[str]) -> list[str]:
    try:
        return archive.check_variants(list(variants))
    except ValueError as error:
        raise _variants_error(str(error)) from None


def _variants_error(message: str) -> ValidationError:
    return ValidationError({"variants": ValidationError(message, code="invalid")})


def validation_claimable(*, now: datetime) -> Q:
    """The versions whose validation a worker may claim at ``now`` (``config.leases``):
    waiting (:data:`WAITING`), or claimed by a worker whose lease ran out (the task's hard
    limit and :data:`LOST_AFTER_HARD_LIMIT_S` have passed, or the periodic requeuing
    ended it because that worker's process stopped beating)."""
    return leases.claimable(BotVersion, waiting=WAITING, now=now, holding=CLAIMED)


def validation_lease_s(queue: dict[str, Any]) -> int:
    """How long a claim on a validation lives: until its task cannot be running any more
    (its soft limit, the hard one :data:`TASK_HARD_LIMIT_EXTRA_S` later, and
    :data:`LOST_AFTER_HARD_LIMIT_S`); its task's limits keep it from needing a renewal."""
    return _queue_limit_s(queue) + TASK_HARD_LIMIT_EXTRA_S + LOST_AFTER_HARD_LIMIT_S


def _queue_limit_s(queue: dict[str, Any]) -> int:
    limit = queue.get("limit_s")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit
    return VALIDATION_STALE_S


def _parse_time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
