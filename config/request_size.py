"""Requests larger than ``CARDROOM_MAX_REQUEST_BYTES`` are refused before their body is read.

The largest request the site takes is a bot upload (5 MiB, ``bots.archive.Limits``)
with its form fields. Reading a bigger body only to refuse it afterwards would let
anyone fill the disk and the memory of a web process with one request, so the
refusal (413) comes first, from what the request says of its size:

- :func:`limit_request_size` wraps the ASGI application (the site as served): a
  ``content-length`` over the limit is answered at once, without receiving the body;
  a body sent without one (chunked) is counted as it arrives and refused as soon as
  it passes the limit, before Django sees it.
- :class:`RequestSizeLimitMiddleware` does the same for WSGI (and the test client),
  from ``CONTENT_LENGTH``, ahead of every middleware that reads the body (CSRF).

Under the API (``/api/``) the answer is JSON (``{"detail": ...}``) as DRF's errors are.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def refusal(path: str, limit: int) -> tuple[bytes, str]:
    """The 413 body and its content type for a request to ``path``."""
    text = f"The request is too large: at most {limit} bytes (a bot upload and its form)."
    if path.startswith("/api/"):
        return json.dumps({"detail": text}).encode(), "application/json"
    return (text + "\n").encode(), "text/plain; charset=utf-8"


def _declared_too_large(value: str | bytes | None, limit: int) -> bool:
    """Whether a ``Content-Length`` says more than ``limit`` (or is not a number)."""
    if value in (None, b"", ""):
        return False
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    return not text.strip().isdigit() or int(text) > limit


class RequestSizeLimitMiddleware:
    """413 for a request whose ``CONTENT_LENGTH`` is over the limit; nothing is read."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.CARDROOM_MAX_REQUEST_BYTES
        if _declared_too_large(request.META.get("CONTENT_LENGTH"), limit):
            body, kind = refusal(request.path_info, limit)
            return HttpResponse(body, status=413, content_type=kind)
        return self.get_response(request)


class _TooLarge(Exception):
    pass


def limit_request_size(app: Callable[[Scope, Receive, Send], Awaitable[None]]):
    """``app`` (ASGI) behind the limit, for HTTP; other protocols pass through."""

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        limit = settings.CARDROOM_MAX_REQUEST_BYTES
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if _declared_too_large(length, limit):
            await _refuse(scope, send, limit)
            return
        received, started = 0, False

        async def counting_receive() -> dict[str, Any]:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _TooLarge
            return message

        async def watching_send(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await app(scope, counting_receive, watching_send)
        except _TooLarge:
            if not started:
                await _refuse(scope, send, limit)

    return limited


async def _refuse(scope: Scope, send: Send, limit: int) -> None:
    body, kind = refusal(scope.get("path", ""), limit)
    headers = [(b"content-type", kind.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
