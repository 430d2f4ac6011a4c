"""Reading the settings' environment: the helpers every part of ``config.settings`` uses,
and the Redis every part of it points at."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

#: The largest value of an allowance (or of a setting read as one).
ALLOWANCE_MAX = 10**12

#: The Redis of the broker, the channel layer and (by default) the cache.
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def env_bool(name: str, default: bool = False) -> bool:
    """The variable ``name`` as a yes or no (``1``, ``true``, ``yes``, ``on``)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_allowance(name: str, default: int) -> int:
    """The variable ``name`` as a whole number from 0 to :data:`ALLOWANCE_MAX`; anything
    else stops the start-up, naming it."""
    raw = os.environ.get(name, str(default)).strip().replace("_", "")
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if not 0 <= value <= ALLOWANCE_MAX:
        raise ImproperlyConfigured(
            f"{name} must be a whole number from 0 to {ALLOWANCE_MAX}, got {os.environ[name]!r}"
        )
    return value
