"""Nothing a user sends exhausts a shared resource: the cache, the login, other people's
private bots, other organisers' competitions.

Each test is one attack a signed-up (or anonymous) user tried against a running
installation, replayed through real requests.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from bots.models import Bot
from tests.factories import logged_in, make_competition, make_user, uploaded_bot
from tests.web.conftest import once_value
from tournaments.models import Competition

pytestmark = pytest.mark.django_db

needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL", "").startswith("redis"), reason="needs REDIS_URL (Redis)"
)


@pytest.fixture
def redis_cache(settings):
    """The site's cache in the Redis of REDIS_URL, under a prefix of this test's own."""
    prefix = f"test-shared-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": prefix,
        }
    }
    client = cache._cache.get_client(None, write=True)
    yield client, f"{prefix}:*"
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def _used(client, pattern: str) -> tuple[int, int]:
    keys = list(client.scan_iter(pattern))
    return len(keys), sum(client.memory_usage(key) or 0 for key in keys)


@needs_redis
def test_50_posts_of_a_1_mb_form_value_add_nothing_to_the_cache(redis_cache):
    client, pattern = redis_cache
    browser = logged_in(make_user("mallory"))
    huge = "x" * 1_000_000

    answers = [
        browser.post(reverse("bots-web:token-regenerate"), {"once": f"{i}{huge}"}).status_code
        for i in range(50)
    ]

    keys, size = _used(client, pattern)
    assert answers == [302] * 50  # the posts were handled, as posts without a value are
    assert size < 10_000, f"{keys} keys, {size} bytes of cache"


@needs_redis
def test_the_form_value_the_server_made_still_stops_a_second_submission(redis_cache):
    browser = logged_in(make_user("ada"))
    page = browser.get(reverse("bots-web:my-bots")).content.decode()
    form = {"name": "twice", "once": once_value(page, "bot-create")}

    first = browser.post(reverse("bots-web:my-bots"), form)
    second = browser.post(reverse("bots-web:my-bots"), form)

    assert first.status_code == second.status_code == 302
    assert second["Location"] == first["Location"]


def test_a_form_value_made_for_another_session_is_not_honoured(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"once-{uuid.uuid4().hex}",
        }
    }
    ada, eve = make_user("ada"), make_user("eve")
    page = logged_in(ada).get(reverse("bots-web:my-bots")).content.decode()
    stolen = once_value(page, "bot-create")
    thief = logged_in(eve)

    thief.post(reverse("bots-web:my-bots"), {"name": "one", "once": stolen})
    thief.post(reverse("bots-web:my-bots"), {"name": "two", "once": stolen})

    assert sorted(Bot.objects.filter(owner=eve).values_list("name", flat=True)) == ["one", "two"]
    assert not cache.get(f"form-once:{stolen}")  # nothing was remembered for it


# --- a private bot answers as a missing one ----------------------------------------------


def _answer(response, bot_id: int) -> tuple[int, str]:
    """Status and body, with the bot's id written out (it is the one thing that differs)."""
    body = response.content.decode(errors="replace").replace(str(bot_id), "<id>")
    return response.status_code, re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", body)


def test_every_route_answers_for_a_private_bot_as_for_a_missing_one(settings):
    ada, bob = make_user("ada"), make_user("bob")
    private = uploaded_bot(ada)
    missing = private.pk + 1000
    make_competition(make_user("olga", organiser=True), name="Friday cup")
    bob_web, bob_api = logged_in(bob), APIClient()
    bob_api.force_authenticate(bob)
    cup = Competition.objects.get()

    def doors(bot_id: int) -> list:
        return [
            bob_api.get(f"/api/bots/{bot_id}/"),
            bob_api.get(f"/api/bots/{bot_id}/versions/"),
            bob_api.get(f"/api/bots/{bot_id}/versions/1/"),
            bob_api.get(f"/api/bots/{bot_id}/versions/1/download/"),
            bob_api.get(f"/api/bots/{bot_id}/sprt/"),
            bob_api.get(f"/api/bots/{bot_id}/sprt/1/"),
            bob_api.post(f"/api/bots/{bot_id}/sprt/", {"new": 1, "old": 1, "variant": "x"}),
            bob_api.post(f"/api/bots/{bot_id}/sprt/1/cancel/"),
            bob_api.post("/api/entries/", {"competition": cup.pk, "bot": bot_id}),
            APIClient().get(f"/api/bots/{bot_id}/sprt/"),
            bob_web.get(reverse("bots-web:bot-detail", args=[bot_id])),
            bob_web.get(reverse("bots-web:version-status", args=[bot_id, 1])),
            bob_web.post(reverse("bots-web:bot-enter", args=[bot_id]), {"competition": cup.pk}),
        ]

    for seen, absent in zip(doors(private.pk), doors(missing), strict=True):
        assert _answer(seen, private.pk) == _answer(absent, missing), seen.request["PATH_INFO"]
        assert seen.status_code in (400, 404)


# --- the cache on its own Redis database, with a memory limit ----------------------------


def _settings_in_a_fresh_process(**env: str) -> dict:
    code = (
        "import json, django; from django.conf import settings; django.setup(); "
        "print(json.dumps(settings.CACHES['default']))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDROOM_CACHE_URL")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_cache_has_a_redis_database_of_its_own():
    default = _settings_in_a_fresh_process(REDIS_URL="redis://broker:6379/0")
    chosen = _settings_in_a_fresh_process(
        REDIS_URL="redis://broker:6379/0", CARDROOM_CACHE_URL="redis://cache:6379/0"
    )

    assert default["LOCATION"] == "redis://broker:6379/1"
    assert chosen["LOCATION"] == "redis://cache:6379/0"


def test_the_embedded_redis_has_a_memory_limit_and_evicts_expiring_keys(tmp_path):
    """The Redis that ``make demo`` and the tests start (``tournaments.demo.processes.redis_argv``):
    past its limit the cache's keys (they expire) go, the broker's queues (they do not)
    stay."""
    import redis

    from tests.services import redis_server

    with redis_server(tmp_path) as url:
        server = redis.Redis.from_url(url)
        config = server.config_get("maxmemory*")
        assert int(config["maxmemory"]) == 256 * 1024 * 1024
        assert config["maxmemory-policy"] == "volatile-lru"

        # The same policy under a limit small enough to reach in a test.
        server.config_set("maxmemory", str(4 * 1024 * 1024))
        server.rpush("celery", *[b"task" * 256] * 512)  # ~0.5 MiB of queued work
        for n in range(64):
            server.set(f"cache:{n}", b"x" * (256 * 1024), ex=3600)  # 16 MiB offered

        assert server.llen("celery") == 512
        kept = sum(server.exists(f"cache:{n}") for n in range(64))
        assert 0 < kept < 64
