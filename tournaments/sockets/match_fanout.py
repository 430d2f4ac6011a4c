"""Process-local fan-out of a match watched while it is played to the sockets watching it
(its page, or one of its games in the replay viewer).

As :mod:`tournaments.sockets.fanout` does for a competition, a process serving WebSockets
subscribes once per match to the group ``match.<id>`` (:class:`MatchFanout`) and builds
the events once from what the worker published (``tournaments.watching.live_match``),
for all the sockets of the process; each socket gets the steps of the game it follows,
in the public view or with its seat's own cards where the competition allows.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async

from tournaments.live.events import (
    match_group_name,
)
from tournaments.sockets.fanout import Outbox, _Reading, join_frames
from tournaments.watching.live_match import live_events as live_match_events

log = logging.getLogger(__name__)


#: A followed game: its number and the seats whose own cards its watchers see.
GameView = tuple[int, frozenset[int]]


class MatchFanout:
    """The sockets of this process that watch one running match (its page, or one of its
    games in the replay viewer), fed by one subscription to ``match.<id>``.

    A worker's notification (``tournaments.live.events.MATCH_LIVE``) starts a build
    (:func:`tournaments.watching.live_match.live_events`, on the database thread): one at a
    time, the notifications that arrive meanwhile go into the next. Each build is
    encoded once for all the sockets: ``live.games`` to every socket when a game
    finished or another began, the new steps of each followed game to the sockets
    following it (each game view keeps a cursor of
    the steps it was sent), ``live.over`` once the match is not running.
    """

    def __init__(self, layer: Any, match_id: int) -> None:
        self.layer = layer
        self.match_id = int(match_id)
        self.group = match_group_name(match_id)
        self.outboxes: dict[Outbox, GameView | None] = {}
        self.cursors: dict[GameView, int] = {}
        self._channel: str | None = None
        self._receiver: asyncio.Task | None = None
        self._builder: asyncio.Task | None = None
        self._again = False
        self._lock = asyncio.Lock()
        #: Finished games listed to the sockets so far.
        self.games_sent = 0
        #: The number of the current game the sockets were last told.
        self.current_sent: int | None = None
        self._snapshots: dict[Any, _Reading] = {}

    async def join(self, outbox: Outbox, view: GameView | None) -> None:
        async with self._lock:
            self.outboxes[outbox] = view
            if view is not None:
                self.cursors.setdefault(view, 0)
            if self._receiver is None:
                self._channel = await self.layer.new_channel(prefix="fanout.")
                await self.layer.group_add(self.group, self._channel)
                self._receiver = asyncio.get_running_loop().create_task(self._receive())

    async def leave(self, outbox: Outbox) -> bool:
        outbox.cancel()
        async with self._lock:
            view = self.outboxes.pop(outbox, None)
            if view is not None and view not in self.outboxes.values():
                self.cursors.pop(view, None)
            if self.outboxes or self._receiver is None:
                return not self.outboxes
            receiver, self._receiver = self._receiver, None
            receiver.cancel()
            if self._builder is not None:
                self._builder.cancel()
            try:
                await self.layer.group_discard(self.group, self._channel)
            except Exception:
                log.warning("could not leave %s", self.group, exc_info=True)
            return True

    async def _receive(self) -> None:
        while True:
            try:
                await self.layer.receive(self._channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("live match %s: receive failed", self.group, exc_info=True)
                await asyncio.sleep(1)
                continue
            self.notified()

    def notified(self) -> None:
        """A notification came: build now, or again after the build under way."""
        if self._builder is not None:
            self._again = True
            return
        self._builder = asyncio.get_running_loop().create_task(self._build_loop())

    async def _build_loop(self) -> None:
        try:
            self._again = True
            while self._again:
                self._again = False
                try:
                    built, cursors, games = await database_sync_to_async(live_match_events)(
                        match_id=self.match_id, views=dict(self.cursors), games_from=self.games_sent
                    )
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.warning("live match %s: build failed", self.group, exc_info=True)
                    continue
                self.games_sent = max(self.games_sent, games)
                for view, at in cursors.items():
                    if view in self.cursors:
                        self.cursors[view] = max(self.cursors[view], at)
                self._send_built(built)
        finally:
            if asyncio.current_task() is self._builder:
                self._builder = None

    async def snapshot(
        self, key: Any, joined_at: float, read: Callable[[Callable[[], None]], Awaitable[str]]
    ) -> str:
        """The encoded state ``key`` for a socket subscribed since ``joined_at``, shared
        by the sockets connecting together (as :meth:`Fanout.snapshot`)."""
        reading = self._snapshots.get(key)
        if reading is None or (reading.began_at is not None and reading.began_at < joined_at):
            reading = self._snapshots[key] = _Reading()
            reading.task = asyncio.get_running_loop().create_task(read(reading.begin))
        return await asyncio.shield(reading.task)

    def _send_built(self, built: list[dict[str, Any]]) -> None:
        shared: list[str] = []
        by_view: dict[GameView, list[str]] = {}
        for item in built:
            view = item.pop("view", None)
            if item["type"] == "live.games":
                if not item["games"] and item["current"] == self.current_sent:
                    continue  # nothing new for the list (a move of the current game)
                self.current_sent = item["current"]
            text = json.dumps(item, separators=(",", ":"))
            if view is None:
                shared.append(text)
            else:
                by_view.setdefault(view, []).append(text)
        for outbox, view in tuple(self.outboxes.items()):
            texts = shared + by_view.get(view, []) if view is not None else shared
            if texts:
                outbox.push(texts[0] if len(texts) == 1 else join_frames(texts))


#: The match fan-outs of each running event loop.
_match_fanouts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, MatchFanout]] = (
    weakref.WeakKeyDictionary()
)


async def watch_match(
    layer: Any, match_id: int, outbox: Outbox, view: GameView | None
) -> MatchFanout:
    """Subscribe ``outbox`` to the live events of ``match_id`` (and of game ``view``)."""
    by_id = _match_fanouts.setdefault(asyncio.get_running_loop(), {})
    fanout = by_id.get(match_id)
    if fanout is None or fanout.layer is not layer:
        fanout = by_id[match_id] = MatchFanout(layer, match_id)
    await fanout.join(outbox, view)
    return fanout


async def unwatch_match(fanout: MatchFanout, outbox: Outbox) -> None:
    """Unsubscribe ``outbox``; forget the fan-out once nobody watches."""
    if await fanout.leave(outbox):
        by_id = _match_fanouts.get(asyncio.get_running_loop(), {})
        if by_id.get(fanout.match_id) is fanout and not fanout.outboxes:
            del by_id[fanout.match_id]
