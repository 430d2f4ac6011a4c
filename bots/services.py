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
import logging
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

import games
from bots import builtin, sandbox, store
from bots.archive import DEFAULT_LIMITS, ArchiveError, ExtractedUpload, UploadLimits, extract_upload
from bots.cache import BotCache
from bots.models import Bot, BotVersion
from bots.referee import InProcessPlayer, MatchResult, ProcessPlayer, TimeControl, play_match
from bots.sandbox import isolation

log = logging.getLogger(__name__)

#: The validation match: a few games against built-in random players (one per other seat).
VALIDATION_VARIANT = "manni-basic"
VALIDATION_GAMES = 2
VALIDATION_OPPONENT = "random"
VALIDATION_TIME_CONTROL = TimeControl(move_ms=2_000, bank_ms=10_000, start_ms=10_000)
VALIDATION_LIMITS = sandbox.Limits(cpu_seconds=60)
#: How much of the bot's stderr the report keeps (the end of it).
STDERR_TAIL_CHARS = 4_000
MAX_NAME_LENGTH = Bot._meta.get_field("name").max_length
#: The report's key of a queued validation: ``queued_at``, ``started_at``, ``attempts``.
#: It is dropped when the validation's outcome is written.
QUEUE_KEY = "queue"
#: A validation started this long ago without an outcome lost its worker: it may be
#: claimed again (the match takes well under a minute of CPU; see VALIDATION_LIMITS).
VALIDATION_STALE_S = 600
#: A version whose validation failed on the platform this many times is rejected.
VALIDATION_MAX_ATTEMPTS = 3
#: Sends the validation task of a version id (called after commit).
Sender = Callable[[int], None]


def bot_create(*, owner: AbstractBaseUser, name: str, description: str = "") -> Bot:
    """A new bot of ``owner`` named ``name`` (a slug, unique among the owner's bots).

    Raises ``ValidationError`` keyed ``name`` for an invalid or taken name.
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
            return Bot.objects.create(owner=owner, name=name, description=description)
    except IntegrityError:  # created by a concurrent request since the check above
        if Bot.objects.filter(owner=owner, name=name).exists():
            raise taken from None
        raise


def bot_version_upload(
    *, bot: Bot, filename: str, content: bytes, limits: UploadLimits = DEFAULT_LIMITS
) -> BotVersion:
    """Check and store an upload as the next version of ``bot`` (status ``pending``).

    The upload is unpacked (``bots.archive``) into a temporary directory to check
    it, outside the transaction; then, under a lock on the bot row, it gets the
    next number and its bytes go to the bot store under their SHA-256 (in the same
    transaction with the database store). No file stays behind on this machine.
    Raises ``ValidationError`` keyed ``file`` when the upload is refused, with
    ``bots.archive``'s explanation, and a ``bots.store.StoreError`` (an
    ``OSError``) when the store cannot be written.
    """
    if bot.builtin:
        raise ValidationError(
            {"file": ValidationError(f"{bot} is a built-in bot: it takes no uploads.")}
        )
    if bot.pk is None:
        raise ValueError("bot_version_upload needs a saved bot")
    with tempfile.TemporaryDirectory(prefix="cardroom-upload-") as staging:
        try:
            info = extract_upload(filename, content, Path(staging), limits=limits)
        except ArchiveError as error:
            raise ValidationError({"file": ValidationError(str(error), code="invalid")}) from error
    with transaction.atomic():
        return _version_store(bot, filename, content, info)


def _version_store(bot: Bot, filename: str, content: bytes, info: ExtractedUpload) -> BotVersion:
    """Inside the transaction: number the version, store the upload, save the row."""
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
        status=BotVersion.Status.PENDING,
        validation_report={"upload": _upload_summary(filename, info)},
    )


def upload_name(filename: str) -> str:
    """What is kept of an upload's file name: its last part, which decides how it
    unpacks (``bots.archive``: the kind of archive, a single program's name)."""
    return PurePosixPath(filename.replace("\\", "/")).name[-255:] or "upload"


def send_validation_task(version_id: int) -> None:
    """``bots.version_validate`` of ``version_id`` on ``CARDROOM_VALIDATE_QUEUE``.

    A broker that is down is logged: the version stays queued and
    :func:`bot_versions_requeue` sends it again.
    """
    from kombu.exceptions import OperationalError as BrokerError

    from bots.tasks import version_validate

    try:
        version_validate.apply_async((version_id,), queue=settings.CARDROOM_VALIDATE_QUEUE)
    except BrokerError as exc:
        log.warning("broker unavailable, version %s waits to be sent again: %s", version_id, exc)


def bot_version_queue(*, version: BotVersion, send: Sender = send_validation_task) -> BotVersion:
    """Mark a ``pending`` version ``validating`` and send its validation task after commit.

    The report gets ``queue`` (``queued_at``); the outcome replaces it. A version
    that is not pending is returned unchanged (nothing is sent). Raises
    ``ValueError`` for a built-in version.
    """
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        if locked.runtime == BotVersion.Runtime.BUILTIN:
            raise ValueError(f"{locked} is a built-in version: there is nothing to validate")
        if locked.status == BotVersion.Status.PENDING:
            locked.status = BotVersion.Status.VALIDATING
            queue = {"queued_at": timezone.now().isoformat(), "attempts": 0}
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
            locked.save(update_fields=["status", "validation_report"])
            pk = locked.pk
            transaction.on_commit(lambda: send(pk))
    version.status, version.validation_report = locked.status, locked.validation_report
    return version


def bot_versions_requeue(*, older_than_s: float, send: Sender = send_validation_task) -> list[int]:
    """Send again the queued validations that have not started ``older_than_s`` after
    being queued, and those whose worker went silent (started over
    :data:`VALIDATION_STALE_S` ago). Returns their ids; safe to run at any time.
    """
    now = timezone.now()
    ids = []
    waiting = BotVersion.objects.filter(status=BotVersion.Status.VALIDATING).values_list(
        "pk", "validation_report"
    )
    for pk, report in waiting:
        queue = (report or {}).get(QUEUE_KEY)
        if not isinstance(queue, dict):
            continue
        started = _parse_time(queue.get("started_at"))
        queued = _parse_time(queue.get("queued_at"))
        if started is not None:
            due = started + timedelta(seconds=VALIDATION_STALE_S) < now
        else:
            due = queued is None or queued + timedelta(seconds=older_than_s) < now
        if due:
            ids.append(pk)
            send(pk)
    return ids


def bot_version_validate(
    *,
    version: BotVersion,
    variant: str = VALIDATION_VARIANT,
    games_count: int = VALIDATION_GAMES,
    options: dict[str, Any] | None = None,
    time_control: TimeControl = VALIDATION_TIME_CONTROL,
    limits: sandbox.Limits = VALIDATION_LIMITS,
    revalidate: bool = False,
) -> BotVersion:
    """Play a short sandboxed match with ``version`` and mark it ``ready`` or ``rejected``.

    The bot takes seat 0 against ``builtin:random`` players for ``games_count``
    games of ``variant``; it is ready when every game ended with status ``ok``.
    The report (``validation_report``) keeps the ``upload`` summary and adds
    ``ok``, ``statuses``, ``reasons``, ``stderr_tail``, ``duration_s`` and the
    match set-up. No sandbox on this host means rejected, with that reason.

    A ``pending`` version is validated, and a queued one (:func:`bot_version_queue`)
    unless another run started it less than :data:`VALIDATION_STALE_S` ago; any
    other version is returned as it is unless ``revalidate`` (so running this twice
    is harmless). An unexpected error puts the version back to ``pending`` (a queued
    one back in the queue, rejected after :data:`VALIDATION_MAX_ATTEMPTS`) and
    propagates. Raises ``ValueError`` for a built-in version or an unknown variant.
    """
    games.load(variant, **(options or {}))  # ValueError now rather than a half-claimed version
    if not _version_claim(version, revalidate=revalidate):
        return version
    try:
        ok, report = _validation_match(version, variant, games_count, options, time_control, limits)
    except BaseException as error:
        _version_unclaim(version, error)
        raise
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        locked.status = BotVersion.Status.READY if ok else BotVersion.Status.REJECTED
        upload = locked.validation_report.get("upload")
        locked.validation_report = {**({"upload": upload} if upload else {}), **report}
        locked.save(update_fields=["status", "validation_report"])
    version.status, version.validation_report = locked.status, locked.validation_report
    return version


def _version_claim(version: BotVersion, *, revalidate: bool) -> bool:
    """Move ``version`` to ``validating`` (started now) under a row lock; False if it is
    not ours to do."""
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
                **queue,
                "started_at": timezone.now().isoformat(),
                "attempts": int(queue.get("attempts") or 0) + 1,
            }
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
        locked.status = BotVersion.Status.VALIDATING
        locked.save(update_fields=["status", "validation_report"])
    version.status, version.validation_report = locked.status, locked.validation_report
    return True


def _claimable(version: BotVersion) -> bool:
    if version.status == BotVersion.Status.PENDING:
        return True
    queue = version.validation_report.get(QUEUE_KEY)
    if version.status != BotVersion.Status.VALIDATING or not isinstance(queue, dict):
        return False
    started = _parse_time(queue.get("started_at"))
    return started is None or started + timedelta(seconds=VALIDATION_STALE_S) < timezone.now()


def _version_unclaim(version: BotVersion, error: BaseException) -> None:
    """After a platform error: pending again, or queued again, or rejected after too many."""
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        if locked.status != BotVersion.Status.VALIDATING:
            return
        queue = locked.validation_report.get(QUEUE_KEY)
        if not isinstance(queue, dict):
            locked.status = BotVersion.Status.PENDING
        elif int(queue.get("attempts") or 0) >= VALIDATION_MAX_ATTEMPTS:
            locked.status = BotVersion.Status.REJECTED
            reason = f"the platform failed to validate it {queue['attempts']} times ({error!r})"
            upload = locked.validation_report.get("upload")
            refusal = _refusal(reason)
            locked.validation_report = {**({"upload": upload} if upload else {}), **refusal}
        else:
            queue = {key: value for key, value in queue.items() if key != "started_at"}
            locked.validation_report = {**locked.validation_report, QUEUE_KEY: queue}
        locked.save(update_fields=["status", "validation_report"])
    version.status, version.validation_report = locked.status, locked.validation_report


def _parse_time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


class _ValidationRefused(Exception):
    """The validation match cannot be played; the message says why, for the report."""


def _validation_match(
    version: BotVersion,
    variant: str,
    games_count: int,
    options: dict[str, Any] | None,
    time_control: TimeControl,
    limits: sandbox.Limits,
) -> tuple[bool, dict[str, Any]]:
    """(ok, report) of the validation match; a bot that cannot be run is not ok."""
    seed = _validation_seed(version)
    seats = games.load(variant, **(options or {})).num_players
    opponents = [f"builtin:{VALIDATION_OPPONENT}"] * (seats - 1)
    report: dict[str, Any] = {
        "variant": variant,
        "options": options or {},
        "games": games_count,
        "seed": seed,
        "opponents": opponents,
        "validated_at": timezone.now().isoformat(),
    }
    others = [
        InProcessPlayer(builtin.make(VALIDATION_OPPONENT, seed=seed + i), name=name)
        for i, name in enumerate(opponents, start=1)
    ]
    try:
        bot = _validation_player(version, limits)
        result = play_match(
            variant,
            [bot, *others],
            games_count=games_count,
            seed=seed,
            options=options,
            time_control=time_control,
        )
    except sandbox.SandboxUnavailable as error:
        report.update(_refusal(f"the sandbox is unavailable on this host ({error})"))
    except _ValidationRefused as error:
        report.update(_refusal(str(error)))
    else:
        report.update(_match_findings(result))
    return report["ok"], report


def _validation_player(version: BotVersion, limits: sandbox.Limits) -> ProcessPlayer:
    if not sandbox.available():
        reason = isolation.unavailable_reason()
        raise _ValidationRefused(f"the sandbox is unavailable on this host ({reason})")
    try:
        return ProcessPlayer.from_path(bot_version_path(version=version), limits=limits)
    except ValueError as error:
        raise _ValidationRefused(f"the bot cannot be run: {error}") from None


def _refusal(reason: str) -> dict[str, Any]:
    return {"ok": False, "statuses": [], "reasons": [reason], "stderr_tail": "", "duration_s": 0.0}


def _match_findings(result: MatchResult) -> dict[str, Any]:
    """The bot's (player 0's) side of a validation match, for the report."""
    statuses = [game.statuses[game.seats.index(0)] for game in result.games]
    reasons = [
        f"game {i}: {status['status']}: {status['reason']}"
        for i, status in enumerate(statuses)
        if status["status"] != "ok"
    ]
    return {
        "options": result.options,
        "ok": bool(statuses) and not reasons,
        "statuses": statuses,
        "reasons": reasons,
        "stderr_tail": result.logs[0][-STDERR_TAIL_CHARS:] if result.logs else "",
        "duration_s": round(result.seconds, 3),
    }


def builtin_bots_ensure() -> list[Bot]:
    """One bot with one ready ``builtin`` version per name of ``bots.builtin.names()``.

    Idempotent: existing rows are kept as they are. Returns the bots in name order.
    """
    bots = []
    for name in builtin.names():
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
        bots.append(bot)
    return bots


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


def _validation_seed(version: BotVersion) -> int:
    """Derived from the upload's hash, so the same upload meets the same deals."""
    digest = hashlib.sha256(f"cardroom-validation:{version.sha256}".encode()).digest()
    return int.from_bytes(digest[:4], "big")
