"""Celery beat's scheduler, with at most one message of each periodic task in the broker.

Beat sends the reaper every ``CARDROOM_REAP_EVERY_S`` seconds whether or not a worker
took the last one. While no worker reads the periodic queue (all busy, or none up),
Celery's own scheduler let the queue grow by one message a period: 151 reapers after
five minutes of a 1 s period, each run in turn once a worker came back. Here a periodic
task is sent only when none of its messages waits: sending sets a key in the broker's
Redis (:func:`waiting_key`), and the task deletes it as it starts
(``config.celery``), so one may wait while another runs. The key lives at most
:func:`hold_s` seconds, so that a message lost with the broker does not stop the task
for good; each message also expires after its period (``expires``), so a worker that
finds a stale one drops it. Without a Redis broker, beat sends as Celery's does.
"""

from __future__ import annotations

import logging
import time

from celery.beat import PersistentScheduler

log = logging.getLogger(__name__)

#: The prefix of the key that says a periodic task's message waits in the broker.
WAITING_PREFIX = "cardroom:periodic-waiting:"


def waiting_key(task: str) -> str:
    """The key of ``task``'s waiting message, in this installation's periodic queue's name
    (two installations on one Redis differ by ``CARDROOM_QUEUE_PREFIX``)."""
    from django.conf import settings

    return f"{WAITING_PREFIX}{settings.CARDROOM_PERIODIC_QUEUE}:{task}"


def hold_s(period_s: float) -> int:
    """How long the waiting key lives: three periods, at least a minute."""
    return max(60, int(period_s * 3))


def broker_client(app):
    """A Redis client of the broker (``config.redis_client``), None if it is not Redis."""
    from config import redis_client

    url = app.conf.broker_url or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    return redis_client.client(url)


class Scheduler(PersistentScheduler):
    """Celery's persistent scheduler, sending a periodic task only when none of its
    messages waits in the broker."""

    def apply_entry(self, entry, producer=None):
        if self._one_waits(entry):
            log.debug("periodic %s: one waits already, none sent", entry.task)
            return
        super().apply_entry(entry, producer=producer)

    def _one_waits(self, entry) -> bool:
        """True if a message of ``entry``'s task waits in the broker; else marks the one
        about to be sent as waiting."""
        period = entry.schedule.run_every.total_seconds()
        queue = (entry.options or {}).get("queue") or self.app.conf.task_default_queue
        return one_waits(self.app, entry.task, queue=queue, period_s=period)


def one_waits(app, task_name: str, *, queue: str, period_s: float) -> bool:
    """True if a message of ``task_name`` waits in ``queue``; else marks the one about to
    be sent as waiting. An old mark alone is not believed: a message taken by a worker that
    died before starting it is in no queue (it comes back only after the broker's
    visibility timeout), so a mark older than :data:`FRESH_S` with no message of the task
    in the queue is replaced. A fresh one is: its message may be on its way to the queue
    (beat and a starting worker asking for the reaper at the same moment sent two)."""
    client = broker_client(app)
    if client is None:
        return False
    key = waiting_key(task_name)
    now = time.time()
    try:
        if client.set(key, repr(now), nx=True, ex=hold_s(period_s)):
            return False
        if _marked_within(client.get(key), now, FRESH_S) or _in_queue(client, queue, task_name):
            return True
        client.set(key, repr(now), ex=hold_s(period_s))  # its message is gone: send another
        return False
    except Exception as exc:  # the broker is down: send (and fail) as Celery does
        log.debug("periodic %s: waiting key not set: %s", task_name, exc)
        return False


#: A waiting mark younger than this is believed without looking for its message.
FRESH_S = 10.0


def _marked_within(value, now: float, seconds: float) -> bool:
    """Whether a waiting mark's value (the time it was set) is younger than ``seconds``."""
    try:
        return now - float(value) < seconds
    except (TypeError, ValueError):  # a mark of an older release, "1"
        return False


#: At most this many messages of a queue are looked at for a periodic task's.
LOOK_AT = 100


def _in_queue(client, queue: str, task_name: str) -> bool:
    """Whether a message of ``task_name`` is in the Redis list of ``queue`` (its first
    :data:`LOOK_AT` messages, each priority step's list)."""
    from config.task_sending import PRIORITY_SUFFIXES

    needle = f'"task": "{task_name}"'.encode()
    pipe = client.pipeline(transaction=False)
    for suffix in PRIORITY_SUFFIXES:
        pipe.lrange(queue + suffix, 0, LOOK_AT - 1)
    return any(needle in message for messages in pipe.execute() for message in messages)


def task_started(task_name: str, app) -> None:
    """A periodic task starts: the next one may be sent (its waiting key goes)."""
    client = broker_client(app)
    if client is None:
        return
    try:
        client.delete(waiting_key(task_name))
    except Exception as exc:  # the key expires on its own
        log.debug("periodic %s: waiting key not deleted: %s", task_name, exc)


def send_once(app, task_name: str, *, queue: str, period_s: float) -> bool:
    """Send the periodic task ``task_name`` now unless one of its messages waits already
    (:func:`one_waits`: a worker that starts asks for the reaper at once); True if sent."""
    from config.task_sending import send_task

    if one_waits(app, task_name, queue=queue, period_s=period_s):
        return False
    return send_task(task_name, [], queue=queue, expires=max(60.0, period_s))
