"""Competitions and everything in them: entries, rounds, matches, game records, results
(:mod:`~api.tournaments.views.competitions`, :mod:`~api.tournaments.views.entries`,
:mod:`~api.tournaments.views.matches`).

Reads go through ``competitions_visible_to``: a private competition, and all
that belongs to it, is a 404 to anyone who may not see it. Writes call one
service of ``tournaments.services`` each, in a transaction; the services
decide what a state allows and who may do it.
"""

from api.tournaments.views.competitions import (
    WITH_CSV,
    CompetitionFilter,
    CompetitionViewSet,
    CSVRenderer,
    RoundResultsQuery,
    competition_filter,
    played_competitions,
    played_filter,
    visible_competitions,
)
from api.tournaments.views.entries import (
    EntryFilter,
    EntryViewSet,
    PaginatedRatingPointSerializer,
)
from api.tournaments.views.matches import (
    GameRecordFilter,
    GameRecordViewSet,
    MatchFilter,
    MatchViewSet,
    RoundFilter,
    RoundViewSet,
)

__all__ = [
    "WITH_CSV",
    "CSVRenderer",
    "CompetitionFilter",
    "CompetitionViewSet",
    "EntryFilter",
    "EntryViewSet",
    "GameRecordFilter",
    "GameRecordViewSet",
    "MatchFilter",
    "MatchViewSet",
    "PaginatedRatingPointSerializer",
    "RoundFilter",
    "RoundResultsQuery",
    "RoundViewSet",
    "competition_filter",
    "played_competitions",
    "played_filter",
    "visible_competitions",
]
