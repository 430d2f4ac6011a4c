"""URLs of the bot authors' pages, mounted at ``/bots/``."""

from __future__ import annotations

from django.urls import path

from web.bots import invitations, views

app_name = "bots-web"

urlpatterns = [
    path("", views.my_bots, name="my-bots"),
    path("token/", views.token_regenerate, name="token-regenerate"),
    path("<int:bot_id>/", views.bot_detail, name="bot-detail"),
    path("<int:bot_id>/versions/", views.version_upload, name="version-upload"),
    path(
        "<int:bot_id>/versions/<int:number>/status/",
        views.version_status,
        name="version-status",
    ),
    path(
        "<int:bot_id>/versions/<int:number>/validate/",
        views.version_validate,
        name="version-validate",
    ),
    path("<int:bot_id>/enter/", views.bot_enter, name="bot-enter"),
    path("<int:bot_id>/play/", views.bot_play, name="bot-play"),
    path("<int:bot_id>/tests/", views.version_test_start, name="version-test-start"),
    path(
        "<int:bot_id>/tests/<int:test_id>/status/",
        views.version_test_status,
        name="version-test-status",
    ),
    path(
        "<int:bot_id>/tests/<int:test_id>/cancel/",
        views.version_test_cancel,
        name="version-test-cancel",
    ),
    path("<int:bot_id>/challenges/", views.challenge_start, name="challenge-start"),
    path("<int:bot_id>/quick-game/", views.quick_game, name="quick-game"),
    path("<int:bot_id>/challengeable/", views.bot_challengeable, name="bot-challengeable"),
    path(
        "invitations/<int:entry_id>/<str:answer>/",
        invitations.invitation_answer,
        name="invitation-answer",
    ),
    path("challenges/<int:challenge_id>/", views.challenge_detail, name="challenge-detail"),
    path(
        "challenges/<int:challenge_id>/status/",
        views.challenge_status,
        name="challenge-status",
    ),
    path(
        "challenges/<int:challenge_id>/cancel/",
        views.challenge_cancel,
        name="challenge-cancel",
    ),
]
