"""Statuses in words, for every page: one table per kind of status, read by the site's
pages, the bot authors' and organisers' pages, the replay and the live page script
(through ``web.dashboard.pages.page_words``). The stored values stay codes."""

from __future__ import annotations

#: A seat's game status in words (bots.referee.players; RULES.md FORFEIT-1).
STATUS_WORDS = {
    "ok": "played to the end",
    "illegal": "made an illegal move",
    "timeout": "ran out of time",
    "crash": "crashed",
    "malformed": "sent a line that is not the protocol",
    "flood": "wrote too much output",
    "not-ready": "did not answer hello",
    "out-of-turn": "spoke out of turn",
    "memory": "used too much memory",
}

#: Match statuses (codes of ``tournaments.models.Match.Status``).
MATCH_STATUS_WORDS = {
    "pending": "waiting",
    "queued": "queued",
    "running": "being played",
    "done": "finished",
    "failed": "failed (the platform gave up on it)",
}

#: Round statuses (codes of ``tournaments.models.Round.Status``).
ROUND_STATUS_WORDS = {"pending": "waiting", "running": "in play", "finished": "finished"}

#: Competition statuses (codes of ``tournaments.models.Competition.Status``).
COMPETITION_STATUS_WORDS = {
    "draft": "not started",
    "running": "in progress",
    "paused": "paused",
    "finished": "finished",
    #: Not a stored status: a finished competition closed before its schedule ended
    #: (``Competition.shown_status``).
    "closed-early": "closed early",
    "cancelled": "cancelled",
}

#: A league season's standings row that goes up or down (``selectors``' ``move``): while
#: the season runs (``up``, ``down``) and once it has finished (``up-final``, ``down-final``).
MOVE_WORDS = {
    "up": "▲ promotion place",
    "down": "▼ relegation place",
    "up-final": "▲ goes up",
    "down-final": "▼ goes down",
}

#: Bot version statuses (codes of ``bots.models.BotVersion.Status``).
VERSION_STATUS_WORDS = {
    "pending": "waiting to be validated",
    "validating": "being validated",
    "ready": "ready to play",
    "rejected": "rejected",
}


def status_words(status: str) -> str:
    """A game status in words; an unknown one as it is."""
    return STATUS_WORDS.get(status, status)


def match_status_words(status: str) -> str:
    return MATCH_STATUS_WORDS.get(status, status)


def competition_status_words(status: str) -> str:
    return COMPETITION_STATUS_WORDS.get(status, status)


def version_status_words(status: str) -> str:
    return VERSION_STATUS_WORDS.get(status, status)


def move_words(move: str | None, *, finished: bool) -> str:
    """A standings row's ``move`` in words ("" for none), final once the season has
    ``finished``."""
    if not move:
        return ""
    return MOVE_WORDS.get(f"{move}-final" if finished else move, move)
