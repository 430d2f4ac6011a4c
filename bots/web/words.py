"""Statuses and fault reasons in words for the bot pages: the site's one table
(``tournaments.dashboard.words``), under the names these pages use."""

from __future__ import annotations

from tournaments.dashboard.words import (
    COMPETITION_STATUS_WORDS as COMPETITION_STATUS,
)
from tournaments.dashboard.words import (
    MATCH_STATUS_WORDS as MATCH_STATUS,
)
from tournaments.dashboard.words import (
    STATUS_WORDS as GAME_STATUS,
)
from tournaments.dashboard.words import (
    VERSION_STATUS_WORDS as VERSION_STATUS,
)
from tournaments.dashboard.words import (
    competition_status_words as competition_status,
)
from tournaments.dashboard.words import (
    match_status_words as match_status,
)
from tournaments.dashboard.words import (
    status_words as game_status,
)
from tournaments.dashboard.words import (
    version_status_words as version_status,
)

__all__ = [
    "COMPETITION_STATUS",
    "GAME_STATUS",
    "MATCH_STATUS",
    "VERSION_STATUS",
    "competition_status",
    "game_status",
    "match_status",
    "version_status",
]
