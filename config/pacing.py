"""Pacing: at most one match of a tournament, league or ladder started every
``CARDROOM_MATCH_PACE_S`` seconds across all workers (0: no pace), so that a demo's
brackets can be watched as they play.

A worker slot that takes a paced match reserves the next free start time in Redis (one
atomic script, shared by every worker of the installation: :func:`reserve_start`) and
holds the match until then (:func:`wait_turn`). At most one start is reserved per busy
slot, so a match waits at most as many paces as there are slots. Only the
competitions' slots wait: the work people wait for (validations, challenges, quick
games, version tests) is played by the users' lane (docs/queues.md "Lanes") and never
paced, and the periodic tasks are taken between two matches.

Celery's own rate limit is not used: a rate-limited task waits in its worker's token
bucket outside the pool, holding a prefetch slot (``CARDROOM_WORKER_PREFETCH``) and an
unacknowledged message, shown by neither ``inspect reserved`` nor ``inspect active``.
With every slot of a worker holding matches that waited for tokens, the worker read no
other message, of any queue: validations and the periodic tasks waited behind the
matches' tokens, and the periodic queue grew by one message each reaper period.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from config import redis_client

log = logging.getLogger(__name__)

#: A waiting slot looks this often whether its worker is stopping.
LOOK_S = 0.1
#: The Redis key of the next free start time (seconds since the epoch), after the
#: installation's queue prefix (``CARDROOM_QUEUE_PREFIX``).
NEXT_START_KEY = "cardroom:pace:next-start"

#: KEYS[1] the next free start; ARGV[1] now, ARGV[2] the pace: returns the start reserved.
_RESERVE = """
local now = tonumber(ARGV[1])
local pace = tonumber(ARGV[2])
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local start = math.max(now, free)
redis.call('SET', KEYS[1], tostring(start + pace), 'EX', math.ceil(pace * 10 + 60))
return tostring(start)
"""


def pace_s() -> float:
    from django.conf import settings

    return float(getattr(settings, "CARDROOM_MATCH_PACE_S", 0.0) or 0.0)


def paced_queue(queue: str | None) -> bool:
    """Whether a task that came from ``queue`` is paced: the competitions' and ladders'."""
    from django.conf import settings

    return pace_s() > 0 and queue in (
        settings.CARDROOM_MATCH_QUEUE,
        settings.CARDROOM_LADDER_QUEUE,
    )


def reserve_start(*, pace: float | None = None, now: float | None = None) -> float:
    """Reserve the next start of a paced match: seconds from ``now`` until it (0: now).
    Unpaced, or with Redis out of reach, 0: a pace is a courtesy, never a stop."""
    from django.conf import settings

    pace = pace_s() if pace is None else pace
    if pace <= 0:
        return 0.0
    now = time.time() if now is None else now
    key = settings.CARDROOM_QUEUE_PREFIX + NEXT_START_KEY
    try:
        start = float(redis_client.client().eval(_RESERVE, 1, key, now, pace))
    except Exception as exc:  # redis's own errors, a timeout
        log.warning("pace not kept (Redis out of reach): %s", exc)
        return 0.0
    return max(0.0, start - now)


def wait_turn(*, stop: Callable[[], bool]) -> float:
    """Reserve this match's start (:func:`reserve_start`) and wait for it, or until
    ``stop()`` is true; the seconds waited."""
    began = time.monotonic()
    until = began + reserve_start()
    while not stop():
        left = until - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(LOOK_S, left))
    return time.monotonic() - began
