"""Running a version's validation on a worker: claimed once, played against the
built-ins in the sandbox, and its outcome recorded (``bots.version_validate`` runs
:func:`bot_version_validate`; commands and tests may call it directly)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

import games
from bots import sandbox, validation
from bots.models import BotVersion, VersionVariantPass
from bots.referee import Player, TimeControl
from bots.referee.seating import seat_player
from bots.sandbox import isolation
from bots.services.uploads import bot_version_path
from bots.services.validation_queue import (
    LOST_AFTER_HARD_LIMIT_S,
    QUEUE_KEY,
    TASK_HARD_LIMIT_EXTRA_S,
    VALIDATION_MAX_ATTEMPTS,
    _queue_limit_s,
    validation_claimable,
    validation_lease_s,
    validation_plans,
    validations_top_up,
)
from config import leases, liveness, metrics

log = logging.getLogger(__name__)


def bot_version_validate(
    *,
    version: BotVersion,
    variants: Sequence[str] | None = None,
    variant: str | None = None,
    games_count: int | None = None,
    options: dict[str, Any] | None = None,
    time_control: TimeControl | None = None,
    limits: sandbox.Limits | None = None,
    revalidate: bool = False,
) -> BotVersion:
    """Play a short sandboxed match with ``version`` in each of its variants and keep
    the variants it passed (``VersionVariantPass``).

    The variants are ``variants`` (or the one ``variant``), else the ones its queue
    entry asks for, else its declaration (every variant when it declares none); each
    match is planned by ``bots.validation.plan``, as a real match of the variant on
    fresh deals (``games_count``, ``time_control`` and ``limits`` replace the planned
    ones). The bot takes a drawn seat against built-in players; it passes a variant
    when every game ended with status ``ok``. A version
    being validated for the first time becomes ``ready`` when it passed them all, else
    ``rejected``; a ready one stays ready and only gains passes. The report keeps the
    ``upload`` summary and adds ``ok``, ``variants`` (per variant: the plan, ``ok``,
    ``statuses``, ``reasons``, ``stderr_tail``, ``duration_s``), ``passed``, and, over
    all variants, ``reasons``, ``statuses``, ``stderr_tail`` and ``duration_s``
    (``bots.validation.report_lines`` words it). No sandbox on this host means
    rejected, with that reason.

    A ``pending`` version is validated, and a queued one (:func:`bot_version_queue`)
    unless another run started it within its task's time limit; any other version is
    returned as it is unless ``revalidate`` (so running this twice is harmless). An
    unexpected error (a task's soft time limit included) counts as a failed attempt: the
    version goes back to ``pending`` (a queued one back in the queue, rejected after
    :data:`VALIDATION_MAX_ATTEMPTS`) and the error propagates. Raises ``ValueError`` for
    a built-in version or an unknown variant.
    """
    wanted = variants or ([variant] if variant else None)
    queued = (version.validation_report or {}).get(QUEUE_KEY)
    if not wanted and isinstance(queued, dict) and queued.get("variants"):
        wanted = queued["variants"]
    overrides = {"games_count": games_count, "time_control": time_control, "limits": limits}
    plans = validation_plans(version=version, variants=wanted, **overrides)  # ValueError now
    for each in plans:
        games.load(each.variant, **(options or {}))
    was_ready = version.status == BotVersion.Status.READY
    if not _version_claim(version, revalidate=revalidate, limit_s=validation.task_limit_s(plans)):
        return version
    if not version.bot.builtin:  # started: the owner's next one is sent, to wait its turn
        validations_top_up(owner_id=version.bot.owner_id)
    started = time.perf_counter()
    try:
        findings = {p.variant: _validation_match(version, p, options) for p in plans}
    except BaseException as error:
        _version_unclaim(version, error)
        metrics.inc(metrics.VALIDATIONS, "error")
        raise
    seconds = time.perf_counter() - started
    ok = all(found["ok"] for found in findings.values())

    def observed() -> None:
        metrics.VALIDATIONS.labels("ready" if ok else "rejected").inc()
        metrics.VALIDATION_DURATION.observe(seconds)

    metrics.observe(observed)
    _validation_record(version, findings, keep_ready=was_ready and not revalidate)
    return version


def _validation_record(
    version: BotVersion, findings: dict[str, dict[str, Any]], *, keep_ready: bool
) -> None:
    """Write the outcome: passes, status, report (under a row lock)."""
    passed = [name for name, found in findings.items() if found["ok"]]
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        for name in passed:
            VersionVariantPass.objects.get_or_create(version=locked, variant=name)
        ok = all(found["ok"] for found in findings.values())
        if keep_ready:
            locked.status = BotVersion.Status.READY
        else:
            locked.status = BotVersion.Status.READY if ok else BotVersion.Status.REJECTED
        upload = locked.validation_report.get("upload")
        earlier = locked.validation_report.get("variants") if keep_ready else None
        merged = {**(earlier if isinstance(earlier, dict) else {}), **findings}
        locked.validation_report = {
            **({"upload": upload} if upload else {}),
            **validation.summary(merged),
            "passed": sorted(locked.passes.values_list("variant", flat=True)),
            "validated_at": timezone.now().isoformat(),
        }
        _release(locked)
        locked.save(update_fields=["status", "validation_report", *leases.released()])
    _refresh(version, locked)


def _version_claim(version: BotVersion, *, revalidate: bool, limit_s: int) -> bool:
    """Claim the validation of ``version`` for this worker process under a row lock
    (``config.leases``: :func:`~bots.services.validation_queue.validation_claimable`),
    with a lease until its task cannot be running any more; False if it is not ours to
    do. It becomes ``validating`` (a ready version validated in more variants stays
    ready), its queue entry says when it started and counts the attempt. A queue entry
    made before entries stated their time limit gets ``limit_s``."""
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        if locked.runtime == BotVersion.Runtime.BUILTIN:
            raise ValueError(f"{locked} is a built-in version: there is nothing to validate")
        if not (revalidate or _claimable(locked)):
            _refresh(version, locked)
            return False
        now = timezone.now()
        lease_s = limit_s + TASK_HARD_LIMIT_EXTRA_S + LOST_AFTER_HARD_LIMIT_S
        queue = locked.validation_report.get(QUEUE_KEY)
        if isinstance(queue, dict):
            queue = {
                "limit_s": limit_s,
                **{key: value for key, value in queue.items() if key != "worker"},
                "started_at": now.isoformat(),
                "attempts": int(queue.get("attempts") or 0) + 1,
            }
            lease_s = validation_lease_s(queue)
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
        claim = leases.held_by(claimed_by=liveness.process_name(), lease_s=lease_s, now=now)
        for field, value in claim.items():
            setattr(locked, field, value)
        if revalidate or locked.status != BotVersion.Status.READY:
            locked.status = BotVersion.Status.VALIDATING
        locked.save(update_fields=["status", "validation_report", *claim])
    _refresh(version, locked)
    return True


def _claimable(version: BotVersion) -> bool:
    """Whether a worker may claim the validation of ``version`` now (as the database has
    it: waiting, or claimed with a lease that ran out)."""
    now = timezone.now()
    return BotVersion.objects.filter(validation_claimable(now=now), pk=version.pk).exists()


def _release(locked: BotVersion) -> None:
    """End the validation's claim (``config.leases``): its outcome is written, or it waits
    again."""
    for field, value in leases.released().items():
        setattr(locked, field, value)


def _refresh(version: BotVersion, locked: BotVersion) -> None:
    version.status, version.validation_report = locked.status, locked.validation_report
    version.claimed_by, version.lease_until = locked.claimed_by, locked.lease_until


def _version_unclaim(version: BotVersion, error: BaseException) -> None:
    """After a platform error (or the task's time limit): pending again, or queued
    again, or, after too many attempts, rejected (a ready version: left ready, without
    the variants it was queued for)."""
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        queue = locked.validation_report.get(QUEUE_KEY)
        if locked.status == BotVersion.Status.READY and isinstance(queue, dict):
            pass  # validating more variants
        elif locked.status != BotVersion.Status.VALIDATING:
            return
        if not isinstance(queue, dict):
            locked.status = BotVersion.Status.PENDING
        elif int(queue.get("attempts") or 0) >= VALIDATION_MAX_ATTEMPTS:
            reason = f"the platform failed to validate it {queue['attempts']} times ({error!r})"
            if isinstance(error, SoftTimeLimitExceeded):
                minutes = _queue_limit_s(queue) / 60
                reason = (
                    f"the validation did not finish within its limit of {minutes:.0f} min, "
                    f"{queue['attempts']} times"
                )
            _version_give_up(locked, reason)
        else:
            queue = {key: value for key, value in queue.items() if key != "started_at"}
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
        _release(locked)
        locked.save(update_fields=["status", "validation_report", *leases.released()])
    _refresh(version, locked)


def _version_give_up(locked: BotVersion, reason: str) -> None:
    report = {k: v for k, v in locked.validation_report.items() if k != QUEUE_KEY}
    if locked.status == BotVersion.Status.READY:
        locked.validation_report = {**report, "more_failed": reason}
        return
    locked.status = BotVersion.Status.REJECTED
    upload = report.get("upload")
    locked.validation_report = {**({"upload": upload} if upload else {}), **_refusal(reason)}


class _ValidationRefused(Exception):
    """The validation match cannot be played; the message says why, for the report."""


def _validation_match(
    version: BotVersion, plan: validation.VariantPlan, options: dict[str, Any] | None
) -> dict[str, Any]:
    """What the validation match of ``plan`` found; a bot that cannot be run is not ok."""
    found: dict[str, Any] = {**plan.describe(), "options": options or {}}
    try:
        bot = _validation_player(version, plan)
        found.update(validation.play(plan, bot, options=options))
    except sandbox.SandboxUnavailable as error:
        found.update(_refusal(f"the sandbox is unavailable on this host ({error})"))
    except _ValidationRefused as error:
        found.update(_refusal(str(error)))
    return found


def _validation_player(version: BotVersion, plan: validation.VariantPlan) -> Player:
    """The validated bot at its place in ``plan``'s match, under its limits."""
    if not sandbox.available():
        reason = isolation.unavailable_reason()
        raise _ValidationRefused(f"the sandbox is unavailable on this host ({reason})")
    try:
        path = bot_version_path(version=version)
        return seat_player(path=path, seed=plan.seed, seat=plan.player, limits=plan.limits)
    except ValueError as error:
        raise _ValidationRefused(f"the bot cannot be run: {error}") from None


def _refusal(reason: str) -> dict[str, Any]:
    return {"ok": False, "statuses": [], "reasons": [reason], "stderr_tail": "", "duration_s": 0.0}
