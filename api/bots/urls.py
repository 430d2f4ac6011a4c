"""Routes of the bots API, registered on the root router (``api.urls``)."""

from __future__ import annotations

from rest_framework.routers import BaseRouter

from api.bots.views import BotVersionViewSet, BotViewSet


def register(router: BaseRouter) -> None:
    router.register("bots", BotViewSet, basename="bot")
    router.register(r"bots/(?P<bot_pk>[0-9]+)/versions", BotVersionViewSet, basename="bot-version")
