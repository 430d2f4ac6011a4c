"""Writes on bots: creating them, uploading versions, validating versions, the built-ins.

An upload is kept by its SHA-256 in the bot store (``bots.store``: the database
by default, or an object store), never on a disk the workers would have to
share. A worker asks :func:`bot_version_path` for a version's tree: it comes
from the worker's own cache (``bots.cache``, under ``CARDROOM_BOT_CACHE_DIR``),
filled from the store and checked against the hash before anything runs.
Versions uploaded before the store kept their file in ``archive`` under
``MEDIA_ROOT``; migration 0004 copies them into the store, and a worker that
still finds one missing there reads that file instead.

An upload is validated on a worker: :func:`bot_version_queue` marks it
``validating`` and sends ``bots.version_validate`` after commit; the task runs
:func:`bot_version_validate`, which commands and tests may also call directly.
:func:`bot_versions_requeue` (periodic) sends again the validations whose task
was lost or whose worker died.

A user's mistake (a bad name, a refused upload) is a
``django.core.exceptions.ValidationError`` keyed by the field at fault
(``name``, ``file``); a programmer's mistake is a ``ValueError``.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

import games
from bots import allowances, archive, builtin, sandbox, similarity, store, validation
from bots.archive import DEFAULT_LIMITS, ArchiveError, ExtractedUpload, UploadLimits, extract_upload
from bots.cache import BotCache
from bots.models import Bot, BotVersion, VersionVariantPass
from bots.referee import Player, TimeControl
from bots.referee.seating import seat_player
from bots.sandbox import isolation
from config import metrics
from config.task_sending import send_task

MAX_NAME_LENGTH = Bot._meta.get_field("name").max_length
#: The report's key of a queued validation: ``queued_at``, ``started_at``, ``attempts``.
#: It is dropped when the validation's outcome is written.
QUEUE_KEY = "queue"
#: A validation started this long ago without an outcome lost its worker, when its
#: queue entry does not state its own time limit (``limit_s``, from its matches).
VALIDATION_STALE_S = 600
#: The task's hard time limit comes this long after its soft one.
TASK_HARD_LIMIT_EXTRA_S = 30
#: A started validation is taken for lost only this long after its hard limit too (the
#: pool's kill and the worker's report of it), so that it is never sent again, nor
#: claimed by another worker, while its task may still run.
LOST_AFTER_HARD_LIMIT_S = 30
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


def bot_create(*, owner: AbstractBaseUser, name: str, description: str = "") -> Bot:
    """A new bot of ``owner`` named ``name`` (a slug, unique among the owner's bots).

    Raises ``ValidationError`` keyed ``name`` for an invalid or taken name and
    ``bots.allowances.AllowanceExceeded`` when the owner has all the bots allowed.
    """
    if owner is None or owner.pk is None:
        raise ValueError(f"bot_create needs a saved user as owner, got {owner!r}")
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_LENGTH or not _is_slug(name):
        raise ValidationError(
            {
                "name": ValidationError(
                    f"{name!r} is not a valid bot name: use 1 to {MAX_NAME_LENGTH} letters, "
                    f"digits, hyphens or underscores.",
                    code="invalid",
                )
            }
        )
    taken = ValidationError(
        {"name": ValidationError(f"You already have a bot named {name!r}.", code="unique")}
    )
    if Bot.objects.filter(owner=owner, name=name).exists():
        raise taken
    try:
        with transaction.atomic():
            allowances.user_lock(user=owner)
            allowances.allowance_check(
                user=owner, name="bots", used=allowances.bots_used(user=owner)
            )
            return Bot.objects.create(owner=owner, name=name, description=description)
    except IntegrityError:  # created by a concurrent request since the check above
        if Bot.objects.filter(owner=owner, name=name).exists():
            raise taken from None
        raise


def bot_play_set(*, bot: Bot, pinned_number: int | None, active: bool) -> Bot:
    """Which version of ``bot`` plays: ``pinned_number`` pins that ready version (None:
    the newest ready one), ``active=False`` deactivates the bot (pairing skips its
    entries; nothing is forfeited). Takes effect for matches not yet claimed: a match's
    versions are chosen when a worker claims it.

    Raises ``ValidationError`` keyed ``pinned_version`` for a version that does not exist,
    was rejected or is not ready yet, and for a built-in bot (it has no versions to pin).
    """
    pinned = None
    if pinned_number is not None:
        if bot.builtin:
            raise ValidationError({"pinned_version": f"{bot} is built in: it has no versions"})
        pinned = bot.versions.filter(number=pinned_number).first()
        if pinned is None:
            raise ValidationError({"pinned_version": f"{bot} has no version {pinned_number}"})
        if pinned.status == BotVersion.Status.REJECTED:
            raise ValidationError(
                {"pinned_version": f"version {pinned_number} was rejected: pin a ready version"}
            )
        if pinned.status != BotVersion.Status.READY:
            raise ValidationError(
                {
                    "pinned_version": f"version {pinned_number} is {pinned.status}, not ready: "
                    "wait for its validation"
                }
            )
    bot.pinned_version = pinned
    bot.active = active
    bot.save(update_fields=["pinned_version", "active"])
    return bot


def bot_challengeable_set(*, bot: Bot, challengeable: bool) -> Bot:
    """Whether other authors may challenge ``bot`` (``tournaments.challenges``; its owner's
    own challenges are not affected). Challenges already asked for still play."""
    bot.challengeable = bool(challengeable)
    bot.save(update_fields=["challengeable"])
    return bot


def bot_version_upload(
    *,
    bot: Bot,
    filename: str,
    content: bytes,
    limits: UploadLimits = DEFAULT_LIMITS,
    variants: Sequence[str] | None = None,
) -> BotVersion:
    """Check and store an upload as the next version of ``bot`` (status ``pending``).

    The upload is unpacked (``bots.archive``) into a temporary directory to check
    it, outside the transaction; then, under a lock on the bot row, it gets the
    next number and its bytes go to the bot store under their SHA-256 (in the same
    transaction with the database store). No file stays behind on this machine.
    Raises ``ValidationError`` keyed ``file`` when the upload is refused, with
    ``bots.archive``'s explanation, keyed ``variants`` for an unknown variant,
    ``bots.allowances.AllowanceExceeded`` beyond the owner's versions or upload bytes of
    the day (checked before the upload is unpacked, and again under the lock), and a
    ``bots.store.StoreError`` (an ``OSError``) when the store cannot be written.

    The version plays ``variants`` when given (and not empty), else those its
    ``bot.json`` declares (none: every variant).
    """
    if bot.builtin:
        raise ValidationError(
            {"file": ValidationError(f"{bot} is a built-in bot: it takes no uploads.")}
        )
    if bot.pk is None:
        raise ValueError("bot_version_upload needs a saved bot")
    declared = _check_variants(variants) if variants else None
    _upload_allowed(bot, len(content))
    with tempfile.TemporaryDirectory(prefix="cardroom-upload-") as staging:
        try:
            info = extract_upload(filename, content, Path(staging), limits=limits)
        except ArchiveError as error:
            raise ValidationError({"file": ValidationError(str(error), code="invalid")}) from error
        source_sketch = _source_sketch(Path(staging), info)
    with transaction.atomic():
        return _version_store(bot, filename, content, info, declared, source_sketch)


#: The most of the main source that is read for its similarity sketch.
SKETCH_SOURCE_BYTES = 2 * 1024 * 1024


def _source_sketch(root: Path, info: ExtractedUpload) -> list[int]:
    """The ``bots.similarity`` sketch of the upload's main source (its entry point)."""
    path = root / info.entry_point
    if not path.is_file():
        return []
    with path.open("rb") as program:
        source = program.read(SKETCH_SOURCE_BYTES).decode("utf-8", errors="replace")
    return similarity.sketch(source)


def _upload_allowed(bot: Bot, size: int) -> None:
    """Refuse an upload beyond the owner's versions or upload bytes of the day."""
    if bot.owner_id is None:
        return
    owner = bot.owner
    allowances.allowance_check(
        user=owner, name="versions_per_day", used=allowances.versions_used_today(user=owner)
    )
    allowances.allowance_check(
        user=owner,
        name="upload_bytes_per_day",
        used=allowances.upload_bytes_used_today(user=owner),
        asked=size,
    )


def _version_store(
    bot: Bot,
    filename: str,
    content: bytes,
    info: ExtractedUpload,
    variants: list[str] | None,
    source_sketch: list[int] | None = None,
) -> BotVersion:
    """Inside the transaction: number the version, store the upload, save the row."""
    if bot.owner_id is not None:  # checked again under the owner's lock: no race past it
        allowances.user_lock(user=bot.owner)
        _upload_allowed(bot, info.upload_size)
    Bot.objects.select_for_update().filter(pk=bot.pk).values_list("pk", flat=True).get()
    number = (bot.versions.aggregate(top=Max("number"))["top"] or 0) + 1
    store.blob_put(sha256=info.sha256, content=content)
    return BotVersion.objects.create(
        bot=bot,
        number=number,
        sha256=info.sha256,
        runtime=info.runtime,
        entry_point=info.entry_point,
        size=info.upload_size,
        upload_name=upload_name(filename),
        source_sketch=source_sketch or [],
        status=BotVersion.Status.PENDING,
        variants=variants if variants is not None else list(info.variants),
        validation_report={"upload": _upload_summary(filename, info)},
    )


def upload_name(filename: str) -> str:
    """What is kept of an upload's file name: its last part, which decides how it
    unpacks (``bots.archive``: the kind of archive, a single program's name)."""
    return PurePosixPath(filename.replace("\\", "/")).name[-255:] or "upload"


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
    its declaration (every variant when it declares none). ``overrides`` go to
    ``bots.validation.plan``. Raises ``ValueError`` for an unknown variant."""
    wanted = list(variants) if variants else validation.variants_to_validate(version.variants)
    time_limit_s = settings.CARDROOM_MATCH_TIME_LIMIT_S
    return [
        validation.plan(name, sha256=version.sha256, match_time_limit_s=time_limit_s, **overrides)
        for name in wanted
    ]


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


def bot_versions_requeue(*, older_than_s: float, send: Sender = send_validation_task) -> list[int]:
    """Send again the queued validations that have not started ``older_than_s`` after
    being queued, and those whose worker went silent: started longer ago than their
    task's hard time limit (``limit_s`` and :data:`TASK_HARD_LIMIT_EXTRA_S`) and
    :data:`LOST_AFTER_HARD_LIMIT_S`, so never one that may still run; and those held
    for their turn whose owner has room (:func:`validations_top_up`). Returns their
    ids; safe to run at any time.
    """
    now = timezone.now()
    ids = []
    waiting = BotVersion.objects.filter(
        status__in=[BotVersion.Status.VALIDATING, BotVersion.Status.READY],
        validation_report__has_key=QUEUE_KEY,
    ).values_list("pk", "validation_report", "bot__owner_id")
    owners = set()
    for pk, report, owner in waiting:
        queue = (report or {}).get(QUEUE_KEY)
        if not isinstance(queue, dict):
            continue
        if queue.get("held") and not queue.get("started_at"):
            owners.add(owner)  # waits for its turn: sent below if the owner has room
            continue
        started = _parse_time(queue.get("started_at"))
        queued = _parse_time(queue.get("queued_at"))
        if started is not None:
            due = _lost(started, queue, now)
        else:
            due = queued is None or queued + timedelta(seconds=older_than_s) < now
        if due:
            ids.append(pk)
            send(pk)
    for owner in owners:  # a lost top-up
        ids += validations_top_up(owner_id=owner, send=send)
    return ids


def _lost(started: datetime, queue: dict[str, Any], now: datetime) -> bool:
    """Whether a validation started at ``started`` can no longer be running: its task's
    hard limit and :data:`LOST_AFTER_HARD_LIMIT_S` have passed."""
    limit_s = _queue_limit_s(queue) + TASK_HARD_LIMIT_EXTRA_S + LOST_AFTER_HARD_LIMIT_S
    return started + timedelta(seconds=limit_s) < now


def _queue_limit_s(queue: dict[str, Any]) -> int:
    limit = queue.get("limit_s")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit
    return VALIDATION_STALE_S


def bot_version_validate(
    *,
    version: BotVersion,
    variants: Sequence[str] | None = None,
    variant: str | None = None,
    games_count: int = validation.GAMES,
    options: dict[str, Any] | None = None,
    time_control: TimeControl | None = None,
    limits: sandbox.Limits | None = None,
    revalidate: bool = False,
) -> BotVersion:
    """Play a short sandboxed match with ``version`` in each of its variants and keep
    the variants it passed (``VersionVariantPass``).

    The variants are ``variants`` (or the one ``variant``), else the ones its queue
    entry asks for, else its declaration (every variant when it declares none); each
    match is planned by ``bots.validation.plan`` (``games_count``, ``time_control``
    and ``limits`` replace the planned ones). The bot takes seat 0 against built-in
    players; it passes a variant when every game ended with status ``ok``. A version
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
        locked.save(update_fields=["status", "validation_report"])
    version.status, version.validation_report = locked.status, locked.validation_report


def _version_claim(version: BotVersion, *, revalidate: bool, limit_s: int) -> bool:
    """Move ``version`` to ``validating`` (started now) under a row lock; False if it is
    not ours to do. A ready version validated in more variants stays ready. A queue
    entry made before entries stated their time limit gets ``limit_s``, so that
    nobody claims it again while this run may still be going."""
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        if locked.runtime == BotVersion.Runtime.BUILTIN:
            raise ValueError(f"{locked} is a built-in version: there is nothing to validate")
        if not (revalidate or _claimable(locked)):
            version.status, version.validation_report = locked.status, locked.validation_report
            return False
        queue = locked.validation_report.get(QUEUE_KEY)
        if isinstance(queue, dict):
            queue = {
                "limit_s": limit_s,
                **queue,
                "started_at": timezone.now().isoformat(),
                "attempts": int(queue.get("attempts") or 0) + 1,
            }
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
        if revalidate or locked.status != BotVersion.Status.READY:
            locked.status = BotVersion.Status.VALIDATING
        locked.save(update_fields=["status", "validation_report"])
    version.status, version.validation_report = locked.status, locked.validation_report
    return True


def _claimable(version: BotVersion) -> bool:
    if version.status == BotVersion.Status.PENDING:
        return True
    queue = version.validation_report.get(QUEUE_KEY)
    waiting = (BotVersion.Status.VALIDATING, BotVersion.Status.READY)
    if version.status not in waiting or not isinstance(queue, dict):
        return False
    started = _parse_time(queue.get("started_at"))
    return started is None or _lost(started, queue, timezone.now())


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
        locked.save(update_fields=["status", "validation_report"])
    version.status, version.validation_report = locked.status, locked.validation_report


def _version_give_up(locked: BotVersion, reason: str) -> None:
    report = {k: v for k, v in locked.validation_report.items() if k != QUEUE_KEY}
    if locked.status == BotVersion.Status.READY:
        locked.validation_report = {**report, "more_failed": reason}
        return
    locked.status = BotVersion.Status.REJECTED
    upload = report.get("upload")
    locked.validation_report = {**({"upload": upload} if upload else {}), **_refusal(reason)}


def _parse_time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


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
    """The validated bot at seat 0 of ``plan``'s match, under its limits."""
    if not sandbox.available():
        reason = isolation.unavailable_reason()
        raise _ValidationRefused(f"the sandbox is unavailable on this host ({reason})")
    try:
        path = bot_version_path(version=version)
        return seat_player(path=path, seed=plan.seed, seat=0, limits=plan.limits)
    except ValueError as error:
        raise _ValidationRefused(f"the bot cannot be run: {error}") from None


def _refusal(reason: str) -> dict[str, Any]:
    return {"ok": False, "statuses": [], "reasons": [reason], "stderr_tail": "", "duration_s": 0.0}


def builtin_bots_ensure() -> list[Bot]:
    """One bot with one ready ``builtin`` version per name of ``bots.builtin.names()``.

    Idempotent: existing rows are kept as they are. Returns the bots in name order.
    """
    return [builtin_bot_ensure(name=name) for name in builtin.names()]


def builtin_bot_ensure(*, name: str) -> Bot:
    """The platform's bot (no owner, named after it) with one ready ``builtin`` version
    that runs the built-in ``name`` (of ``builtin.names()`` or ``builtin.strengths()``),
    made if missing. ``ValueError`` for an unknown name."""
    if name not in builtin.names() and name not in builtin.strengths():
        builtin.make(name)  # raises, naming the known ones
    with transaction.atomic():
        # Several rows may run one built-in (demo tables); the platform's own is the
        # owner-less row named after it.
        bot = Bot.objects.filter(builtin=name, owner=None, name=name).first()
        if bot is None:
            bot = Bot.objects.create(
                builtin=name, name=name, description=f"The platform's built-in {name} bot."
            )
        BotVersion.objects.get_or_create(
            bot=bot,
            number=1,
            defaults={
                "runtime": BotVersion.Runtime.BUILTIN,
                "status": BotVersion.Status.READY,
                "entry_point": f"builtin:{name}",
                "sha256": hashlib.sha256(f"builtin:{name}".encode()).hexdigest(),
            },
        )
    return bot


def bot_version_path(*, version: BotVersion) -> Path:
    """The unpacked tree of an uploaded version: give it to ``ProcessPlayer.from_path``.

    The tree is this machine's cached copy (:func:`bot_cache`), fetched from the
    bot store when missing or damaged and checked against ``version.sha256``
    before it is returned. Raises ``ValueError`` for a built-in version, which
    has no files, and a ``bots.store.StoreError`` (an ``OSError``: retried by
    the execution layer, never charged to the bot) when the store cannot give
    the upload.
    """
    if version.runtime == BotVersion.Runtime.BUILTIN:
        raise ValueError(f"{version} is a built-in version: it has no files")
    name = version.upload_name or _legacy_name(version)
    fetch = partial(bot_version_content, version=version)
    return bot_cache().tree(version.sha256, name, fetch=fetch)


def bot_cache() -> BotCache:
    """This machine's bot cache (``CARDROOM_BOT_CACHE_DIR``, ``CARDROOM_BOT_CACHE_MB``)."""
    return BotCache(
        Path(settings.CARDROOM_BOT_CACHE_DIR),
        max_bytes=settings.CARDROOM_BOT_CACHE_MB * 1024 * 1024,
        keep_s=settings.CARDROOM_MATCH_LEASE_S,
    )


def bot_version_content(*, version: BotVersion) -> bytes:
    """The upload's bytes as sent, from the bot store, checked against ``version.sha256``.

    A version uploaded before the store and missing there is read from its old
    ``archive`` file (which then goes into the store). Raises ``ValueError`` for a
    built-in version and a ``bots.store.StoreError`` when the bytes cannot be had.
    """
    if version.runtime == BotVersion.Runtime.BUILTIN:
        raise ValueError(f"{version} is a built-in version: it has no files")
    try:
        return store.blob_fetch(sha256=version.sha256)
    except store.BlobMissing:
        if not version.archive:
            raise
    with version.archive.open("rb") as handle:
        content = handle.read()
    if hashlib.sha256(content).hexdigest() != version.sha256:
        raise store.BlobCorrupt(f"{version}: its stored file no longer matches its hash")
    store.blob_put(sha256=version.sha256, content=content)
    return content


def _legacy_name(version: BotVersion) -> str:
    upload = (version.validation_report or {}).get("upload") or {}
    return upload_name(upload.get("filename") or PurePosixPath(version.archive.name).name)


# --- helpers ------------------------------------------------------------------------------


def _is_slug(name: str) -> bool:
    try:
        validate_slug(name)
    except ValidationError:
        return False
    return True


def _upload_summary(filename: str, info: ExtractedUpload) -> dict[str, Any]:
    return {
        "filename": filename,
        "kind": info.kind,
        "command": list(info.command),
        "file_count": info.file_count,
        "unpacked_size": info.unpacked_size,
    }
