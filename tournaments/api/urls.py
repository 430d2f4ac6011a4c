"""Routes of the competitions API, registered on the root router (``config.urls``)."""

from __future__ import annotations

from rest_framework.routers import BaseRouter

from tournaments.api.challenges import ChallengeViewSet
from tournaments.api.compare import CompetitionCompareViewSet
from tournaments.api.sprt import VersionTestViewSet
from tournaments.api.views import (
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
