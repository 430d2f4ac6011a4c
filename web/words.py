"""Statuses and fault reasons in words for the bot pages: the site's one table
(``tournaments.watching.words``), under the names these pages use."""

from __future__ import annotations

from tournaments.watching.words import (
    COMPETITION_STATUS_WORDS as COMPETITION_STATUS,
)
from tournaments.watching.words import (
    MATCH_STATUS_WORDS as MATCH_STATUS,
)
from tournaments.watching.words import (
    STATUS_WORDS as GAME_STATUS,
)
from tournaments.watching.words import (
    VERSION_STATUS_WORDS as VERSION_STATUS,
)
from tournaments.watching.words import (
    competition_status_words as competition_status,
)
from tournaments.watching.words import (
    match_status_words as match_status,
)
from tournaments.watching.words import (
    status_words as game_status,
)
from tournaments.watching.words import (
    version_status_words as version_status,
)

#: The statuses of a version test in words (``tournaments.models.VersionTest.Status``).
VERSION_TEST_STATUS = {
    "pending": "waiting for a worker",
    "running": "running",
    "done": "done",
    "failed": "failed",
    "cancelled": "cancelled",
}


def version_test_outcome(
    *, status: str, decision: str, new: int, old: int, games: int, error: str = ""
) -> str:
    """Where a version test of ``v{new}`` against ``v{old}`` stands, in words: its decision
    once there is one, "running" until then, or why it stopped."""
    played = f"{games} game{'s' if games != 1 else ''}"
    if status == "done" and decision == "H1":
        return f"v{new} is better than v{old} (H1 accepted after {played})"
    if status == "done" and decision == "H0":
        return f"v{new} is no better than v{old} (H0 accepted after {played})"
    if status == "done":
        return f"stopped: undecided after {played}, the most it could play"
    if status == "failed":
        reason = error.strip().splitlines()[0][:200] if error.strip() else "no reason given"
        return f"stopped: a version could not be played after {played} ({reason})"
    if status == "cancelled":
        return f"stopped: cancelled by its owner after {played}"
    if status == "pending" and not games:
        return "running: waiting for a worker"
    return f"running: {played} so far"


__all__ = [
    "COMPETITION_STATUS",
    "GAME_STATUS",
    "MATCH_STATUS",
    "VERSION_STATUS",
    "VERSION_TEST_STATUS",
    "competition_status",
    "game_status",
    "match_status",
    "version_status",
    "version_test_outcome",
]


#: The statuses of a challenge in words (``tournaments.models.Challenge.Status``).
CHALLENGE_STATUS = {
    "running": "playing",
    "done": "done",
    "cancelled": "cancelled",
}


def challenge_status(status: str) -> str:
    return CHALLENGE_STATUS.get(status, status)


def waiting_place(place: dict | None, report: dict | None = None) -> str:
    """Where queued work waits, in words ("3rd in the queue, 2 ahead, starts in about
    40 s"); empty once it started. Work a worker that stopped had started (``resumed`` in
    the place of a challenge or a version test; for a version, its validation report's
    queue entry, ``report``) says "resumed after a restart" first."""
    if not place:
        return ""
    ahead = place["ahead"]
    first = "next in the queue" if not ahead else f"{_ordinal(place['position'])} in the queue"
    behind = "" if not ahead else f", {ahead} ahead"
    eta = place["estimated_start_s"]
    starts = "starts within seconds" if eta < 5 else f"starts in about {_duration(eta)}"
    resumed = place.get("resumed") or ((report or {}).get("queue") or {}).get("resumed_at")
    again = "resumed after a restart: " if resumed else ""
    return f"{again}{first}{behind}; {starts}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{round(seconds / 5) * 5 or 5:.0f} s"
    minutes = seconds / 60
    return f"{minutes:.0f} min" if minutes < 90 else f"{minutes / 60:.1f} h"
