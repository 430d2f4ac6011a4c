"""Sending Celery tasks: the one way the services put work on a queue.

Tasks are found by name in the app's registry, so that a service needs no import of
the tasks module that calls it (the doors import the services, never the reverse).
A broker that is down is not an error of the caller: the work stays where the database
has it (a version queued, a match queued, a version test pending) and is sent again
later (the requeue of validations, the reaper, the next slice); the sender logs it and
says so with False.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from celery import current_app
from kombu.exceptions import OperationalError as BrokerError

log = logging.getLogger(__name__)

#: One message: the task's registered name, its arguments, its queue.
Message = tuple[str, Sequence[Any], str]


def send_task(
    name: str,
    args: Sequence[Any],
    *,
    queue: str,
    producer: Any = None,
    unsent: str = "",
    **options: Any,
) -> bool:
    """Send the task registered as ``name`` with ``args`` on ``queue`` (``options`` go to
    ``apply_async``: ``countdown``, ``soft_time_limit``, ...; ``producer`` publishes on a
    producer the caller holds). True if sent; False, with a warning that says what
    becomes of the work (``unsent``), if the broker is unavailable."""
    if producer is not None:
        options["producer"] = producer
    try:
        _apply(name, args, queue, **options)
    except BrokerError as exc:
        _log_unsent(f"{name}{list(args)}", unsent, exc)
        return False
    return True


def send_tasks(messages: Iterable[Message], *, unsent: str = "") -> bool:
    """Send ``messages`` together: on one producer and, where the broker's transport
    batches publishes (kombu 5.7+ on Redis: one pipeline), in one round trip rather than
    one each. True if all were sent; False, with a warning that says what becomes of the
    work (``unsent``), if the broker is unavailable (some may have gone out before)."""
    messages = list(messages)
    try:
        with current_app.producer_or_acquire() as producer, _batch(producer):
            for name, args, queue in messages:
                _apply(name, args, queue, producer=producer)
    except BrokerError as exc:
        _log_unsent(f"{len(messages)} task(s)", unsent, exc)
        return False
    return True


def _apply(name: str, args: Sequence[Any], queue: str, **options: Any) -> None:
    current_app.tasks[name].apply_async(args=args, queue=queue, **options)


def _batch(producer):
    """``producer.batch()`` where kombu has it (5.7+), else publish one by one."""
    batch = getattr(producer, "batch", None)
    return batch() if batch is not None else contextlib.nullcontext()


def _log_unsent(what: str, unsent: str, exc: BaseException) -> None:
    log.warning(
        "broker unavailable, %s not sent%s: %s", what, f" ({unsent})" if unsent else "", exc
    )


#: kombu's Redis transport keeps a queue's messages of priority steps 3, 6 and 9 in lists
#: of their own beside the queue's (step 0): a queue holds messages if any of them does.
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")
#: A look at the queues waits at most this long for the broker.
PEEK_TIMEOUT_S = 0.2
_BROKER_CLIENTS: dict[tuple[str, float], Any] = {}


def queue_lengths(url: str, queues: Sequence[str], *, timeout_s: float) -> dict[str, int] | None:
    """Messages waiting in each of ``queues`` (all their priority steps) on the Redis broker
    at ``url``, in one round trip that waits at most ``timeout_s``; None if the broker is not
    Redis. Raises the client's error if the broker cannot be read."""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    pipe = _broker_client(url, timeout_s).pipeline(transaction=False)
    for queue in queues:
        for suffix in PRIORITY_SUFFIXES:
            pipe.llen(queue + suffix)
    counts = pipe.execute()
    width = len(PRIORITY_SUFFIXES)
    return {q: sum(counts[i * width : (i + 1) * width]) for i, q in enumerate(queues)}


def _broker_client(url: str, timeout_s: float) -> Any:
    client = _BROKER_CLIENTS.get((url, timeout_s))
    if client is None:
        import redis

        client = _BROKER_CLIENTS[url, timeout_s] = redis.Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
    return client


def waiting(queues: Sequence[str]) -> bool:
    """True if a message waits in one of ``queues`` (on a Redis broker: one round trip);
    False if none does, if the broker is not Redis or if it cannot be read (a look that
    fails is no reason to stop the work in hand)."""
    if not queues:
        return False
    try:
        lengths = queue_lengths(current_app.conf.broker_url or "", queues, timeout_s=PEEK_TIMEOUT_S)
    except Exception as exc:  # redis's own errors, a timeout, a refused connection
        log.debug("queues %s not looked at: %s", ", ".join(queues), exc)
        return False
    return any((lengths or {}).values())


def peek(queues: Sequence[str], *, limit: int = 20) -> list[tuple[str, list]]:
    """The first ``limit`` messages waiting in each of ``queues`` (each priority step's
    list) on the Redis broker, as (task name, positional arguments); [] if the broker is
    not Redis or cannot be read. A message that cannot be read is left out."""
    import base64
    import json

    url = current_app.conf.broker_url or ""
    if not queues or not url.startswith(("redis://", "rediss://", "unix://")):
        return []
    try:
        pipe = _broker_client(url, PEEK_TIMEOUT_S).pipeline(transaction=False)
        for queue in queues:
            for suffix in PRIORITY_SUFFIXES:
                pipe.lrange(queue + suffix, 0, limit - 1)
        raw = [m for found in pipe.execute() for m in found]
    except Exception as exc:
        log.debug("queues %s not peeked at: %s", ", ".join(queues), exc)
        return []
    out = []
    for message in raw:
        try:
            envelope = json.loads(message)
            body = json.loads(base64.b64decode(envelope["body"]))
            out.append((envelope["headers"]["task"], list(body[0])))
        except (ValueError, KeyError, TypeError, IndexError):
            continue
    return out
