"""WebSocket routes of the competitions: the live dashboard's event stream, and a running
match's games as they are played."""

from __future__ import annotations

from django.urls import path

from tournaments.sockets.consumers import CompetitionConsumer, MatchConsumer

websocket_urlpatterns = [
    path("ws/competitions/<int:competition_id>/", CompetitionConsumer.as_asgi()),
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
    path("ws/matches/<int:match_id>/games/<int:number>/", MatchConsumer.as_asgi()),
]
