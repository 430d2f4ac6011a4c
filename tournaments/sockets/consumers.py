"""The live event stream of one competition: ``ws/competitions/<id>/``.

The consumer relays and never writes: it checks who may watch (public
competitions for everyone, private ones for their organisers and staff; anyone
else is closed with code 4403), sends a ``snapshot`` of the current state, then
forwards the events its process's fan-out builds from the notifications the
services send (``tournaments.live.events``, ``tournaments.sockets.fanout``). Worker
processes (host and pid) are named to staff only: the others' snapshot and
``queue.status`` events carry opaque labels instead.

Events reach the sockets through this process's fan-out of the competition
(``tournaments.sockets.fanout``): one channel-layer subscription per process and
competition, however many sockets watch it. A frame holds one event (a JSON
object) or several, in order, as a JSON array (the events of one moment, or
those that piled up behind a slow write). The panels' events (standings, rounds,
problem bots, queue) are built at most once per
:attr:`tournaments.sockets.fanout.Fanout.panels_interval_s`, always as of the build.
Sockets connecting together share one reading of the snapshot.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer

from config import metrics
from tournaments.models import Competition, Match
from tournaments.permissions import can_manage
from tournaments.selectors import competitions_visible_to
from tournaments.sockets.fanout import Outbox, join_frames, unwatch, watch
from tournaments.sockets.match_fanout import unwatch_match, watch_match
from tournaments.watching.live_match import live_events, shown_seats
from tournaments.watching.panels import competition_snapshot

#: Close code for a competition the user may not watch (or that does not exist).
CLOSE_FORBIDDEN = 4403
#: A channel-layer alias that is never configured: the sockets themselves hold no
#: channel (their events come through the fan-out, which uses the default layer).
NO_LAYER = "cardroom.no-layer"


@database_sync_to_async
def _watchable(competition_id: int, user) -> tuple[Competition | None, bool]:
    """The competition if ``user`` may watch it, and whether they get the admin view."""
    competition = competitions_visible_to(user=user).filter(pk=competition_id).first()
    if competition is None:
        return None, False
    return competition, can_manage(competition=competition, user=user)


@database_sync_to_async
def _snapshot_text(
    competition: Competition, admin: bool, staff: bool, begin: Callable[[], None]
) -> str:
    begin()
    snapshot = competition_snapshot(
        competition=competition, admin=admin, staff=staff, head_to_head=False
    )
    return json.dumps(snapshot, separators=(",", ":"))


def _is_staff(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_staff)


class CompetitionConsumer(AsyncJsonWebsocketConsumer):
    channel_layer_alias = NO_LAYER

    async def connect(self) -> None:
        self.fanout = None
        self.counted = True
        metrics.inc(metrics.WEBSOCKET_CLIENTS)
        user = self.scope.get("user")
        staff = _is_staff(user)
        self.outbox = Outbox(self._send_text, self._close_with, staff=staff)
        competition_id = self.scope["url_route"]["kwargs"]["competition_id"]
        competition, admin = await _watchable(competition_id, user)
        await self.accept()
        if competition is None:
            # Accepted first so that the browser sees the code, not a failed handshake.
            await self.close(code=CLOSE_FORBIDDEN)
            return
        # Subscribed before the snapshot is read: nothing falls between the two.
        self.fanout = await watch(get_channel_layer(), competition.pk, self.outbox)
        joined_at = time.monotonic()
        text = await self.fanout.snapshot(
            (admin, staff),
            joined_at,
            lambda begin: _snapshot_text(competition, admin, staff, begin),
        )
        await self.send(text_data=text)
        self.outbox.open()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "counted", False):
            self.counted = False
            metrics.observe(lambda: metrics.WEBSOCKET_CLIENTS.dec())
        if self.fanout is not None:
            fanout, self.fanout = self.fanout, None
            await unwatch(fanout, self.outbox)

    async def receive(self, text_data: str | None = None, bytes_data: Any = None, **kwargs):
        """The stream is one-way; messages from the browser are ignored, unread."""

    async def _send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def _close_with(self, code: int) -> None:
        await self.close(code=code)


@database_sync_to_async
def _watchable_match(match_id: int, user) -> tuple[Match | None, frozenset[int]]:
    """The match if ``user`` may watch its competition, and the seats whose own cards
    they may see while it is played (``watching.live_match.shown_seats``)."""
    visible = competitions_visible_to(user=user, challenges=True)
    match = (
        Match.objects.select_related("competition")
        .filter(competition__in=visible, pk=match_id)
        .first()
    )
    if match is None:
        return None, frozenset()
    return match, shown_seats(match=match, user=user)


@database_sync_to_async
def _live_snapshot(match_id: int, view, begin: Callable[[], None]) -> str:
    begin()
    built, _, _ = live_events(match_id=match_id, views={view: 0} if view is not None else {})
    texts = []
    for item in built:
        item.pop("view", None)
        texts.append(json.dumps(item, separators=(",", ":")))
    return texts[0] if len(texts) == 1 else join_frames(texts)


class MatchConsumer(AsyncJsonWebsocketConsumer):
    """A running match, live: ``ws/matches/<id>/`` (its finished games and the number of
    the game in progress, for its page) and ``ws/matches/<id>/games/<n>/`` (the same,
    and the steps of game ``n`` as they are played, for the replay viewer).

    Relays only: it checks that the user may watch the match's competition (else
    closes with code 4403), sends the current state first (``live.games``, the game's
    ``live.steps`` from its first step, or ``live.over``), then the events of this
    process's :class:`tournaments.sockets.match_fanout.MatchFanout`. Every step is in the public
    view; a seat's owner also gets that seat's own cards where the competition's
    full-view rule allows it, never another seat's.
    """

    channel_layer_alias = NO_LAYER

    async def connect(self) -> None:
        self.fanout = None
        kwargs = self.scope["url_route"]["kwargs"]
        match, seats = await _watchable_match(kwargs["match_id"], self.scope.get("user"))
        await self.accept()
        if match is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        number = kwargs.get("number")
        view = (int(number), seats) if number is not None else None
        self.outbox = Outbox(self._send_text, self._close_with)
        # Subscribed before the state is read: nothing falls between the two.
        self.fanout = await watch_match(get_channel_layer(), match.pk, self.outbox, view)
        joined_at = time.monotonic()
        text = await self.fanout.snapshot(
            view, joined_at, lambda begin: _live_snapshot(match.pk, view, begin)
        )
        await self.send(text_data=text)
        self.outbox.open()

    async def disconnect(self, code: int) -> None:
        if self.fanout is not None:
            fanout, self.fanout = self.fanout, None
            await unwatch_match(fanout, self.outbox)

    async def receive(self, text_data: str | None = None, bytes_data: Any = None, **kwargs):
        """The stream is one-way; messages from the browser are ignored, unread."""

    async def _send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def _close_with(self, code: int) -> None:
        await self.close(code=code)
