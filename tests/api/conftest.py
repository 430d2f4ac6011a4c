"""Users, clients and a small world of bots and competitions for the API tests."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.factories import make_bot, make_competition, make_match, make_user
from tournaments import services as tournament_services
from tournaments.models import Competition


@pytest.fixture(autouse=True)
def _media_and_validation(settings, tmp_path):
    """Uploads go to a temporary media root (their validation task runs only if a test
    runs the commit callbacks)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast tests


@pytest.fixture(autouse=True)
def _private_cache(settings):
    """Each test counts its rate limits in a cache of its own, empty at the start."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"tests-{uuid.uuid4().hex}",
        }
    }
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


@pytest.fixture
def organiser(db):
    user = make_user("olga")
    user.user_permissions.add(Permission.objects.get(codename="organise_competitions"))
    return get_user_model().objects.get(pk=user.pk)  # a fresh object: no stale perm cache


@pytest.fixture
def staff(db):
    return make_user("stan", is_staff=True)


@pytest.fixture
def anon():
    return APIClient()


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def as_alice(alice):
    return client_for(alice)


@pytest.fixture
def as_bob(bob):
    return client_for(bob)


@pytest.fixture
def as_organiser(organiser):
    return client_for(organiser)


@pytest.fixture
def as_staff(staff):
    return client_for(staff)


@pytest.fixture
def league(organiser, alice, bob, staff):
    """A public running league of three bots (alice's, bob's, staff's): one match done, one not."""
    competition = make_competition(organiser, name="Winter league", kind="league-season", games=6)
    bots = [make_bot(alice, "alpha"), make_bot(bob, "bravo"), make_bot(staff, "charlie")]
    entries = [
        tournament_services.entry_create(competition=competition, bot=bot, by=None) for bot in bots
    ]
    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.RUNNING)
    competition.refresh_from_db()
    done = make_match(competition, entries, done=True, table=0)
    running = make_match(competition, entries, done=False, table=1)
    return {"competition": competition, "entries": entries, "done": done, "running": running}


def results(response) -> list[dict]:
    """The items of a paginated list response."""
    assert response.status_code == 200, response.content
    return response.json()["results"]


@pytest.fixture
def eager_celery():
    """Tasks sent run at once in this process (as a worker would run them)."""
    from config.celery import app

    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = False


def upload_version(client, bot_id: int, content: bytes, name: str = "bot.zip", **fields):
    """``POST /api/bots/{id}/versions/`` of ``content`` as the file ``name``."""
    return client.post(
        f"/api/bots/{bot_id}/versions/",
        {"file": SimpleUploadedFile(name, content), **fields},
        format="multipart",
    )


def validated_upload(client, capture, bot_id: int, content: bytes, **fields) -> dict:
    """Upload, then run the validation task the commit sends (as a worker would); the
    version as the API then shows it."""
    with capture(execute=True):
        response = upload_version(client, bot_id, content, **fields)
    assert response.status_code == 201, response.content
    return client.get(f"/api/bots/{bot_id}/versions/{response.json()['number']}/").json()
