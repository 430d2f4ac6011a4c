"""Finished replays are built once and kept in the cache; anonymous viewers are rate-limited.

A replay page carries every step of its game, shaped for the card table
(``tournaments.watching.replay``). Building them replays the game step by step: a
long game (a Money game of 3,440 actions) took 3.3 s of the server and made a 4.9 MB
page, and sixteen anonymous viewers at once stalled the whole site. A game of a
finished match never changes, so its steps are built once per view (public or full)
and kept in Django's cache, compressed (:data:`KEEP_S`); every later view reads them.

While one request builds a game's steps, another asking for the same steps does not
build them a second time: it is answered 503 with ``Retry-After`` at once (a few
seconds later they are in the cache). Each viewer may have at most
``CARDROOM_THROTTLE_RATES["replay"]`` replay pages in its window, counted per account
when signed in and per client address otherwise (``config.throttles.rate_limited``: a
429 page past it): a long game's page is megabytes even from the cache. Staff are not
counted.
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Callable
from typing import Any

from django.core.cache import cache

from config import throttles

log = logging.getLogger(__name__)

#: How long the steps of a finished game stay in the cache (they never change).
KEEP_S = 24 * 3600
#: How long a build may hold the others off before another request may try.
BUILD_LOCK_S = 60
#: The rate scope of replay pages, per account or per anonymous client address.
REPLAY = throttles.REPLAY
#: What ``json_script`` escapes inside a script element (django.utils.html).
_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}
#: Bump when the shape of the steps changes: older cached steps are then not read.
VERSION = 1


def _key(game_id: int, full: bool) -> str:
    return f"replay-steps:v{VERSION}:{game_id}:{'full' if full else 'public'}"


def steps_json(steps: list[dict[str, Any]]) -> str:
    """The steps as JSON, escaped to sit inside a ``<script type="application/json">``
    element (as Django's ``json_script`` escapes them)."""
    return json.dumps(steps, separators=(",", ":")).translate(_SCRIPT_ESCAPES)


class TryLater(Exception):
    """The steps cannot be had now: answer ``status`` with ``Retry-After: wait``."""

    def __init__(self, status: int, wait: int, message: str) -> None:
        super().__init__(message)
        self.status, self.wait, self.message = status, wait, message


#: A replay asked for while another request prepares it: try again this much later.
BUILDING_RETRY_S = 3
BEING_PREPARED = "This replay is being prepared: reload the page in {wait} seconds."


def cached_steps_json(
    *, game_id: int, full: bool, build: Callable[[], list[dict[str, Any]]]
) -> str:
    """The escaped JSON of a finished game's steps: from the cache, else built with
    ``build()`` and kept.

    Raises :class:`TryLater` (503) while another request builds the same steps. Whatever
    ``build`` raises (a record that does not replay) is raised, and nothing is kept. A
    cache that fails is logged and the steps are built as if it were empty.
    """
    key = _key(game_id, full)
    try:
        kept = cache.get(key)
        if kept is not None:
            return zlib.decompress(kept).decode()
        if not cache.add(f"{key}:building", 1, BUILD_LOCK_S):
            raise TryLater(503, BUILDING_RETRY_S, BEING_PREPARED.format(wait=BUILDING_RETRY_S))
    except TryLater:
        raise
    except Exception:
        log.warning("replay cache unavailable, steps built unkept", exc_info=True)
        return steps_json(build())
    try:
        text = steps_json(build())
        try:
            cache.set(key, zlib.compress(text.encode(), 6), KEEP_S)
        except Exception:
            log.warning("replay cache unavailable, steps not kept", exc_info=True)
        return text
    finally:
        try:
            cache.delete(f"{key}:building")
        except Exception:
            log.warning("replay cache unavailable, build lock left to expire", exc_info=True)
