"""URLs of the dashboard, mounted at ``/dashboard/``."""

from __future__ import annotations

from django.urls import path

from tournaments.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.competition_list, name="competition-list"),
    path(
        "competitions/<int:competition_id>/",
        views.competition_detail,
        name="competition-detail",
    ),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path("games/<int:game_id>/", views.game_replay, name="game-replay"),
    path("<str:name>", views.script, name="script"),
]
