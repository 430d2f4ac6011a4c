"""Statuses and fault reasons in words, for the pages (the stored values stay codes)."""

from __future__ import annotations

from bots.models import BotVersion
from bots.referee.players import (
    CRASH,
    FLOOD,
    ILLEGAL,
    MALFORMED,
    MEMORY,
    NOT_READY,
    OK,
    OUT_OF_TURN,
    TIMEOUT,
)

VERSION_STATUS = {
    BotVersion.Status.PENDING: "waiting to be validated",
    BotVersion.Status.VALIDATING: "being validated",
    BotVersion.Status.READY: "ready to play",
    BotVersion.Status.REJECTED: "rejected",
}

#: What a seat's game status means (RULES.md section 8: how a faulty bot leaves a game).
GAME_STATUS = {
    OK: "played to the end",
    ILLEGAL: "made an illegal move",
    TIMEOUT: "ran out of time",
    CRASH: "crashed",
    MALFORMED: "sent a line that is not the protocol",
    FLOOD: "wrote too much output",
    NOT_READY: "did not answer hello",
    OUT_OF_TURN: "spoke out of turn",
    MEMORY: "used too much memory",
}

#: Competition statuses (codes of ``tournaments.models.Competition.Status``).
COMPETITION_STATUS = {
    "draft": "open for entries",
    "running": "being played",
    "paused": "paused",
    "finished": "finished",
    "cancelled": "cancelled",
}

#: Match statuses (codes of ``tournaments.models.Match.Status``).
MATCH_STATUS = {
    "pending": "waiting",
    "queued": "queued for a worker",
    "running": "being played",
    "done": "played",
    "failed": "failed",
}


def version_status(status: str) -> str:
    return VERSION_STATUS.get(status, status)


def game_status(status: str) -> str:
    return GAME_STATUS.get(status, status)


def competition_status(status: str) -> str:
    return COMPETITION_STATUS.get(status, status)


def match_status(status: str) -> str:
    return MATCH_STATUS.get(status, status)
