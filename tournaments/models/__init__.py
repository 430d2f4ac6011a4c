"""Competitions, their entries, rounds, matches, results, records and rating history, one
module per sub-domain: a competition and its entries (``competitions``), what is played
(``matches``), what an author asks for (``author_requests``: version tests, challenges),
fair play's records (``fair_play``). Every model is importable from this package."""

# The models register in the order they had in one module (competitions first).
# isort: off
from tournaments.models.competitions import (
    ORGANISED_FORMATS,
    ORGANISED_KINDS,
    Competition,
    Entry,
)
from tournaments.models.matches import (
    GameRecord,
    Match,
    MatchSeat,
    MatchStderrLog,
    RatingEvent,
    Round,
    display_rating_expression,
)
from tournaments.models.author_requests import Challenge, VersionTest
from tournaments.models.fair_play import OwnerLink, TableExclusion
# isort: on

__all__ = [
    "ORGANISED_FORMATS",
    "ORGANISED_KINDS",
    "Challenge",
    "Competition",
    "Entry",
    "GameRecord",
    "Match",
    "MatchSeat",
    "MatchStderrLog",
    "OwnerLink",
    "RatingEvent",
    "Round",
    "TableExclusion",
    "VersionTest",
    "display_rating_expression",
]
