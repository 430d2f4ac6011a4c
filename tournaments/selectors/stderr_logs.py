"""Reads of the full stderr logs of matches (``services.stderr_logs`` keeps them): only
the owner of the bot at a seat reads that seat's log, and only once the match is done."""

from __future__ import annotations

from typing import Any

from tournaments.models import Match, MatchSeat, MatchStderrLog


def seat_stderr_log(*, match: Match, seat: int, user) -> MatchStderrLog | None:
    """The full stderr log of ``seat`` of the done ``match`` with its bytes, if ``user``
    owns the bot that sat there and the log is still kept; None otherwise."""
    if match.status != Match.Status.DONE or user is None or not user.is_authenticated:
        return None
    log = (
        MatchStderrLog.objects.filter(seat__match=match, seat__seat=seat, owner_id=user.pk)
        .filter(dropped_at__isnull=True)
        .select_related("seat__entry__bot", "seat__entry__partner")
        .first()
    )
    if log is None or log.seat.entry.bot_at(seat).owner_id != user.pk:
        return None
    return log


def own_stderr_logs(*, match: Match, user) -> list[dict[str, Any]]:
    """Per seat of the done ``match`` whose bot ``user`` owns: ``seat``, ``name`` and its
    full stderr ``log`` (without its bytes; None if the bot wrote nothing or is a
    built-in), as the match page shows them."""
    if match.status != Match.Status.DONE or user is None or not user.is_authenticated:
        return []
    seats = MatchSeat.objects.filter(match=match).select_related("entry__bot", "entry__partner")
    logs = {
        log.seat_id: log
        for log in MatchStderrLog.objects.filter(seat__match=match, owner_id=user.pk).defer("data")
    }
    out = []
    for seat in seats.order_by("seat"):
        bot = seat.entry.bot_at(seat.seat)
        if bot.owner_id == user.pk:
            out.append({"seat": seat.seat, "name": str(bot), "log": logs.get(seat.pk)})
    return out
