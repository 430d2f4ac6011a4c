"""The web pages as a browser without JavaScript uses them: session logins, forms, redirects."""

from __future__ import annotations

import re
import uuid

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from tournaments.models import Competition


@pytest.fixture(autouse=True)
def _web_settings(settings, tmp_path):
    """Uploads in a temporary media root, fast password hashing, a cache of this test's own
    (the forms remember what was submitted there), an in-memory channel layer."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"web-tests-{uuid.uuid4().hex}",
        }
    }
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def eager_celery():
    """Tasks sent run at once in this process, as a worker would run them."""
    from config.celery import app

    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = False


def once_value(html: str, form_id: str | None = None) -> str:
    """The ``once`` value of a form of the page (of the form with ``form_id`` if given)."""
    if form_id is not None:
        html = html[html.index(f'id="{form_id}"') :]
    return re.search(r'name="once" value="([^"]+)"', html).group(1)


def error_next_to(html: str, field: str) -> str:
    """The text of the error list Django draws next to ``field``
    (``<ul class="errorlist" id="id_<field>_error">``)."""
    pattern = rf'<ul class="errorlist" id="id_{re.escape(field)}_error">(.*?)</ul>'
    match = re.search(pattern, html, re.S)
    assert match, f"no error next to {field!r} in the page"
    return re.sub(r"<[^>]+>", " ", match.group(1)).strip()


def new_competition_form(client: Client, **fields) -> dict:
    """The organise page's new-competition form, filled in (``fields`` override)."""
    page = client.get(reverse("organise:competition-new")).content.decode()
    form = {
        "name": "Spring cup",
        "kind": "tournament",
        "variant": "money-jordan",
        "format": "single-elimination",
        "games_per_match": "4",
        "duplicate": "on",
        "move_ms": "1500",
        "bank_ms": "15000",
        "playoff_games_cap": "2",
        "is_public": "on",
        "once": once_value(page, "competition-form"),
    }
    form.update(fields)
    return form


def post_action(client: Client, competition: Competition, action: str, confirm: bool = True):
    """Press the organise page's ``action`` button of ``competition`` (confirming a close)."""
    page = client.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    data = {"once": once_value(page)}
    if action == "close" and confirm:
        data["confirm"] = "yes"
    return client.post(reverse("organise:competition-action", args=[competition.pk, action]), data)


def add_entry(client: Client, competition: Competition, bot: Bot):
    """Enter ``bot`` through the organise page's entry form."""
    page = client.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    return client.post(
        reverse("organise:entry-add", args=[competition.pk]),
        {"bot": bot.pk, "once": once_value(page, "entry-form")},
    )
