"""Routes of the competitions API, registered on the root router (``api.urls``)."""

from __future__ import annotations

from rest_framework.routers import BaseRouter

from api.tournaments.challenges import ChallengeViewSet
from api.tournaments.compare import CompetitionCompareViewSet
from api.tournaments.sprt import VersionTestViewSet
from api.tournaments.views import (
    CompetitionViewSet,
    EntryViewSet,
    GameRecordViewSet,
    MatchViewSet,
    RoundViewSet,
)


def register(router: BaseRouter) -> None:
    router.register("competitions", CompetitionViewSet, basename="competition")
    router.register("entries", EntryViewSet, basename="entry")
    router.register("rounds", RoundViewSet, basename="round")
    router.register("matches", MatchViewSet, basename="match")
    router.register("games", GameRecordViewSet, basename="game")
    router.register("challenges", ChallengeViewSet, basename="challenge")
    router.register(
        r"competitions/(?P<competition_pk>[0-9]+)/compare",
        CompetitionCompareViewSet,
        basename="competition-compare",
    )
    router.register(r"bots/(?P<bot_pk>[0-9]+)/sprt", VersionTestViewSet, basename="version-test")
