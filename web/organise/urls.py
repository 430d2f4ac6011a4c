"""URLs of the organisers' pages, mounted at ``/organise/``."""

from __future__ import annotations

from django.urls import path

from web.organise import views

app_name = "organise"

urlpatterns = [
    path("", views.organise_home, name="home"),
    path("new/", views.competition_new, name="competition-new"),
    path("<int:competition_id>/", views.competition_page, name="competition"),
    path("<int:competition_id>/entries/", views.entry_add, name="entry-add"),
    path(
        "<int:competition_id>/entries/<int:entry_id>/remove/",
        views.entry_remove,
        name="entry-remove",
    ),
    path(
        "<int:competition_id>/entries/<int:entry_id>/division/",
        views.entry_division,
        name="entry-division",
    ),
    path(
        "<int:competition_id>/entries/<int:entry_id>/seed/",
        views.entry_seed,
        name="entry-seed",
    ),
    path("<int:competition_id>/collusion/", views.collusion_page, name="collusion"),
    path("<int:competition_id>/collusion/act/", views.collusion_action, name="collusion-action"),
    path(
        "<int:competition_id>/matches/<int:match_id>/retry/",
        views.match_retry,
        name="match-retry",
    ),
    path(
        "<int:competition_id>/next-season/",
        views.next_season,
        name="next-season",
    ),
    path(
        "<int:competition_id>/<str:action>/",
        views.competition_action,
        name="competition-action",
    ),
]
