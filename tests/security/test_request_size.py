"""A request too large for the site is refused (413) before its body is read."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from bots import services as bot_services
from bots.models import BotBlob
from tests.factories import logged_in, make_user

pytestmark = pytest.mark.django_db


class Untouchable(io.RawIOBase):
    """A request body that fails the test if anything reads it."""

    def readable(self) -> bool:
        return True

    def read(self, *args):
        raise AssertionError("the body of an oversized request was read")

    readinto = readline = read


def huge() -> str:
    return str(settings.CARDROOM_MAX_REQUEST_BYTES + 1)


def test_an_oversized_web_upload_is_refused_unread_and_stores_nothing():
    ada = make_user("ada")
    bot = bot_services.bot_create(owner=ada, name="target", description="")
    browser = logged_in(ada)

    answer = browser.generic(
        "POST",
        reverse("bots-web:version-upload", args=[bot.pk]),
        CONTENT_TYPE="multipart/form-data; boundary=x",
        CONTENT_LENGTH=huge(),
        **{"wsgi.input": Untouchable()},
    )

    assert answer.status_code == 413
    assert "at most" in answer.content.decode()
    assert not bot.versions.exists() and not BotBlob.objects.exists()


def test_an_oversized_api_request_gets_a_json_413_unread():
    answer = Client().generic(
        "POST",
        "/api/bots/1/versions/",
        CONTENT_TYPE="multipart/form-data; boundary=x",
        CONTENT_LENGTH=huge(),
        **{"wsgi.input": Untouchable()},
    )
    assert answer.status_code == 413
    assert "too large" in answer.json()["detail"]


def test_a_request_within_the_limit_reaches_the_site():
    answer = Client().post("/api/auth/token/", data={"username": "x", "password": "y"})
    assert answer.status_code != 413


# -- the ASGI application, as the site is served -------------------------------------------


def asgi(app, scope_headers, chunks):
    """Run ``app`` on one HTTP request; its response status and body, and the chunks read."""
    read: list[bytes] = []
    sent: list[dict] = []
    pending = list(chunks)

    async def receive():
        if not pending:
            return {"type": "http.disconnect"}
        body = pending.pop(0)
        read.append(body)
        return {"type": "http.request", "body": body, "more_body": bool(pending)}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/bots/1/versions/",
        "headers": scope_headers,
        "query_string": b"",
    }
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body, read


async def reads_everything(scope, receive, send):
    """An application that reads the whole body before answering, as Django's does."""
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_served_site_refuses_a_declared_oversized_body_without_receiving_it():
    from config.asgi import application

    status, body, read = asgi(application, [(b"content-length", huge().encode())], [b"x"])
    assert status == 413 and read == []
    assert "too large" in json.loads(body)["detail"]


def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit():
    from config.request_size import limit_request_size

    limit = settings.CARDROOM_MAX_REQUEST_BYTES
    chunk = b"x" * (limit // 4 + 1)
    status, _, read = asgi(limit_request_size(reads_everything), [], [chunk] * 10)
    assert status == 413 and len(read) == 4  # refused at the fourth chunk, not the tenth
    status, body, _ = asgi(limit_request_size(reads_everything), [], [chunk] * 3)
    assert (status, body) == (200, b"ok")
