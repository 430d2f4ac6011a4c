"""The site's static files as its servers answer them, for the tests that follow a page's
``<script src>`` or ``<link href>`` to the file it names.

:func:`static_get` asks Django's static files handler, the one the demo's ASGI server
(``config.asgi`` with ``CARDROOM_SERVE_STATIC=1``) and the live test server put in front
of the site: it serves the apps' ``static/`` folders under ``STATIC_URL``. In production
nginx serves the same files from ``STATIC_ROOT`` (``manage.py collectstatic``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.exceptions import SuspiciousOperation
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished
from django.db import close_old_connections
from django.test import RequestFactory

#: The MIME types a browser runs a script under (``X-Content-Type-Options: nosniff``
#: refuses any other); Python's ``mimetypes`` gives one or the other.
JAVASCRIPT = frozenset({"text/javascript", "application/javascript"})


@dataclass(frozen=True)
class StaticAnswer:
    status: int
    content_type: str
    body: bytes


@cache
def _handler() -> StaticFilesHandler:
    return StaticFilesHandler(WSGIHandler())


def static_get(url: str) -> StaticAnswer:
    """``url`` (an address ``{% static %}`` wrote) as the static files handler answers it.

    Raises ``AssertionError`` for an address outside ``STATIC_URL``: the site itself, not
    the static files handler, would answer it."""
    handler = _handler()
    request = RequestFactory().get(url)
    assert handler._should_handle(request.path), f"{url} is not under STATIC_URL"
    try:
        response = handler.get_response(request)
    except SuspiciousOperation:
        # An address that leaves every static folder (``..``): the handler refuses it by
        # raising, and the server around it (uvicorn, the live server) answers 500.
        return StaticAnswer(500, "text/plain", b"")
    try:
        body = b"".join(response)
    finally:
        # Closing a response ends a request, which closes the database connections: not
        # the test's own (Django's test client closes its responses so too).
        request_finished.disconnect(close_old_connections)
        try:
            response.close()
        finally:
            request_finished.connect(close_old_connections)
    return StaticAnswer(response.status_code, response["Content-Type"], body)


def script_sources(html: str) -> list[str]:
    """The ``src`` of every ``<script>`` element of ``html``, in order."""
    return re.findall(r'<script\b[^>]*\bsrc="([^"]+)"', html)


def link_targets(html: str, rel: str) -> list[str]:
    """The ``href`` of every ``<link rel="{rel}">`` of ``html``, in order."""
    return re.findall(rf'<link\b[^>]*\brel="{re.escape(rel)}"[^>]*\bhref="([^"]+)"', html)
