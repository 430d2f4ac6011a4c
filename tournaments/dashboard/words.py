"""Statuses in words, for every page: one table, read by the pages, the replay and the
live page script (through ``dashboard.pages.page_words``)."""

from __future__ import annotations

#: A seat's game status in words (bots.referee.players; RULES.md FORFEIT-1).
STATUS_WORDS = {
    "ok": "played to the end",
    "illegal": "illegal move",
    "timeout": "ran out of time",
    "crash": "crashed",
    "malformed": "sent a malformed answer",
    "flood": "flooded its output",
    "not-ready": "never said it was ready",
    "out-of-turn": "answered out of turn",
    "memory": "used too much memory",
}


def status_words(status: str) -> str:
    """A game status in words; an unknown one as it is."""
    return STATUS_WORDS.get(status, status)
