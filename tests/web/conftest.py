"""The web pages as a browser without JavaScript uses them: session logins, forms, redirects."""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.test import Client

PASSWORD = "pw-correct-horse-7"

#: A bot that plays the first legal card, from PROTOCOL.md alone.
FIRST_LEGAL_BOT = b"""import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message.get("type") == "act":
        print("thinking", file=sys.stderr, flush=True)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message.get("type") == "bye":
        break
"""


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


def make_user(username: str, *, organiser: bool = False):
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    if organiser:
        user.user_permissions.add(Permission.objects.get(codename="organise_competitions"))
    return user


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


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
