"""The live stream of a running match over a real ASGI stack: who may watch, and the moves
of the game in progress pushed as its worker publishes them."""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

import games
from config.asgi import application
from tests.factories import make_competition
from tournaments.live import publisher as live
from tournaments.models import Match
from tournaments.sockets.consumers import CLOSE_FORBIDDEN
from tournaments.worker import execution

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest_asyncio.fixture(autouse=True)
async def _close_worker_connections():
    yield
    await database_sync_to_async(connections.close_all)()


async def open_socket(path: str) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, path, [(b"origin", b"http://localhost")])
    connected, _ = await comm.connect()
    assert connected
    return comm


async def events_until(comm: WebsocketCommunicator, kind: str) -> list[dict]:
    """The events received up to and with the first of type ``kind``."""
    received: list[dict] = []
    while not any(e["type"] == kind for e in received):
        frame = await comm.receive_json_from(timeout=3)
        received.extend(frame if isinstance(frame, list) else [frame])
    return received


def claimed_match(organiser, *, public: bool = True) -> Match:
    competition = make_competition(organiser, games=3, is_public=public, start=True, entries=3)
    match = competition.matches.order_by("id").first()
    return execution.match_claim(match_id=match.pk, claimed_by="test/1/live")


class Worker:
    """A worker's side of a match: plays moves of game 1 and publishes them."""

    def __init__(self, match: Match) -> None:
        self.publisher = live.LivePublisher(match_id=match.pk, token=live.claim_token(match))
        self.state = games.load("manni-basic").new_game(11)

    def play(self, moves: int) -> None:
        for _ in range(moves):
            self.state.apply(self.state.legal_actions()[0])
        self.publisher.action_applied(0, self.state)
        self.publisher.flush()


async def test_the_consumer_pushes_the_moves_of_the_game_in_progress(organiser):
    match = await database_sync_to_async(claimed_match)(organiser)
    worker = Worker(match)
    comm = await open_socket(f"/ws/matches/{match.pk}/games/1/")
    first = await events_until(comm, "live.games")
    assert first[-1]["games"] == [] and first[-1]["current"] == 1

    await database_sync_to_async(worker.play)(3)
    pushed = await events_until(comm, "live.steps")
    await database_sync_to_async(worker.play)(2)
    more = await events_until(comm, "live.steps")

    steps = next(e for e in pushed if e["type"] == "live.steps")
    assert steps["game"] == 1 and steps["from"] == 0 and not steps["over"]
    assert [s["index"] for s in steps["steps"]] == [0, 1, 2, 3]
    later = next(e for e in more if e["type"] == "live.steps")
    assert later["from"] == 4 and [s["index"] for s in later["steps"]] == [4, 5]
    for step in steps["steps"] + later["steps"]:
        view = step["view"]
        assert "hand" not in view and not any(k.startswith("hand seat") for k in view)

    # The match ends: the watchers are told, and may load the stored games.
    await database_sync_to_async(Match.objects.filter(pk=match.pk).update)(status=Match.Status.DONE)
    await database_sync_to_async(worker.publisher.close)()
    over = await events_until(comm, "live.over")
    assert over[-1] == {"type": "live.over", "match": match.pk, "status": "done"}
    await comm.disconnect()


async def test_a_new_watcher_gets_the_game_so_far_first(organiser):
    match = await database_sync_to_async(claimed_match)(organiser)
    worker = Worker(match)
    await database_sync_to_async(worker.play)(5)

    comm = await open_socket(f"/ws/matches/{match.pk}/games/1/")
    first = await events_until(comm, "live.steps")

    steps = next(e for e in first if e["type"] == "live.steps")
    assert steps["from"] == 0 and len(steps["steps"]) == 6
    await comm.disconnect()


async def test_a_private_match_is_refused_to_an_outsider(organiser):
    match = await database_sync_to_async(claimed_match)(organiser, public=False)
    comm = await open_socket(f"/ws/matches/{match.pk}/")
    output = await comm.receive_output(timeout=2)
    assert output == {"type": "websocket.close", "code": CLOSE_FORBIDDEN}
