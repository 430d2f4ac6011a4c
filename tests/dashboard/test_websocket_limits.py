"""One client cannot hold a web process's sockets or memory: per-client socket limits and
a small inbound frame size, through the real ASGI application."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.db import connections

from config.websocket_limits import CLOSE_TOO_BIG
from tests.dashboard.conftest import communicator, open_socket
from tests.factories import make_competition
from tournaments.demo.processes import asgi_server_argv

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest_asyncio.fixture(autouse=True)
async def _close_worker_connections():
    yield
    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def limits(settings):
    settings.CARDROOM_WS_PER_CLIENT = 3
    settings.CARDROOM_WS_MAX_FRAME_BYTES = 4096


async def connect(competition_id: int, user=None, address: str = "10.0.0.1"):
    comm = await database_sync_to_async(communicator)(competition_id, user)
    comm.scope["client"] = (address, 40000)
    connected, _ = await comm.connect()
    return comm, connected


async def test_one_address_opens_no_more_than_its_limit_and_others_still_can(limits, organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    opened = [await connect(competition.pk) for _ in range(3)]

    refused, connected = await connect(competition.pk)
    elsewhere, other_connected = await connect(competition.pk, address="10.0.0.2")

    assert all(ok for _, ok in opened) and not connected
    assert other_connected
    for comm, _ in [*opened, (elsewhere, True)]:
        await comm.disconnect()
    again, connected_again = await connect(competition.pk)  # closed ones are given back
    assert connected_again
    await again.disconnect()


async def test_a_signed_in_user_counts_as_one_client_from_any_address(limits, organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    opened = [await connect(competition.pk, organiser, address=f"10.0.1.{i}") for i in range(3)]

    _, connected = await connect(competition.pk, organiser, address="10.0.1.9")

    assert all(ok for _, ok in opened) and not connected
    for comm, _ in opened:
        await comm.disconnect()


async def test_a_1_mib_frame_closes_the_socket_with_1009(limits, organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    comm = await open_socket(competition.pk)
    await comm.receive_json_from(timeout=2)  # the snapshot

    await comm.send_to(text_data="x" * (1 << 20))

    assert await comm.receive_output(timeout=2) == {
        "type": "websocket.close",
        "code": CLOSE_TOO_BIG,
    }


async def test_a_small_frame_is_ignored_and_the_socket_stays_open(limits, organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    comm = await open_socket(competition.pk)
    await comm.receive_json_from(timeout=2)

    await comm.send_to(text_data='{"hello": 1}')

    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()


async def test_the_asgi_server_refuses_big_frames_before_buffering_them():
    argv = asgi_server_argv(host="127.0.0.1", port=8000)

    assert argv[argv.index("--ws-max-size") + 1] == "4096"


def test_the_asgi_server_and_the_deployed_ones_decline_per_socket_compression():
    """Browsers offer permessage-deflate; accepted, every event is compressed once per
    socket (bench.live at 500 watchers: p95 1,775 ms against 222 ms)."""
    argv = asgi_server_argv(host="127.0.0.1", port=8000)
    assert argv[argv.index("--ws-per-message-deflate") + 1] == "false"
    root = Path(__file__).resolve().parents[2]
    for deployed in ("deploy/systemd/cardroom-web.service", "deploy/compose.yaml"):
        (command,) = [line for line in (root / deployed).read_text().splitlines()
                      if "uvicorn --host" in line]  # fmt: skip
        assert "--ws-per-message-deflate false" in command, deployed
