"""Which worker processes are alive: a heartbeat in Redis per pool process, so that work
a dead process held (a match, a validation) is sent again within seconds of its death,
not when its lease or grace period runs out.

Each worker pool process (``config.celery``) beats every :data:`BEAT_S` seconds from a
thread of its own: a key ``cardroom:alive:<host>/<pid>`` that lives :data:`ALIVE_S`
seconds, and a key saying it takes part, ``cardroom:beating:<host>/<pid>``, that lives
a day. Claims name their process the same way (``host/pid/...``:
``tournaments.worker.execution.worker_name``, a validation's ``claimed_by``). A claimer is
**gone** (:func:`gone`) when it took part and its heartbeat stopped: killed, its machine
gone, its worker restarted. A claimer that never beat (a match played in a web or
command process, ``run_competition --inline``, a test) is never called gone: its work
keeps its lease. With Redis out of reach nothing is called gone either.

A thread, not the task, beats: a pool process that plays a long match, or waits on a
bot, still beats; one that is stopped (SIGKILL, the out-of-memory killer, a machine that
goes away) stops beating at once.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable, Iterable

from config import redis_client

log = logging.getLogger(__name__)

#: Seconds between two heartbeats of a process, and how long one lasts.
BEAT_S, ALIVE_S = 3.0, 15
#: How long a process's "takes part" key lasts after its last beat.
BEATING_S = 86400
ALIVE_PREFIX, BEATING_PREFIX = "cardroom:alive:", "cardroom:beating:"

_started: int | None = None


def process_name() -> str:
    """``host/pid``: how claims name this process."""
    return f"{socket.gethostname()}/{os.getpid()}"


def process_of(claimer: str) -> str:
    """The ``host/pid`` of a claim's ``claimed_by`` (``host/pid/task``, or ``host/pid``)."""
    return "/".join(claimer.split("/")[:2])


def beat(name: str | None = None) -> None:
    """One heartbeat of this process (or of ``name``)."""
    name = name or process_name()
    pipe = redis_client.client().pipeline(transaction=False)
    pipe.set(ALIVE_PREFIX + name, "1", ex=ALIVE_S)
    pipe.set(BEATING_PREFIX + name, "1", ex=BEATING_S)
    pipe.execute()


def start(*, on_beat: Callable[[], None] | None = None) -> None:
    """Beat from a daemon thread of this process, every :data:`BEAT_S` seconds (once per
    process: a forked child starts its own), calling ``on_beat`` after each beat."""
    global _started
    if _started == os.getpid():
        return
    _started = os.getpid()
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            try:
                beat()
            except Exception as exc:  # Redis away: the next beat tries again
                log.debug("heartbeat not sent: %s", exc)
            if on_beat is not None:
                on_beat()
            stop.wait(BEAT_S)

    threading.Thread(target=run, name="cardroom-heartbeat", daemon=True).start()


def stop_beating(name: str | None = None) -> None:
    """This process (or ``name``) is going away: it is gone from now on."""
    try:
        redis_client.client().delete(ALIVE_PREFIX + (name or process_name()))
    except Exception as exc:
        log.debug("heartbeat not removed: %s", exc)


def gone(claimers: Iterable[str]) -> set[str]:
    """The claimers (``claimed_by`` values, or ``host/pid``) whose process took part and
    no longer beats; empty if Redis cannot be read."""
    claimers = [c for c in set(claimers) if c]
    if not claimers:
        return set()
    processes = sorted({process_of(c) for c in claimers})
    try:
        pipe = redis_client.client().pipeline(transaction=False)
        for name in processes:
            pipe.exists(ALIVE_PREFIX + name)
            pipe.exists(BEATING_PREFIX + name)
        answers = pipe.execute()
    except Exception as exc:
        log.warning("worker heartbeats not read: %s", exc)
        return set()
    dead = {
        name
        for i, name in enumerate(processes)
        if answers[2 * i + 1] and not answers[2 * i]  # took part, no longer beats
    }
    return {c for c in claimers if process_of(c) in dead}


#: Work held outside a claim's ``claimed_by`` (a version test's slice): per kind, a hash of
#: the work's key -> the ``host/pid`` of the process that holds it.
HOLDS_PREFIX = "cardroom:holds:"


def hold(kind: str, key: object) -> None:
    """This process holds the ``kind`` work ``key`` (:func:`gone_holds` tells when it dies)."""
    try:
        redis_client.client().hset(HOLDS_PREFIX + kind, str(key), process_name())
    except Exception as exc:
        log.debug("hold of %s %s not noted: %s", kind, key, exc)


def release(kind: str, key: object) -> None:
    try:
        redis_client.client().hdel(HOLDS_PREFIX + kind, str(key))
    except Exception as exc:
        log.debug("hold of %s %s not released: %s", kind, key, exc)


def gone_holds(kind: str, keys: Iterable[object]) -> set[str]:
    """The ``keys`` of ``kind`` whose holder took part and no longer beats (:func:`gone`)."""
    keys = [str(k) for k in keys]
    if not keys:
        return set()
    try:
        holders = redis_client.client().hmget(HOLDS_PREFIX + kind, keys)
    except Exception as exc:
        log.warning("holds of %s not read: %s", kind, exc)
        return set()
    by_key = {k: h.decode() for k, h in zip(keys, holders, strict=True) if h}
    dead = gone(by_key.values())
    return {k for k, h in by_key.items() if h in dead}
