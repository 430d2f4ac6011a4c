"""Keeping the whole stderr of a match's bots for their owners, within their allowance.

A bot program's stderr over a match is kept compressed by the sandbox as it is written
(``bots.sandbox.stderr_archive``: gzip, at most ``FULL_STDERR_BYTES`` of it a match),
beyond the tail every seat keeps (``MatchSeat.log``) and the 32 KiB the traces keep.
Once the match is recorded, each uploaded bot's log is stored for the bot's owner
(:class:`tournaments.models.MatchStderrLog`) and counted against their
``stderr_log_bytes`` allowance (``bots.allowances``): when the logs kept would pass it,
the oldest are dropped (their bytes emptied, the row kept to say so) until the rest
fit, the new one too if it alone does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from bots import allowances
from tournaments.models import MatchSeat, MatchStderrLog


def match_stderr_logs_keep(*, match_id: int, full_stderr: Sequence[Any]) -> list[MatchStderrLog]:
    """Store ``full_stderr`` (per match seat, a ``bots.sandbox.FullStderr`` or None, as
    ``PlayedMatch.full_stderr``) of the uploaded bots of the match ``match_id`` that wrote
    anything, each for its bot's owner, and make room in their allowance. Safe to call
    twice: a seat's log is stored once. Returns the logs stored now."""
    seats = MatchSeat.objects.filter(match_id=match_id).select_related(
        "entry__bot__owner", "entry__partner__owner"
    )
    stored = []
    for seat in seats.order_by("seat"):
        full = full_stderr[seat.seat] if seat.seat < len(full_stderr) else None
        bot = seat.entry.bot_at(seat.seat)
        if full is None or not full.written or bot.builtin or bot.owner_id is None:
            continue
        with transaction.atomic():
            allowances.user_lock(user=bot.owner)  # one owner's logs made room for in turn
            log, created = MatchStderrLog.objects.get_or_create(
                seat=seat,
                defaults={
                    "owner": bot.owner,
                    "data": full.data,
                    "size": len(full.data),
                    "kept": full.kept,
                    "written": full.written,
                },
            )
            if created:
                stderr_logs_make_room(user=bot.owner)
                stored.append(log)
    return stored


def stderr_logs_make_room(*, user) -> int:
    """Drop ``user``'s oldest full stderr logs until those kept fit their
    ``stderr_log_bytes`` allowance (newest first, as many as fit in a row); the number
    dropped. Call inside a transaction that holds the user's lock."""
    limit = allowances.allowance_limit(user=user, name="stderr_log_bytes")
    kept = MatchStderrLog.objects.filter(owner_id=user.pk, dropped_at__isnull=True)
    total, drop = 0, []
    for pk, size in kept.order_by("-created_at", "-id").values_list("pk", "size"):
        if drop or total + size > limit:
            drop.append(pk)
        else:
            total += size
    if drop:
        MatchStderrLog.objects.filter(pk__in=drop).update(
            data=b"", size=0, dropped_at=timezone.now()
        )
    return len(drop)
