"""Pruning the bot store: versions that will never play again go, with their bytes.

:func:`bot_versions_prune` deletes uploaded versions made over ``older_than_days``
ago that are either ``rejected`` or ``ready`` but superseded (their bot has a newer
ready version, which is what it plays), and that nothing names: no match seat, no
entry's pinned version, no version test, nor any other row pointing at a version
(every relation to :class:`~bots.models.BotVersion` is asked, so a new one is
respected without a change here). The newest ready version of a bot, versions
waiting for or in validation, and built-in versions are never pruned. An upload's
bytes leave the store when no version names them any more.

Runs periodically (``bots.versions_prune``, every ``CARDROOM_PRUNE_EVERY_S``) and from
``manage.py prune_versions``; safe to run at any time and twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from bots import store
from bots.models import BotBlob, BotVersion

log = logging.getLogger(__name__)

Status = BotVersion.Status


@dataclass
class Pruned:
    """What a prune removed (or, in a dry run, would remove)."""

    versions: list[int] = field(default_factory=list)
    bytes: int = 0
    blobs: list[str] = field(default_factory=list)


def prunable_versions(*, older_than_days: float) -> QuerySet[BotVersion]:
    """The versions :func:`bot_versions_prune` would delete now."""
    cutoff = timezone.now() - timedelta(days=older_than_days)
    newer_ready = BotVersion.objects.filter(
        bot_id=OuterRef("bot_id"), status=Status.READY, number__gt=OuterRef("number")
    )
    candidates = (
        BotVersion.objects.filter(created_at__lt=cutoff)
        .exclude(runtime=BotVersion.Runtime.BUILTIN)
        .annotate(superseded=Exists(newer_ready))
        .filter(Q(status=Status.REJECTED) | Q(status=Status.READY, superseded=True))
    )
    for relation in _relations_to_versions():  # whatever names a version keeps it
        name = relation.field.name
        named = relation.related_model.objects.filter(**{f"{name}__isnull": False})
        candidates = candidates.exclude(pk__in=named.values(name))
    return candidates.order_by("pk")


def _relations_to_versions() -> list:
    """Every relation pointing at a version, those without a reverse name ("+") too."""
    fields = BotVersion._meta.get_fields(include_hidden=True)
    return [f for f in fields if f.auto_created and not f.concrete and f.related_model]


def bot_versions_prune(*, older_than_days: float, dry_run: bool = False) -> Pruned:
    """Delete the :func:`prunable_versions` and the stored bytes no version names any
    more; with ``dry_run`` only say what would go. Raises ``ValueError`` for a negative
    age and a ``bots.store.StoreError`` if the store cannot delete (the versions are
    gone then; their bytes go at the next run)."""
    if older_than_days < 0:
        raise ValueError(f"older_than_days must be 0 or more, got {older_than_days!r}")
    pruned = Pruned()
    with transaction.atomic():
        rows = list(
            prunable_versions(older_than_days=older_than_days)
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("pk", "sha256", "size")
        )
        pruned.versions = [pk for pk, _, _ in rows]
        pruned.bytes = sum(size for _, _, size in rows)
        if not dry_run:
            BotVersion.objects.filter(pk__in=pruned.versions).delete()
    hashes = {sha for _, sha, _ in rows}
    others = BotVersion.objects.filter(sha256__in=hashes).exclude(pk__in=pruned.versions)
    kept = set(others.values_list("sha256", flat=True))
    pruned.blobs = sorted(hashes - kept)
    if not dry_run:
        for sha256 in pruned.blobs:
            store.blob_delete(sha256=sha256)
        if pruned.versions:
            log.info("pruned %d versions, %d bytes", len(pruned.versions), pruned.bytes)
    return pruned


def orphan_blobs() -> QuerySet[BotBlob]:
    """Rows of the database store that no version names (for the admin and tests)."""
    return BotBlob.objects.exclude(sha256__in=BotVersion.objects.values("sha256"))
