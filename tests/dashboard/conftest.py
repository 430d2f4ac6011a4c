"""A small world for the dashboard: users, builtin bots, competitions, session cookies."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client

from bots.models import Bot
from tournaments import services
from tournaments.models import Competition, Match

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


def make_user(username: str, **extra):
    return get_user_model().objects.create_user(username, password="pw-123456", **extra)


def make_competition(
    organiser,
    *,
    name: str = "Club night",
    is_public: bool = True,
    entries: int = 3,
    games=3,
    variant: str = "manni-basic",
    format: str = "round-robin",
    rounds_planned: int | None = None,
) -> Competition:
    """A started tournament of builtin random bots: by default a round robin of manni-basic
    (3 seats); ``variant="money-jordan"`` has two seats (for brackets; ``games`` even)."""
    competition = services.competition_create(
        created_by=organiser,
        name=name,
        kind="tournament",
        variant=variant,
        format=format,
        games_per_match=games,
        is_public=is_public,
        rounds_planned=rounds_planned,
    )
    for i in range(entries):
        slug = name.lower().replace(" ", "-")
        bot = Bot.objects.create(name=f"{slug}-random-{i}", builtin="random")
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)  # played here
    return competition


def play_all(competition: Competition) -> list[Match]:
    """Play every match until the competition has nothing pending (later rounds included)."""
    played = []
    while competition.matches.filter(status=Match.Status.PENDING).exists():
        played.append(play_one(competition))
    return played


def play_one(competition: Competition) -> Match:
    """Play and record the first pending match of ``competition``."""
    match = competition.matches.filter(status=Match.Status.PENDING).order_by("id").first()
    assert match is not None, "no pending match left"
    result = services.match_play(match=match)
    assert services.match_record_result(match=match, result=result, send=None)
    match.refresh_from_db()
    return match


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


def logged_in(user) -> Client:
    """A test client with ``user``'s session."""
    client = Client()
    client.force_login(user)
    return client


def snapshot_of(html: str) -> dict:
    """The live page's first snapshot, as the page embeds it."""
    found = re.search(r'<script id="snapshot" type="application/json">(.*?)</script>', html, re.S)
    assert found
    return json.loads(found.group(1))


def open_ladder(organiser) -> Competition:
    """A running money-jordan ladder of four random built-ins with one match played."""
    ladder = services.competition_create(
        created_by=organiser,
        name="Open ladder",
        kind="ladder",
        variant="money-jordan",
        format="ladder",
        games_per_match=2,
    )
    for i in range(4):
        services.entry_create(
            competition=ladder, bot=Bot.objects.create(name=f"l{i}", builtin="random")
        )
    services.competition_start(competition=ladder, send=None)
    play_one(ladder)
    assert Competition.objects.get(pk=ladder.pk).status == "running"
    return ladder
