"""One Redis client per URL for the workers' shared state (pacing, liveness), with short
timeouts: a look at Redis that cannot be answered quickly is no reason to hold work up."""

from __future__ import annotations

from typing import Any

#: Seconds a call to Redis may wait for its connection and its answer.
TIMEOUT_S = 0.5
_CLIENTS: dict[str, Any] = {}


def client(url: str | None = None) -> Any:
    """A client of the Redis at ``url`` (``settings.REDIS_URL`` if None), made once."""
    if url is None:
        from django.conf import settings

        url = settings.REDIS_URL
    found = _CLIENTS.get(url)
    if found is None:
        import redis

        found = _CLIENTS[url] = redis.Redis.from_url(
            url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S
        )
    return found
