"""Limits on WebSockets, so that one client cannot hold a web process's sockets or memory.

:func:`limit_websockets` wraps the WebSocket side of ``config.asgi``:

- at most ``CARDROOM_WS_PER_CLIENT`` sockets open at once per client in one web
  process: a signed-in user counts as one client wherever they connect from, anyone
  else by address (the ASGI ``client``, or from a proxy of ``CARDROOM_TRUSTED_PROXIES``
  the address it forwarded for: ``config.proxies``). One more is refused at the
  handshake (the browser sees a failed connection, HTTP 403) and logged. ``0`` turns
  the limit off.
- a frame from the client of more than ``CARDROOM_WS_MAX_FRAME_BYTES`` closes the
  socket with code 1009 (message too big): the stream is one-way, so the browser
  never needs to send more than a few bytes. The ASGI server has the same ceiling
  (``--ws-max-size``, ``tournaments.demo.processes.asgi_server_argv`` and deploy/), so such a
  frame is not even buffered; this check holds under any server.

The counts are per process (``--workers`` n: n times the limit per client at most);
they need no shared store, so a crashed process leaves no stale count behind.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from django.conf import settings

from config import proxies

log = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = dict[str, Any]

#: The close code of a frame over the size limit (RFC 6455: message too big).
CLOSE_TOO_BIG = 1009


def client_key(scope: Scope) -> str:
    """Whom a socket counts against: the signed-in user, else the client address."""
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    client = scope.get("client") or ("unknown", 0)
    forwarded = b",".join(v for k, v in scope.get("headers", ()) if k == b"x-forwarded-for")
    address = proxies.client_address(
        str(client[0]),
        forwarded.decode("latin-1"),
        proxies.trusted_networks(settings.CARDROOM_TRUSTED_PROXIES),
    )
    return f"address:{address}"


def _frame_size(message: Message) -> int:
    text, data = message.get("text"), message.get("bytes")
    return (len(text.encode()) if text else 0) + (len(data) if data else 0)


class WebSocketLimits:
    """ASGI middleware of the limits above (``open`` holds this process's counts)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return await self.inner(scope, receive, send)
        key = client_key(scope)
        limit = int(settings.CARDROOM_WS_PER_CLIENT)
        if limit and self.open[key] >= limit:
            log.warning("websocket refused: %s has %s open (the limit)", key, limit)
            await receive()  # the websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return None
        self.open[key] += 1
        try:
            return await self._serve(scope, receive, send)
        finally:
            self.open[key] -= 1
            if self.open[key] <= 0:
                del self.open[key]

    async def _serve(self, scope: Scope, receive: Any, send: Any) -> None:
        closed = False
        largest = int(settings.CARDROOM_WS_MAX_FRAME_BYTES)

        async def limited_receive() -> Message:
            nonlocal closed
            message = await receive()
            if message["type"] == "websocket.receive" and _frame_size(message) > largest:
                if not closed:
                    closed = True
                    await send({"type": "websocket.close", "code": CLOSE_TOO_BIG})
                return {"type": "websocket.disconnect", "code": CLOSE_TOO_BIG}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal closed
            if closed:
                return  # the socket was closed here: nothing more goes out
            if message["type"] == "websocket.close":
                closed = True
            await send(message)

        return await self.inner(scope, limited_receive, guarded_send)


def limit_websockets(inner: Any) -> WebSocketLimits:
    return WebSocketLimits(inner)
