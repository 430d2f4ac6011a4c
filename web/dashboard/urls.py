"""URLs of the dashboard, mounted at ``/dashboard/``."""

from __future__ import annotations

from django.urls import path, re_path

from web.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.competition_list, name="competition-list"),
    path(
        "competitions/<int:competition_id>/",
        views.competition_detail,
        name="competition-detail",
    ),
    re_path(
        r"^competitions/(?P<competition_id>[0-9]+)/(?P<table>standings|matches|crosstable)\.(?P<kind>csv|json)$",
        views.competition_download,
        name="competition-download",
    ),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path(
        "matches/<int:match_id>/transcripts.zip",
        views.match_transcripts,
        name="match-transcripts",
    ),
    path(
        "matches/<int:match_id>/stderr-<int:seat>.log.gz",
        views.match_stderr,
        name="match-stderr",
    ),
    path("games/<int:game_id>/", views.game_replay, name="game-replay"),
    path("matches/<int:match_id>/games/<int:number>/", views.live_game, name="live-game"),
]
