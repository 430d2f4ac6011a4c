"""Carrying events and notifications over the channel layer: the message that carries
one (encoded once for every socket), several notifications of one competition as one
message, and this process's sender, a thread that sends what the writers hand over
without making them wait (``tournaments.live.events`` announces through it and re-exports
its names).
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer

log = logging.getLogger(__name__)

#: The notification's type (the web tier builds events from it; browsers never see it).
CHANGED = "competition.changed"

#: The channel-layer message type that carries an event to the consumers.
RELAY_MESSAGE_TYPE = "competition.event"


def relay_message(event: dict[str, Any]) -> dict[str, Any]:
    """The channel-layer message carrying ``event``, encoded once for every socket."""
    return {
        "type": RELAY_MESSAGE_TYPE,
        "event_type": event["type"],
        "text": json.dumps(event, separators=(",", ":")),
    }


def _is_notification(message: dict[str, Any]) -> bool:
    return message.get("type") == RELAY_MESSAGE_TYPE and message.get("event_type") == CHANGED


def relay_batch(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """One channel-layer message carrying the notifications of ``messages`` (relay
    messages of :data:`CHANGED`, in order): its text is the JSON array of them."""
    if len(messages) == 1:
        return messages[0]
    return {
        "type": RELAY_MESSAGE_TYPE,
        "event_type": CHANGED,
        "text": "[" + ",".join(m["text"] for m in messages) + "]",
    }


def notifications_in(text: str) -> list[dict[str, Any]]:
    """The notifications a :data:`CHANGED` message's ``text`` carries: one (a JSON object)
    or several in order (a JSON array, :func:`relay_batch`); what is not an object is
    left out. Raises ``ValueError`` if ``text`` is not JSON."""
    decoded = json.loads(text)
    notes = decoded if isinstance(decoded, list) else [decoded]
    return [note for note in notes if isinstance(note, dict)]


#: A notification that the channel layer has not taken after this long is given up.
SEND_TIMEOUT_S = 2.0
#: Notifications handed to the sender and not yet taken by the layer, at most; one more
#: waits for the oldest (a slow or unreachable layer slows the writers, never fills memory).
SEND_BACKLOG_MAX = 256
#: While notifications come, the sender looks for them this often. A writer does not
#: wake it then: waking another thread costs a system call and, on a small VM, far more
#: than a notification is worth (about half a millisecond), twice per match. What came
#: meanwhile goes as one message per competition (:func:`_next_send`): the sender's
#: CPU a match fell from 0.47 ms (one message each, every 10 ms) to 0.11. The web tier
#: builds panels at most four times a second anyway.
SEND_TICK_S = 0.025
#: Notifications of one group sent as one message, at most (:func:`_next_send`).
SEND_BATCH_MAX = 64
#: After this many ticks that found nothing the sender parks: it wakes no more until a
#: writer hands it a notification (one wake-up for a burst), so an idle process (a
#: worker between rounds, a web process) spends no CPU on it.
SEND_IDLE_TICKS = 20


@dataclass
class _Sender:
    """This process's sender: an event loop run by a daemon thread that takes the
    notifications from ``outbox`` (oldest first) and sends them one after another (those
    of one competition that follow one another as one message);
    ``sending`` counts those taken and not yet sent (or failed)."""

    pid: int
    loop: asyncio.AbstractEventLoop
    outbox: collections.deque = field(default_factory=collections.deque)
    sending: int = 0
    task: asyncio.Task | None = None
    #: Set while the sender waits for :meth:`wake` instead of ticking.
    parked: bool = False
    awake: asyncio.Event = field(default_factory=asyncio.Event)

    def wake(self) -> None:
        """Called by a writer after it handed over a notification: wakes a parked sender
        (a no-op, without a system call, while it ticks)."""
        if self.parked:
            self.parked = False
            self.loop.call_soon_threadsafe(self.awake.set)

    @property
    def pending(self) -> int:
        """Notifications handed over and not yet sent or given up."""
        return len(self.outbox) + self.sending


_SEND_LOCK = threading.Lock()
_SENDER: _Sender | None = None


def _sender() -> _Sender:
    """This process's :class:`_Sender`, started on first use.

    ``async_to_sync`` runs each call in a new event loop, and a Redis channel layer
    keeps its connections per loop: every notification would connect to Redis again
    (and leave a layer behind). One loop per process (a new one after a fork: a
    Celery pool process does not inherit the thread) keeps one connection open.
    """
    global _SENDER
    with _SEND_LOCK:
        if _SENDER is None or _SENDER.pid != os.getpid():
            loop = asyncio.new_event_loop()
            sender = _Sender(os.getpid(), loop)
            sender.task = loop.create_task(_send_loop(sender))
            threading.Thread(target=loop.run_forever, name="cardroom-notify", daemon=True).start()
            _SENDER = sender
        return _SENDER


async def _send_loop(sender: _Sender) -> None:
    """Every :data:`SEND_TICK_S`, send what the writers handed over, in their order; a
    failure is logged (the writer has gone on). After :data:`SEND_IDLE_TICKS` empty
    ticks, park until a writer wakes it."""
    outbox = sender.outbox
    idle = 0
    while True:
        await asyncio.sleep(SEND_TICK_S)
        if not outbox:
            idle += 1
            if idle < SEND_IDLE_TICKS:
                continue
            sender.awake.clear()
            sender.parked = True
            if not outbox:  # a writer that appended before ``parked`` was set did not wake
                await sender.awake.wait()
            sender.parked = False
        idle = 0
        while outbox:
            layer, group, message, taken = _next_send(outbox)
            sender.sending += taken
            try:
                await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT_S)
            except Exception:
                log.warning(
                    "could not broadcast %s of %s", message.get("event_type"), group, exc_info=True
                )
            finally:
                sender.sending -= taken


def _next_send(outbox: collections.deque) -> tuple[Any, str, dict[str, Any], int]:
    """The next message to send from ``outbox`` (taken off it) and how many it took: the
    notifications that follow one another to the same group go as one message
    (:func:`relay_batch`, at most :data:`SEND_BATCH_MAX`). A busy worker hands over two a
    match; one send each cost its process more CPU than recording the result."""
    layer, group, message = outbox.popleft()
    if not _is_notification(message):
        return layer, group, message, 1
    batch = [message]
    while (
        outbox
        and len(batch) < SEND_BATCH_MAX
        and outbox[0][0] is layer
        and outbox[0][1] == group
        and _is_notification(outbox[0][2])
    ):
        batch.append(outbox.popleft()[2])
    return layer, group, relay_batch(batch), len(batch)


def _group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    """``layer.group_send`` from synchronous code, without waiting for it.

    The in-memory layer (tests, the embedded demo) belongs to the loops of its
    consumers, so it is called and awaited as before. Any other layer sends on the
    process's sender thread, in order, within :data:`SEND_TICK_S`; a failure is logged
    there. The writer waits only when :data:`SEND_BACKLOG_MAX` notifications are under
    way (until one has gone, at most :data:`SEND_TIMEOUT_S`, then the oldest waiting
    is dropped); :func:`notifications_flush` waits for all of them.
    """
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.group_send)(group, message)
        return
    sender = _sender()
    if sender.pending >= SEND_BACKLOG_MAX:
        deadline = time.monotonic() + SEND_TIMEOUT_S
        while sender.pending >= SEND_BACKLOG_MAX and time.monotonic() < deadline:
            time.sleep(SEND_TICK_S / 4)
        if sender.pending >= SEND_BACKLOG_MAX and sender.outbox:
            dropped = sender.outbox.popleft()
            log.warning("notification backlog full: dropped %s", dropped[2].get("event_type"))
    sender.outbox.append((layer, group, message))
    sender.wake()


def notifications_flush(timeout: float = SEND_TIMEOUT_S) -> bool:
    """Wait until the notifications this process handed over have been sent (or failed),
    at most ``timeout`` seconds; True if none is left under way. Called at exit."""
    sender = _SENDER
    if sender is None or sender.pid != os.getpid():
        return True
    deadline = time.monotonic() + timeout
    while sender.pending and time.monotonic() < deadline:
        time.sleep(SEND_TICK_S / 4)
    return not sender.pending


atexit.register(notifications_flush)
