"""``cardroom_websocket_clients`` counts the live dashboard sockets open now."""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

from config import metrics
from config.asgi import application
from tests.dashboard.conftest import IN_MEMORY_LAYER
from tests.factories import make_competition

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def _one_process(settings):
    settings.CHANNEL_LAYERS = IN_MEMORY_LAYER


@pytest_asyncio.fixture(autouse=True)
async def _close_worker_connections():
    yield
    await database_sync_to_async(connections.close_all)()


async def test_live_sockets_are_counted_while_open(django_user_model):
    owner = await database_sync_to_async(django_user_model.objects.create_user)("olga")
    competition = await database_sync_to_async(make_competition)(owner, start=True, entries=3)
    before = metrics.WEBSOCKET_CLIENTS._value.get()
    sockets = []
    for _ in range(3):
        comm = WebsocketCommunicator(
            application,
            f"/ws/competitions/{competition.pk}/",
            [(b"origin", b"http://localhost")],
        )
        connected, _ = await comm.connect()
        assert connected
        await comm.receive_output(timeout=3)  # the snapshot
        sockets.append(comm)

    open_now = metrics.WEBSOCKET_CLIENTS._value.get() - before
    for comm in sockets:
        await comm.disconnect()

    assert open_now == 3
    assert metrics.WEBSOCKET_CLIENTS._value.get() == before
