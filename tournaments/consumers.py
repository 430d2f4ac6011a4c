"""The live event stream of one competition: ``ws/competitions/<id>/``.

The consumer relays and never writes: it checks who may watch (public
competitions for everyone, private ones for their organisers and staff; anyone
else is closed with code 4403), joins the group ``competition.<id>``, sends a
``snapshot`` of the current state, then forwards the events the services
broadcast (``tournaments.events``). Bursts of ``standings.updated`` are
coalesced: a socket gets at most one per :attr:`CompetitionConsumer.standings_interval_s`,
always the newest.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from tournaments.dashboard.selectors import competition_snapshot
from tournaments.events import RELAY_MESSAGE_TYPE, STANDINGS_UPDATED, group_name
from tournaments.models import Competition
from tournaments.selectors import competitions_visible_to
from tournaments.services import can_manage

#: Close code for a competition the user may not watch (or that does not exist).
CLOSE_FORBIDDEN = 4403


@database_sync_to_async
def _watchable(competition_id: int, user) -> tuple[Competition | None, bool]:
    """The competition if ``user`` may watch it, and whether they get the admin view."""
    competition = competitions_visible_to(user=user).filter(pk=competition_id).first()
    if competition is None:
        return None, False
    return competition, can_manage(competition=competition, user=user)


@database_sync_to_async
def _snapshot(competition: Competition, admin: bool) -> dict[str, Any]:
    return competition_snapshot(competition=competition, admin=admin)


class CompetitionConsumer(AsyncJsonWebsocketConsumer):
    standings_interval_s: float = 0.2

    async def connect(self) -> None:
        self.group = None
        self._last_standings = 0.0
        self._pending_standings: str | None = None
        self._flush_task: asyncio.Task | None = None
        competition_id = self.scope["url_route"]["kwargs"]["competition_id"]
        competition, admin = await _watchable(competition_id, self.scope.get("user"))
        await self.accept()
        if competition is None:
            # Accepted first so that the browser sees the code, not a failed handshake.
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group = group_name(competition.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_json(await _snapshot(competition, admin))

    async def disconnect(self, code: int) -> None:
        if self._flush_task is not None:
            self._flush_task.cancel()
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Relayed events go straight to :meth:`competition_event`.

        Channels' own dispatch first closes stale database connections in a worker
        thread, for every message: a thread hop per event per socket, for a handler
        that never touches the database. Other messages (connect, disconnect,
        frames from the browser) keep that clean-up.
        """
        if message["type"] == RELAY_MESSAGE_TYPE:
            await self.competition_event(message)
        else:
            await super().dispatch(message)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The stream is one-way; messages from the browser are ignored."""

    async def competition_event(self, message: dict[str, Any]) -> None:
        """A broadcast event (``tournaments.events.relay_message``): forward its text.

        The event was encoded once by the broadcaster; every socket sends the same text.
        """
        text = message["text"]
        if message["event_type"] != STANDINGS_UPDATED:
            await self.send(text_data=text)
            return
        wait = self._last_standings + self.standings_interval_s - time.monotonic()
        if wait <= 0 and self._flush_task is None:
            self._last_standings = time.monotonic()
            await self.send(text_data=text)
            return
        self._pending_standings = text  # the newest wins
        if self._flush_task is None:
            self._flush_task = asyncio.create_task(self._flush_standings(max(wait, 0.0)))

    async def _flush_standings(self, wait: float) -> None:
        await asyncio.sleep(wait)
        text, self._pending_standings = self._pending_standings, None
        self._flush_task = None
        if text is not None:
            self._last_standings = time.monotonic()
            await self.send(text_data=text)
