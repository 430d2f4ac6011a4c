"""Process-local fan-out of a competition's live events to the sockets watching it.

A process serving WebSockets subscribes once per competition to the group
``competition.<id>`` (one channel of the channel layer) and hands every event
to each of its sockets watching that competition. The sockets never receive
through the channel layer themselves: with hundreds of watchers, a per-socket
subscription costs a Redis fan-out, a deserialisation and a dispatch round per
event per socket, where this costs one of each per process.

The write path sends notifications, not events (``tournaments.live.events``): a worker
claims, plays, records and says what changed. The events are built here, in the
web tier, and only for competitions that someone watches in this process:

* a notification (``competition.changed``) is folded into the competition's
  pending :class:`tournaments.live.events.Changes`, and built into events by
  :func:`tournaments.watching.stream.live_events` (on the database thread) in
  two lanes. The **matches** lane (``match.started`` and ``match.finished``, a few
  rows each) builds at once, one build at a time, on a database thread of its own
  (:data:`MATCHES_THREAD`): the notifications that arrive during a build go into the
  next, so a burst costs a handful of builds. The
  **panels** lane (standings, rounds, competition end, problem bots, queue: the
  snapshots of the panels) builds at most once per :attr:`Fanout.panels_interval_s`
  per competition (a few a second) however fast results arrive: the first
  notification after a quiet spell is built at once, the rest wait for the window
  and go out together; under load it also waits four times as long as its last build
  took (:attr:`Fanout.slow_lane_duty`), so that it holds the server's GIL a fifth of
  the time at most. The **head-to-head** lane (``head_to_head.updated`` and a
  round robin's ``crosstable.updated``, which read every result of the competition
  and grow with the square of its entries) builds the same way, at most once per
  :attr:`Fanout.head_to_head_interval_s` (5 s);
* events sent as such (``competition.event`` messages carrying a built event)
  are relayed unchanged.

Bursts are coalesced here, once for all the sockets of the process:

* ``standings.updated`` goes out at most once per :attr:`Fanout.standings_interval_s`,
  always the newest (the table replaces the previous one);
* the events of one moment (a result brings ``match.finished``, the standings and
  a ``queue.status`` within a few milliseconds) are gathered for
  :attr:`Fanout.batch_window_s` and go out as one frame holding a JSON array:
  every frame costs each socket a write, whatever its size;
* a socket whose previous frame is still being written gets the frames that
  arrived meanwhile as one array (:meth:`Outbox.push`); a socket that falls
  :data:`MAX_BACKLOG` frames behind is closed with :data:`CLOSE_TOO_SLOW` and,
  like any reconnecting socket, starts again from a snapshot.

Sockets that connect at the same moment (a server restart, a link shared in a
club) share one reading of the snapshot (:meth:`Fanout.snapshot`).

Only staff sockets (:attr:`Outbox.staff`) receive the events as broadcast; the
others get :func:`tournaments.live.events.public_event_text` of each, which names no
worker process (host or pid).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.db import database_sync_to_async

from tournaments.live.events import (
    CHANGED,
    STANDINGS_UPDATED,
    Changes,
    group_name,
    notifications_in,
    public_event_text,
)
from tournaments.watching.stream import live_events

log = logging.getLogger(__name__)


#: Frames a socket may have waiting before it is dropped as too slow.
MAX_BACKLOG = 500


#: Close code for a socket that could not keep up (the browser reconnects).
CLOSE_TOO_SLOW = 4008


#: The lanes of built events (see the module docstring).
MATCHES, PANELS, HEAD_TO_HEAD = "matches", "panels", "head_to_head"


#: Builds the events of one lane for a competition's pending changes (it reads the database).
Builder = Callable[[int, Changes, str], Awaitable[list[dict[str, Any]]]]


#: The matches lane's own database thread (and connection). The other lanes and the
#: snapshots share Channels' database thread, where a panels build takes tens of
#: milliseconds (a hundred and more under load): a result waiting behind one would
#: reach the browsers that much later.
MATCHES_THREAD = ThreadPoolExecutor(1, thread_name_prefix="live-matches")


async def build_live_events(competition_id: int, changes: Changes, lane: str) -> list[dict]:
    """:func:`tournaments.watching.stream.live_events` of ``lane``: the matches lane on
    :data:`MATCHES_THREAD`, the others on Channels' database thread."""
    if lane == MATCHES:
        run = database_sync_to_async(live_events, thread_sensitive=False, executor=MATCHES_THREAD)
    else:
        run = database_sync_to_async(live_events)
    return await run(
        competition_id=competition_id,
        changes=changes,
        matches=lane == MATCHES,
        panels=lane == PANELS,
        head_to_head=lane == HEAD_TO_HEAD,
    )


class _Lane:
    """The pending changes of one lane and its build task."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.changes = Changes()
        self.task: asyncio.Task | None = None
        self.last_build = -1e9
        #: Wall seconds the last build took (its wait for the database thread included).
        self.last_cost = 0.0

    def pending(self) -> bool:
        """Whether there is something for this lane to build."""
        if self.name == MATCHES:
            return bool(self.changes.started or self.changes.finished)
        if self.name == HEAD_TO_HEAD:
            return bool(self.changes.finished)
        return bool(self.changes)


class Outbox:
    """The frames waiting for one socket, written by one task at a time.

    ``send`` writes one text frame; ``close`` closes the socket with a code.
    Nothing is written until :meth:`open` (the socket's snapshot goes first).
    ``staff`` sockets receive the events as broadcast, others their public text.
    """

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[int], Awaitable[None]],
        *,
        staff: bool = False,
    ) -> None:
        self.staff = staff
        self._send = send
        self._close = close
        self._pending: list[str] = []
        self._writer: asyncio.Task | None = None
        self._open = False
        self.closed = False

    def open(self) -> None:
        """Start writing (after the snapshot); events pushed before are sent now."""
        self._open = True
        self._wake()

    def push(self, text: str) -> None:
        """Queue one frame (an encoded event, or a JSON array of them); never blocks."""
        if self.closed:
            return
        self._pending.append(text)
        if len(self._pending) > MAX_BACKLOG:
            self.closed = True
            self._pending.clear()
            asyncio.get_running_loop().create_task(self._close(CLOSE_TOO_SLOW))
            return
        self._wake()

    def cancel(self) -> None:
        self.closed = True
        self._pending.clear()
        if self._writer is not None:
            self._writer.cancel()

    def _wake(self) -> None:
        if self._open and self._pending and self._writer is None and not self.closed:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        try:
            while self._pending and not self.closed:
                frames, self._pending = self._pending, []
                await self._send(frames[0] if len(frames) == 1 else join_frames(frames))
        except Exception:
            # The socket went away under us; its disconnect cancels the outbox.
            log.debug("live socket write failed", exc_info=True)
            self.closed = True
        finally:
            self._writer = None


def join_frames(frames: Sequence[str]) -> str:
    """One JSON array of the events of ``frames``, in order (each an object or an array)."""
    return "[" + ",".join(f[1:-1] if f.startswith("[") else f for f in frames) + "]"


class Fanout:
    """The sockets of this process that watch one competition, fed by one subscription."""

    standings_interval_s: float = 0.2
    batch_window_s: float = 0.005
    #: At most one build of the panels' events per this many seconds (the matches lane
    #: has no pause: one build at a time).
    panels_interval_s: float = 0.25
    #: The head-to-head table reads every result of the competition: at most one build
    #: per this many seconds.
    head_to_head_interval_s: float = 5.0
    #: The panels and head-to-head lanes also wait this many times their last build's
    #: duration after it before the next: a panels build that takes 100 ms under load is
    #: followed by 0.4 s without one,
    #: so the slow lanes hold the server's GIL at most a fifth of the time and leave the
    #: rest to the event loop's sockets and the matches lane. (On a quiet server a build
    #: takes a few tens of milliseconds and the intervals above decide.)
    slow_lane_duty: float = 4.0

    def __init__(self, layer: Any, competition_id: int, build: Builder | None = None) -> None:
        self.layer = layer
        self.competition_id = int(competition_id)
        self.group = group_name(competition_id)
        self.build = build or build_live_events
        self._lanes = (_Lane(MATCHES), _Lane(PANELS), _Lane(HEAD_TO_HEAD))
        self.outboxes: set[Outbox] = set()
        self._channel: str | None = None
        self._receiver: asyncio.Task | None = None
        self._lock = asyncio.Lock()
        self._last_standings = 0.0
        self._pending_standings: str | None = None
        self._flush: asyncio.TimerHandle | None = None
        self._batch: list[tuple[str, str]] = []  # (as broadcast, public)
        self._send_batch: asyncio.TimerHandle | None = None
        self._snapshots: dict[Any, _Reading] = {}

    async def join(self, outbox: Outbox) -> None:
        """Add a socket; the first one subscribes (done before this returns)."""
        async with self._lock:
            self.outboxes.add(outbox)
            if self._receiver is None:
                self._channel = await self.layer.new_channel(prefix="fanout.")
                await self.layer.group_add(self.group, self._channel)
                self._receiver = asyncio.get_running_loop().create_task(self._receive())

    async def leave(self, outbox: Outbox) -> bool:
        """Remove a socket; the last one unsubscribes. True when none is left."""
        outbox.cancel()
        async with self._lock:
            self.outboxes.discard(outbox)
            if self.outboxes or self._receiver is None:
                return not self.outboxes
            receiver, self._receiver = self._receiver, None
            receiver.cancel()
            for lane in self._lanes:
                if lane.task is not None:
                    lane.task.cancel()
                lane.task, lane.changes = None, Changes()
            for timer in (self._flush, self._send_batch):
                if timer is not None:
                    timer.cancel()
            self._flush = self._send_batch = None
            self._batch.clear()
            try:
                await self.layer.group_discard(self.group, self._channel)
            except Exception:
                log.warning("could not leave %s", self.group, exc_info=True)
            return True

    async def _receive(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self._channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("live events of %s: receive failed", self.group, exc_info=True)
                await asyncio.sleep(1)
                continue
            self.publish(message.get("event_type"), message.get("text"))

    def publish(self, event_type: str | None, text: str | None) -> None:
        """Hand one encoded event to every socket, coalescing standings; a notification
        is gathered for the next build instead."""
        if not isinstance(text, str):
            return
        if event_type == CHANGED:
            self.notified(text)
            return
        if event_type != STANDINGS_UPDATED:
            try:
                public = public_event_text(event_type, text)
            except ValueError:  # not JSON: nobody gets it
                log.warning("live events of %s: undecodable %s", self.group, event_type)
                return
            self._to_all(text, public)
            return
        self._pending_standings = text  # the newest wins
        if self._flush is not None:
            return
        wait = self._last_standings + self.standings_interval_s - time.monotonic()
        if wait <= 0:
            self._flush_standings()
        else:
            self._flush = asyncio.get_running_loop().call_later(wait, self._flush_standings)

    def notified(self, text: str) -> None:
        """Gather a notification (or a batch of them); start a build now or when the
        window closes."""
        try:
            notes = notifications_in(text)
        except ValueError:
            log.warning("live events of %s: undecodable notification", self.group)
            return
        for lane in self._lanes:
            for note in notes:
                lane.changes.add(note)
            if lane.task is None and lane.pending():
                lane.task = asyncio.get_running_loop().create_task(self._build_loop(lane))

    async def _build_loop(self, lane: _Lane) -> None:
        """Build ``lane`` while changes are pending (panels: once per window at most)."""
        interval = {PANELS: self.panels_interval_s, HEAD_TO_HEAD: self.head_to_head_interval_s}
        interval = interval.get(lane.name, 0.0)
        duty = self.slow_lane_duty if lane.name != MATCHES else 0.0
        try:
            while lane.pending():
                pause = max(interval, (1 + duty) * lane.last_cost)  # from the last start
                wait = lane.last_build + pause - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                changes, lane.changes = lane.changes, Changes()
                lane.last_build = time.monotonic()
                try:
                    built = await self.build(self.competition_id, changes, lane.name)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.warning("live events of %s: build failed", self.group, exc_info=True)
                    continue
                lane.last_cost = time.monotonic() - lane.last_build  # of a build that worked
                self._send_built(built)
        finally:
            if asyncio.current_task() is lane.task:
                lane.task = None

    def _send_built(self, built: list[dict[str, Any]]) -> None:
        for item in built:
            text = json.dumps(item, separators=(",", ":"))
            self._to_all(text, public_event_text(item.get("type"), text))

    def _flush_standings(self) -> None:
        self._flush = None
        text, self._pending_standings = self._pending_standings, None
        if text is not None:
            self._last_standings = time.monotonic()
            self._to_all(text, text)

    def _to_all(self, text: str, public: str) -> None:
        """Gather ``text`` (``public`` for non-staff) into the current batch, sent when
        its window closes."""
        self._batch.append((text, public))
        if self._send_batch is None:
            loop = asyncio.get_running_loop()
            self._send_batch = loop.call_later(self.batch_window_s, self._flush_batch)

    def _flush_batch(self) -> None:
        self._send_batch = None
        batch, self._batch = self._batch, []
        if not batch:
            return
        frames = {}
        for staff, texts in ((True, [t for t, _ in batch]), (False, [p for _, p in batch])):
            frames[staff] = texts[0] if len(texts) == 1 else join_frames(texts)
        for outbox in tuple(self.outboxes):
            outbox.push(frames[outbox.staff])

    async def snapshot(
        self, key: Any, joined_at: float, read: Callable[[Callable[[], None]], Awaitable[str]]
    ) -> str:
        """The encoded snapshot ``key`` for a socket subscribed since ``joined_at``.

        ``read(begin)`` reads it and calls ``begin()`` as the reading starts. A
        reading that has not started yet, or started after ``joined_at``, is shared
        (whatever changes after it starts reaches the socket as events); otherwise a
        new one is queued, which the sockets joining meanwhile share in turn.
        """
        reading = self._snapshots.get(key)
        if reading is None or (reading.began_at is not None and reading.began_at < joined_at):
            reading = self._snapshots[key] = _Reading()
            reading.task = asyncio.get_running_loop().create_task(read(reading.begin))
        return await asyncio.shield(reading.task)


class _Reading:
    """One snapshot reading shared by the sockets waiting for it."""

    def __init__(self) -> None:
        self.began_at: float | None = None
        self.task: asyncio.Task | None = None

    def begin(self) -> None:
        self.began_at = time.monotonic()


#: The fan-outs of each running event loop (tests run several loops in turn).
_fanouts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, Fanout]] = (
    weakref.WeakKeyDictionary()
)


def fanout_for(layer: Any, competition_id: int) -> Fanout:
    """This process's fan-out of ``competition_id`` (created on first use)."""
    by_id = _fanouts.setdefault(asyncio.get_running_loop(), {})
    fanout = by_id.get(competition_id)
    if fanout is None or fanout.layer is not layer:
        fanout = by_id[competition_id] = Fanout(layer, competition_id)
    return fanout


async def watch(layer: Any, competition_id: int, outbox: Outbox) -> Fanout:
    """Subscribe ``outbox`` to the events of ``competition_id``."""
    fanout = fanout_for(layer, competition_id)
    await fanout.join(outbox)
    return fanout


async def unwatch(fanout: Fanout, outbox: Outbox) -> None:
    """Unsubscribe ``outbox``; forget the fan-out once nobody watches."""
    if await fanout.leave(outbox):
        by_id = _fanouts.get(asyncio.get_running_loop(), {})
        competition_id = int(fanout.group.rsplit(".", 1)[1])
        if by_id.get(competition_id) is fanout and not fanout.outboxes:
            del by_id[competition_id]
