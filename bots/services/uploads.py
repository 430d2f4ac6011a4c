"""Uploading a version: the checks of an upload, its bytes kept in the bot store by
their SHA-256, and a version's tree for a worker (from the worker's own cache,
checked against the hash before anything runs)."""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from bots import allowances, links, similarity, store
from bots.archive import DEFAULT_LIMITS, ArchiveError, ExtractedUpload, UploadLimits, extract_upload
from bots.cache import BotCache
from bots.models import Bot, BotVersion
from bots.services.validation_queue import _check_variants

log = logging.getLogger(__name__)


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
    the day or stored bytes (checked before the upload is unpacked, and again under the
    lock), and a
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
        version = _version_store(bot, filename, content, info, declared, source_sketch)
    links.links_from_upload(version=version)  # another account's look-alike: one person?
    return version


#: The most of an upload's text that is read for its similarity sketch, all files together.
SKETCH_SOURCE_BYTES = 2 * 1024 * 1024


def _source_sketch(root: Path, info: ExtractedUpload) -> list[int]:
    """The ``bots.similarity`` sketch of every text file of the upload (its entry point
    first), up to :data:`SKETCH_SOURCE_BYTES` in all."""
    sources = similarity.tree_sources(root, first=info.entry_point, limit=SKETCH_SOURCE_BYTES)
    return similarity.archive_sketch(sources)


def _upload_allowed(bot: Bot, size: int) -> None:
    """Refuse an upload beyond the owner's versions or upload bytes of the day, or their
    stored bytes (and the total of unconfirmed accounts, for one of them)."""
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
    allowances.stored_bytes_check(user=owner, asked=size)
    allowances.worker_seconds_check(user=owner)  # its validation needs the users' lane


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


def _upload_summary(filename: str, info: ExtractedUpload) -> dict[str, Any]:
    return {
        "filename": filename,
        "kind": info.kind,
        "command": list(info.command),
        "file_count": info.file_count,
        "unpacked_size": info.unpacked_size,
    }
