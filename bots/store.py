"""The bot store: uploads kept by their SHA-256 where every worker reaches them.

Workers share no filesystem with the web tier. An upload is written once to the
store chosen by ``CARDROOM_BOT_STORE``:

- ``db`` (the default): a :class:`~bots.models.BotBlob` row (``bytea`` on
  PostgreSQL), so a worker needs nothing but the database it already uses;
- ``s3``: an S3-compatible object store through ``django-storages`` (the
  ``s3`` extra), configured as Django's ``STORAGES["bots"]``; any other Django
  storage backend given there works the same way.

:func:`blob_fetch` checks what it reads against the hash it asked for. Every
error here is a :class:`StoreError`, an ``OSError``: for the execution layer it is
a fault of the platform (the match is given back and retried), never of a bot.
"""

from __future__ import annotations

import hashlib
import re
from typing import Protocol

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import DatabaseError, IntegrityError, transaction

SHA256 = re.compile(r"[0-9a-f]{64}")
STORE_KINDS = ("db", "s3")


class StoreError(OSError):
    """The bot store failed; the platform's fault, to be retried."""


class StoreUnavailable(StoreError):
    """The store could not be reached (or answered with an error)."""


class BlobMissing(StoreError):
    """The store has no upload with this hash."""


class BlobCorrupt(StoreError):
    """The store returned bytes whose SHA-256 is not the one asked for."""


class BotStore(Protocol):
    """Where uploads live: ``put`` once, ``get`` by hash from any machine."""

    kind: str

    def put(self, sha256: str, content: bytes) -> None: ...

    def get(self, sha256: str) -> bytes: ...

    def delete(self, sha256: str) -> None: ...


class DatabaseStore:
    """Uploads as :class:`~bots.models.BotBlob` rows in the platform's database."""

    kind = "db"

    def __init__(self, model: type | None = None) -> None:
        if model is None:
            from bots.models import BotBlob as model
        self.model = model

    def put(self, sha256: str, content: bytes) -> None:
        try:
            if self.model.objects.filter(pk=sha256).exists():
                return
            with transaction.atomic():
                self.model.objects.create(sha256=sha256, content=content, size=len(content))
        except IntegrityError:  # the same bytes stored by a concurrent upload: fine
            return
        except DatabaseError as error:
            raise StoreUnavailable(f"bot store (database) unreachable: {error}") from error

    def get(self, sha256: str) -> bytes:
        try:
            row = self.model.objects.filter(pk=sha256).values_list("content", flat=True).first()
        except DatabaseError as error:
            raise StoreUnavailable(f"bot store (database) unreachable: {error}") from error
        if row is None:
            raise BlobMissing(f"bot store (database) has no upload {sha256}")
        return bytes(row)

    def delete(self, sha256: str) -> None:
        try:
            self.model.objects.filter(pk=sha256).delete()
        except DatabaseError as error:
            raise StoreUnavailable(f"bot store (database) unreachable: {error}") from error


class StorageStore:
    """Uploads as objects ``<aa>/<sha256>`` of a Django storage (S3 via django-storages)."""

    kind = "s3"

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    @staticmethod
    def key(sha256: str) -> str:
        return f"{sha256[:2]}/{sha256}"

    def put(self, sha256: str, content: bytes) -> None:
        key = self.key(sha256)
        try:
            if not self.storage.exists(key):
                saved = self.storage.save(key, ContentFile(content))
                if saved != key:  # a concurrent upload won: ours got another name
                    self.storage.delete(saved)
        except Exception as error:  # botocore's errors share no base with OSError
            raise StoreUnavailable(f"bot store ({self.kind}) unreachable: {error}") from error

    def get(self, sha256: str) -> bytes:
        key = self.key(sha256)
        try:
            with self.storage.open(key, "rb") as handle:
                return handle.read()
        except FileNotFoundError:
            raise BlobMissing(f"bot store ({self.kind}) has no upload {sha256}") from None
        except Exception as error:
            if _is_missing(error):
                raise BlobMissing(f"bot store ({self.kind}) has no upload {sha256}") from None
            raise StoreUnavailable(f"bot store ({self.kind}) unreachable: {error}") from error

    def delete(self, sha256: str) -> None:
        try:
            self.storage.delete(self.key(sha256))
        except Exception as error:
            raise StoreUnavailable(f"bot store ({self.kind}) unreachable: {error}") from error


def _is_missing(error: Exception) -> bool:
    """An S3 ``NoSuchKey`` / 404 from botocore, told apart without importing it."""
    code = str(getattr(error, "response", {}).get("Error", {}).get("Code", ""))
    return code in ("NoSuchKey", "404")


def bot_store() -> BotStore:
    """The store named by ``CARDROOM_BOT_STORE`` (``db`` or ``s3``).

    Raises ``ValueError`` naming the setting for any other value.
    """
    kind = settings.CARDROOM_BOT_STORE
    if kind == "db":
        return DatabaseStore()
    if kind == "s3":
        from django.core.files.storage import storages

        return StorageStore(storages["bots"])
    raise ValueError(f"CARDROOM_BOT_STORE must be one of {', '.join(STORE_KINDS)}, got {kind!r}")


def blob_put(*, sha256: str, content: bytes, store: BotStore | None = None) -> None:
    """Store ``content`` under ``sha256`` (which must be its hash: ``ValueError`` if not)."""
    if hashlib.sha256(content).hexdigest() != sha256:
        raise ValueError(f"content does not hash to {sha256!r}")
    (store or bot_store()).put(sha256, content)


def blob_fetch(*, sha256: str, store: BotStore | None = None) -> bytes:
    """The upload stored under ``sha256``, checked against that hash.

    Raises ``ValueError`` for something that is not a SHA-256, and a
    :class:`StoreError` (``StoreUnavailable``, ``BlobMissing``, ``BlobCorrupt``)
    when the store cannot give the right bytes.
    """
    if not isinstance(sha256, str) or not SHA256.fullmatch(sha256):
        raise ValueError(f"not a SHA-256 hex digest: {sha256!r}")
    content = (store or bot_store()).get(sha256)
    actual = hashlib.sha256(content).hexdigest()
    if actual != sha256:
        raise BlobCorrupt(f"bot store gave bytes hashing to {actual} for {sha256}")
    return content


def blob_delete(*, sha256: str, store: BotStore | None = None) -> None:
    """Remove the upload stored under ``sha256`` (nothing if there is none); only for
    bytes no version names any more (``bots.pruning``)."""
    (store or bot_store()).delete(sha256)
