"""A small world for the dashboard: users, builtin bots, competitions, session cookies."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client

from config.asgi import application
from tests.browser import chromium_browser
from tests.factories import logged_in, make_competition, make_user, play_one, snapshot_of
from tournaments.models import RatingEvent

IN_MEMORY_LAYER = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture(autouse=True)
def _dashboard_settings(settings):
    """One process, one in-memory channel layer, a cache of this test's own (replays and
    rate limits kept by one test are not another's); fast password hashing."""
    settings.CHANNEL_LAYERS = IN_MEMORY_LAYER
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"dashboard-{uuid.uuid4().hex}",
        }
    }
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value


@pytest.fixture
def organiser(db):
    return make_user("olga")


@pytest.fixture
def outsider(db):
    return make_user("otto")


@pytest.fixture
def staff(db):
    return make_user("stan", is_staff=True)


def communicator(competition_id: int, user=None) -> WebsocketCommunicator:
    """A websocket client of the competition's live socket (with ``user``'s session)."""
    headers = [(b"origin", b"http://localhost")]
    if user is not None:
        cookie = session_cookie(user)
        headers.append((b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    return WebsocketCommunicator(application, f"/ws/competitions/{competition_id}/", headers)


async def open_socket(competition_id: int, user=None) -> WebsocketCommunicator:
    """:func:`communicator`, connected."""
    comm = await database_sync_to_async(communicator)(competition_id, user)
    connected, _ = await comm.connect()
    assert connected
    return comm


@pytest.fixture
def browser():
    """A headless chromium (tests/browser.py)."""
    with chromium_browser() as chromium:
        yield chromium


@pytest.fixture
def live(organiser):
    """A round robin of eight (two tables a round) with one result, its page and its snapshot
    (read before the browser starts: the database is not used from Playwright's event loop)."""
    competition = make_competition(organiser, entries=8, start=True)
    match = play_one(competition)
    competition.refresh_from_db()
    html = logged_in(organiser).get(f"/dashboard/competitions/{competition.pk}/")
    html = html.content.decode()  # as its organiser: the workers panel is theirs
    snapshot = snapshot_of(html)
    rated = set(RatingEvent.objects.filter(match=match).values_list("entry", flat=True))
    return SimpleNamespace(
        competition=competition, match=match, html=html, snapshot=snapshot, rated=rated
    )
