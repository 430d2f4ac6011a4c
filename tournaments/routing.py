"""WebSocket routes of the competitions: the live dashboard's event stream."""

from __future__ import annotations

from django.urls import path

from tournaments.consumers import CompetitionConsumer

websocket_urlpatterns = [
    path("ws/competitions/<int:competition_id>/", CompetitionConsumer.as_asgi()),
]
