"""Reads of entries: whether an entry plays now, waits for its bot's validation, or
cannot play, and with which version, in words for its pages and the API."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from bots.selectors import CANNOT_PLAY, PLAYS, outlook_prefetch, play_outlook
from tournaments.models import Competition, Entry

#: The states of :func:`entry_outlook` besides those of ``bots.selectors.play_outlook``.
WITHDRAWN, DISQUALIFIED, DEACTIVATED, OVER = "withdrawn", "disqualified", "deactivated", "over"


def entries_with_outlook() -> tuple[Prefetch, Prefetch]:
    """What a list of entries prefetches so that :func:`entry_outlook` reads no more (but
    the passes of a version pinned for an entry): ``prefetch_related(*...)``."""
    return outlook_prefetch("bot"), outlook_prefetch("partner")


def entry_outlook(*, entry: Entry) -> dict[str, Any]:
    """Where ``entry`` stands: ``state`` (``plays``, ``waits``, ``cannot-play``,
    ``withdrawn``, ``disqualified``, ``deactivated``, or ``over`` once its competition
    finished or was cancelled), ``version`` (the number of the
    version that plays, or the one whose validation it waits for; None for a built-in or
    when none) and ``words``, a sentence saying so. A team plays when both its bots can
    (the partner plays the version its owner pins, else its newest ready one)."""
    if entry.disqualified:
        return {"state": DISQUALIFIED, "version": None, "words": "Disqualified."}
    if entry.withdrawn:
        return {"state": WITHDRAWN, "version": None, "words": "Withdrawn."}
    competition = entry.competition
    if competition.status in (Competition.Status.FINISHED, Competition.Status.CANCELLED):
        pinned = entry.pinned_version.number if entry.pinned_version_id else None
        return {"state": OVER, "version": pinned, "words": f"Played ({competition.status})."}
    variant = competition.variant
    own = play_outlook(bot=entry.bot, variant=variant, pinned=entry.pinned_version)
    members = [(entry.bot, own)]
    if entry.partner_id is not None and entry.partner_id != entry.bot_id:
        members.append((entry.partner, play_outlook(bot=entry.partner, variant=variant)))
    version = own.version.number if own.version is not None else None
    for bot, _ in members:
        if not bot.active:
            words = f"Skipped: its owner deactivated {bot}; nothing is forfeited."
            return {"state": DEACTIVATED, "version": version, "words": words}
    for bot, outlook in members:
        if outlook.state == PLAYS:
            continue
        who = "" if bot.pk == entry.bot_id else f"its partner {bot} "
        text = outlook.words
        if outlook.state == CANNOT_PLAY:
            text = f"cannot play {variant}: {text}"
        number = outlook.version.number if outlook.version is not None else None
        return {"state": outlook.state, "version": number, "words": _capital(who + text) + "."}
    words = "; ".join(
        o.words if bot.pk == entry.bot_id else f"its partner {bot} {o.words}" for bot, o in members
    )
    return {"state": PLAYS, "version": version, "words": _capital(words) + "."}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
