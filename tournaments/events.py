"""Live events of a competition: their names and shapes, and the notifications that
announce a change (a leaf: it imports nothing of the project).

The write path only writes. A service that changed a competition sends, after its
transaction commits, a small **notification** to the competition's channel-layer
group ``competition.<id>`` (:func:`notify`)::

    {"type": "competition.changed", "competition": 42, "match": 7 | null,
     "changes": ["match.finished", "round.finished", ...], "round": 3 | null}

``changes`` lists what happened: :data:`MATCH_STARTED` (a worker claimed ``match``),
:data:`MATCH_FINISHED` (its result was recorded), :data:`ROUND_FINISHED`,
:data:`ROUND_STARTED` (round ``round`` was paired), :data:`COMPETITION_STARTED`,
:data:`COMPETITION_FINISHED` and :data:`QUEUE_CHANGED` (matches queued, released,
failed or reaped). A notification holds no data the worker read back: it costs
the recorder no query.

The web tier turns notifications into the events below (``tournaments.fanout``,
only in processes where someone watches the competition): the match events at
once, one build at a time, and the panels' snapshots at most four times a second
per competition however fast results arrive, each build reading the database
once for all the notifications that arrived since the last. The events
reach the browsers (``tournaments/static/dashboard/live.js``); every event
is a JSON-safe dict with a ``type``, the ``competition`` id and a payload:

=======================  ==========================================================
``snapshot``             sent first to every socket: the whole page
                         (``dashboard.selectors.competition_snapshot``: ``name``,
                         ``status``, ``format``, ``standings``, ``progress``,
                         ``matches`` (``running``, ``recent``), ``problems``,
                         ``rounds``, ``chart``, ``queue``, ``admin`` and for
                         organisers ``failed``; the page's own snapshot also
                         ``head_to_head``, which a socket's leaves out).
``match.started``        ``match``: the match (id, round, table, bracket ``node``,
                         status, seats).
``match.finished``       ``match``: the match, its seats with ``rank``, ``score`` and
                         ``points`` (game points), a knockout's ``decided_by`` and
                         ``tiebreak`` (how a level match was decided, or null),
                         and the ids of its ``games`` (for the replay page);
                         ``ratings``: per seat ``{"entry", "sequence", "before",
                         "after"}``, the displayed rating (mu - 3 sigma) before and
                         after this match, ``sequence`` its place in the
                         competition's rating history (the chart's x).
``standings.updated``    ``standings``: the rows of ``standings_for_competition``
                         (each with its ``trend``); ``progress``:
                         ``competition_progress``.
``round.started``        ``round``: ``{"number", "status", "matches", "done"}``;
                         ``rounds``: ``dashboard.selectors.rounds_view``, the
                         rounds, the current round's pairings and the bracket;
                         its ``results`` are those of the rounds named in
                         ``results_of`` (the rounds of the build's round events),
                         to be put with the others the page has (a ladder's: its
                         latest rounds, without ``results_of``).
``round.finished``       ``round`` and ``rounds``, as for ``round.started``.
``problems.updated``     ``problems``: ``dashboard.selectors.problem_bots``, per bot
                         with faults ``{"name", "statuses", "total"}`` (the
                         snapshot's ``problems`` panel).
``queue.status``         ``queue``: ``dashboard.selectors.queue_status``, the
                         competition's matches by status (``pending``, ``queued``,
                         ``running``, ``done``, ``failed``, ``total``),
                         ``results_per_minute`` (matches finished in the last
                         minute), ``backlog`` (tasks waiting in the Celery matches
                         queue, all competitions; null if unknown), ``workers``
                         holding a lease (``worker``, ``match``, ``since``,
                         ``until``) and ``at``, when it was read. ``worker`` is the
                         process (``host/pid``) for staff only; everyone else gets
                         an opaque label of it (:func:`worker_label`).
``competition.finished`` ``status``: the final status; ``closed_early``: closed by its
                         organisers before its schedule ended; ``standings``: the final rows.
``head_to_head.updated`` ``head_to_head``: ``{"rows", "more"}``, the pairs that met
                         (``dashboard.selectors.live_head_to_head``: matches,
                         ahead-level-behind, game score, sign test), the first
                         rows only and how many more there are.
``crosstable.updated``   ``crosstable``: a round robin's crosstable
                         (``selectors.crosstable_for_competition``, the snapshot's
                         ``crosstable``). Like the head-to-head table it reads every
                         result of the competition and grows with the square of its
                         entries, so it goes with it, at most every few seconds, not
                         with each ``standings.updated``.
=======================  ==========================================================

The builds send their events in that order (``match.started``, ``match.finished``,
``standings.updated``, ``round.finished``, ``round.started``,
``competition.finished``, ``problems.updated``, ``queue.status``,
``head_to_head.updated``, ``crosstable.updated``), each only if a
notification called for it. Events are delivered at most once to the sockets
connected at the time; a socket that (re)connects first receives a ``snapshot``
of the current state, so nothing depends on having seen every event. Sending
never breaks a service: if the channel layer is down the failure is logged and
the caller goes on.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import hashlib
import hmac
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from config.task_sending import PRIORITY_SUFFIXES

log = logging.getLogger(__name__)

MATCH_STARTED = "match.started"
MATCH_FINISHED = "match.finished"
STANDINGS_UPDATED = "standings.updated"
ROUND_STARTED = "round.started"
ROUND_FINISHED = "round.finished"
COMPETITION_FINISHED = "competition.finished"
PROBLEMS_UPDATED = "problems.updated"
HEAD_TO_HEAD_UPDATED = "head_to_head.updated"
CROSSTABLE_UPDATED = "crosstable.updated"
QUEUE_STATUS = "queue.status"
SNAPSHOT = "snapshot"

EVENT_TYPES = frozenset(
    {
        MATCH_STARTED,
        MATCH_FINISHED,
        STANDINGS_UPDATED,
        ROUND_STARTED,
        ROUND_FINISHED,
        COMPETITION_FINISHED,
        PROBLEMS_UPDATED,
        HEAD_TO_HEAD_UPDATED,
        CROSSTABLE_UPDATED,
        QUEUE_STATUS,
    }
)

#: The notification's type (the web tier builds events from it; browsers never see it).
CHANGED = "competition.changed"
#: Changes a notification may name besides the event types above.
COMPETITION_STARTED = "competition.started"
#: Paused, resumed or closed by an organiser (the standings event carries the status).
COMPETITION_STATUS = "competition.status"
QUEUE_CHANGED = "queue.changed"
CHANGES = frozenset(
    {
        COMPETITION_STATUS,
        MATCH_STARTED,
        MATCH_FINISHED,
        ROUND_STARTED,
        ROUND_FINISHED,
        COMPETITION_STARTED,
        COMPETITION_FINISHED,
        QUEUE_CHANGED,
    }
)

#: The channel-layer message type that carries an event to the consumers.
RELAY_MESSAGE_TYPE = "competition.event"


def group_name(competition_id: int) -> str:
    """The channel-layer group of a competition: ``competition.<id>``."""
    return f"competition.{int(competition_id)}"


def event(kind: str, competition_id: int, **payload: Any) -> dict[str, Any]:
    """An event of type ``kind``; raises ``ValueError`` for an unknown type."""
    if kind not in EVENT_TYPES and kind not in (SNAPSHOT, CHANGED):
        raise ValueError(f"unknown event type {kind!r}")
    return {"type": kind, "competition": int(competition_id), **payload}


def notification(
    competition_id: int,
    changes: Iterable[str],
    *,
    match_id: int | None = None,
    round_number: int | None = None,
) -> dict[str, Any]:
    """The notification of ``changes``; raises ``ValueError`` naming an unknown change."""
    changes = list(dict.fromkeys(changes))
    unknown = [c for c in changes if c not in CHANGES]
    if unknown or not changes:
        raise ValueError(f"unknown or no changes {unknown or changes!r}; known: {sorted(CHANGES)}")
    return event(
        CHANGED,
        competition_id,
        match=None if match_id is None else int(match_id),
        changes=changes,
        round=round_number,
    )


@dataclass
class Changes:
    """The notifications of one competition gathered since its last build."""

    started: list[int] = field(default_factory=list)
    finished: list[int] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    rounds_finished: list[int] = field(default_factory=list)

    def add(self, note: dict[str, Any]) -> None:
        """Fold one notification in (malformed parts are ignored)."""
        kinds = {c for c in note.get("changes") or () if c in CHANGES}
        self.kinds |= kinds
        match = note.get("match")
        if isinstance(match, int):
            if MATCH_STARTED in kinds and match not in self.started:
                self.started.append(match)
            if MATCH_FINISHED in kinds and match not in self.finished:
                self.finished.append(match)
        number = note.get("round")
        if ROUND_FINISHED in kinds and isinstance(number, int):
            self.rounds_finished.append(number)

    def __bool__(self) -> bool:
        return bool(self.kinds)


def worker_label(process: str) -> str:
    """An opaque, stable name of a worker process (``host/pid``) for non-staff eyes:
    ``worker-`` and 8 hex digits of an HMAC under the secret key (not reversible)."""
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"cardroom-worker:{process}".encode(), hashlib.sha256
    ).hexdigest()
    return f"worker-{digest[:8]}"


def public_event_text(event_type: str | None, text: str) -> str:
    """The encoded event ``text`` as non-staff may see it: the worker processes of a
    ``queue.status`` replaced by their :func:`worker_label`; other events unchanged."""
    if event_type != QUEUE_STATUS:
        return text
    item = json.loads(text)
    for worker in (item.get("queue") or {}).get("workers") or []:
        if isinstance(worker.get("worker"), str):
            worker["worker"] = worker_label(worker["worker"])
    return json.dumps(item, separators=(",", ":"))


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


def broadcast(competition_id: int, event: dict[str, Any]) -> bool:
    """Send ``event`` to the group of the competition; True if it was handed to the layer.

    Never raises: a missing or unreachable channel layer is logged and ignored, so
    that recording a result never depends on the live view.
    """
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        _group_send(layer, group_name(competition_id), relay_message(event))
        return True
    except Exception:
        log.warning(
            "could not broadcast %s of competition %s",
            event.get("type"),
            competition_id,
            exc_info=True,
        )
        return False


def notify(
    *,
    competition_id: int,
    changes: Iterable[str],
    match_id: int | None = None,
    round_number: int | None = None,
) -> bool:
    """Send the notification of ``changes`` (call it after commit); never raises."""
    try:
        note = notification(competition_id, changes, match_id=match_id, round_number=round_number)
    except ValueError:
        log.warning("not a notification: %s", list(changes), exc_info=True)
        return False
    return broadcast(competition_id, note)


# --- a match watched while it is played (tournaments.live) ---

#: The notification a worker sends to the group of a running match it published more
#: of: ``{"type": "match.live", "match": 7, "games": 3, "over": false}`` (``games``: how
#: many of its games are finished; ``over``: the match ended, recorded or not). The web
#: tier reads what changed from the live store (``tournaments.fanout.MatchFanout``).
MATCH_LIVE = "match.live"


def match_group_name(match_id: int) -> str:
    """The channel-layer group of a running match: ``match.<id>``."""
    return f"match.{int(match_id)}"


def notify_match(*, match_id: int, games: int, over: bool = False) -> bool:
    """Send a :data:`MATCH_LIVE` notification to the match's group; never raises."""
    note = {"type": MATCH_LIVE, "match": int(match_id), "games": int(games), "over": over}
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        message = {
            "type": RELAY_MESSAGE_TYPE,
            "event_type": MATCH_LIVE,
            "text": json.dumps(note, separators=(",", ":")),
        }
        _group_send(layer, match_group_name(match_id), message)
        return True
    except Exception:
        log.warning("could not notify the watchers of match %s", match_id, exc_info=True)
        return False


# --- the Celery backlog (read by the web tier for the queue panel) ---

#: Redis calls of the backlog give up after this long (the caller goes on),
REDIS_TIMEOUT_S = 0.5
#: ... and after a failure that Redis is left alone for this long.
REDIS_RETRY_S = 5.0

_REDIS_CLIENTS: dict[str, Any] = {}
_REDIS_DOWN_UNTIL: dict[str, float] = {}


class RedisUnavailable(Exception):
    """The Redis is down or failed recently; the caller falls back."""


def _redis_call(url: str, call: Callable[[Any], Any]) -> Any:
    """``call(client)`` on a client of the Redis at ``url`` with short timeouts.

    Raises :class:`RedisUnavailable` if it fails, and then at once for
    :data:`REDIS_RETRY_S` seconds, so that a Redis that is down costs one timeout.
    """
    if time.monotonic() < _REDIS_DOWN_UNTIL.get(url, 0.0):
        raise RedisUnavailable(url)
    client = _REDIS_CLIENTS.get(url)
    try:
        if client is None:
            import redis

            client = _REDIS_CLIENTS[url] = redis.Redis.from_url(
                url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
        return call(client)
    except Exception as exc:
        _REDIS_DOWN_UNTIL[url] = time.monotonic() + REDIS_RETRY_S
        raise RedisUnavailable(f"{url}: {exc}") from exc


def celery_backlog() -> int | None:
    """Messages waiting in the Celery queues of matches (all competitions: the
    tournaments' and leagues' queue and the ladders'); None if unknown.

    Known for a Redis broker, where a queue is a list per priority step (kombu's default
    steps 0, 3, 6 and 9; step 0 is the queue's own name).
    """
    url = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    queues = dict.fromkeys((settings.CARDROOM_MATCH_QUEUE, settings.CARDROOM_LADDER_QUEUE))
    names = [queue + suffix for queue in queues for suffix in PRIORITY_SUFFIXES]

    def lengths(client) -> int:
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.llen(name)
        return sum(pipe.execute())

    try:
        return _redis_call(url, lengths)
    except RedisUnavailable:
        log.debug("no backlog: the broker is unavailable", exc_info=True)
        return None
