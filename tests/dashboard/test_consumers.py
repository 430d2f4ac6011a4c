"""The competition event stream over a real ASGI stack: who may watch, what they get."""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connections

from config.asgi import application
from tests.dashboard.conftest import open_socket
from tests.factories import make_competition, play_one
from tournaments.live import events
from tournaments.sockets.consumers import CLOSE_FORBIDDEN

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest_asyncio.fixture(autouse=True)
async def _close_worker_connections():
    """The database thread's connection must not outlive the test (nor the test database)."""
    yield
    await database_sync_to_async(connections.close_all)()


async def receive_events(comm: WebsocketCommunicator, count: int) -> list[dict]:
    """The next ``count`` events, however they were grouped into frames."""
    received: list[dict] = []
    while len(received) < count:
        frame = await comm.receive_json_from(timeout=2)
        received.extend(frame if isinstance(frame, list) else [frame])
    assert len(received) == count, received
    return received


async def assert_forbidden(comm: WebsocketCommunicator) -> None:
    output = await comm.receive_output(timeout=2)
    assert output == {"type": "websocket.close", "code": CLOSE_FORBIDDEN}


async def test_anonymous_is_refused_a_private_competition(organiser):
    competition = await database_sync_to_async(make_competition)(
        organiser, is_public=False, start=True, entries=3
    )
    comm = await open_socket(competition.pk)
    await assert_forbidden(comm)


async def test_an_outsider_is_refused_a_private_competition(organiser, outsider):
    competition = await database_sync_to_async(make_competition)(
        organiser, is_public=False, start=True, entries=3
    )
    comm = await open_socket(competition.pk, outsider)
    await assert_forbidden(comm)


async def test_an_unknown_competition_is_refused(organiser):
    comm = await open_socket(987654)
    await assert_forbidden(comm)


async def test_a_foreign_origin_is_rejected_at_the_handshake(organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    comm = WebsocketCommunicator(
        application,
        f"/ws/competitions/{competition.pk}/",
        [(b"origin", b"http://evil.example")],
    )
    connected, _ = await comm.connect()
    assert not connected


async def test_anonymous_watches_a_public_competition_from_a_snapshot(organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    comm = await open_socket(competition.pk)
    snapshot = await comm.receive_json_from(timeout=2)
    assert snapshot["type"] == "snapshot"
    assert snapshot["competition"] == competition.pk
    assert snapshot["admin"] is False and "failed" not in snapshot
    assert [row["rank"] for row in snapshot["standings"]] == [1, 1, 1]
    assert set(snapshot["standings"][0]) >= {"name", "rating", "mu", "sigma", "games", "points"}
    assert snapshot["progress"]["pending"] == snapshot["progress"]["total"] >= 1
    assert snapshot["matches"] == {"running": [], "recent": []}
    await comm.disconnect()


async def test_organisers_and_staff_get_the_admin_view_of_a_private_competition(organiser, staff):
    competition = await database_sync_to_async(make_competition)(
        organiser, is_public=False, start=True, entries=3
    )
    for user in (organiser, staff):
        comm = await open_socket(competition.pk, user)
        snapshot = await comm.receive_json_from(timeout=2)
        assert snapshot["type"] == "snapshot"
        assert snapshot["admin"] is True and snapshot["failed"] == []
        await comm.disconnect()


async def test_the_sockets_of_a_process_share_one_subscription(organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    layer = get_channel_layer()
    group = f"competition.{competition.pk}"
    first = await open_socket(competition.pk)
    second = await open_socket(competition.pk)
    for comm in (first, second):
        assert (await comm.receive_json_from(timeout=2))["type"] == "snapshot"
    assert len(layer.groups.get(group, {})) == 1

    note = events.event(events.ROUND_STARTED, competition.pk, round={"number": 9})
    await layer.group_send(group, events.relay_message(note))
    for comm in (first, second):
        assert await receive_events(comm, 1) == [note]

    await first.disconnect()
    assert len(layer.groups.get(group, {})) == 1  # the second still watches
    await second.disconnect()
    assert not layer.groups.get(group)


async def test_a_recorded_result_reaches_the_socket_as_typed_events(organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    comm = await open_socket(competition.pk)
    await comm.receive_json_from(timeout=2)  # the snapshot
    # The start's own panels, if its notification reached the web tier after the
    # snapshot (a loaded machine): they are not this match's.
    while not await comm.receive_nothing(timeout=0.5):
        await comm.receive_json_from(timeout=2)

    match = await database_sync_to_async(play_one)(competition)

    # The recorder sent notifications; the web tier built the events from them: the
    # match at once, the panels (at most four times a second) after it.
    stream: list[dict] = []
    while (
        not stream
        or stream[-1]["type"] != "queue.status"
        or not any(e["type"] == "competition.finished" for e in stream)
    ):
        frame = await comm.receive_json_from(timeout=2)
        stream.extend(frame if isinstance(frame, list) else [frame])
    kinds = [e["type"] for e in stream]
    assert kinds.count("match.finished") == 1
    at = kinds.index("match.finished")
    # Before it, only the start's own panels can come (sent late on a loaded machine,
    # after the half second of quiet above); this match's panels all come after it.
    assert set(kinds[:at]) <= {"standings.updated", "queue.status", "problems.updated"}, kinds
    assert {"standings.updated", "round.finished", "competition.finished"} <= set(kinds[at:])
    assert set(kinds) == {
        "match.finished",
        "standings.updated",
        "round.finished",
        "competition.finished",
        "problems.updated",
        "head_to_head.updated",
        "crosstable.updated",
        "queue.status",
    }
    assert kinds.index("standings.updated") < kinds.index("round.finished")
    assert kinds.index("round.finished") < kinds.index("competition.finished")
    received = {message["type"]: message for message in stream}  # the newest of each type
    finished = received["match.finished"]
    assert finished["competition"] == competition.pk
    assert finished["match"]["id"] == match.pk and finished["match"]["status"] == "done"
    ranks = {s["entry"]: s["rank"] for s in finished["match"]["seats"]}
    assert sorted(ranks.values())[0] == 1 and len(ranks) == 3
    assert len(finished["match"]["games"]) == 3
    standings = received["standings.updated"]["standings"]
    assert [row["games"] for row in standings] == [3, 3, 3]
    assert received["standings.updated"]["progress"]["done"] == 1
    # Three bots, one table: the only match closes the round and the tournament.
    assert received["round.finished"]["round"]["number"] == 1
    assert received["competition.finished"]["status"] == "finished"
    assert received["problems.updated"]["problems"] == []  # random bots play legal moves
    # One table of three: each pair met once, and one of the two finished ahead or level.
    pairs = received["head_to_head.updated"]["head_to_head"]
    assert pairs["more"] == 0 and len(pairs["rows"]) == 3
    for row in pairs["rows"]:
        assert row["matches"] == 1 and row["ahead"] + row["level"] + row["behind"] == 1
        beaten = ranks[row["entry"]] < ranks[row["opponent"]]
        assert row["ahead"] == int(beaten)
    # The round robin's crosstable, on the head-to-head's lane: in standings order, each
    # row's cell against each other entry its pairwise point from the one table.
    table = received["crosstable.updated"]["crosstable"]
    assert [e["entry"] for e in table["entries"]] == [row["entry"] for row in standings]
    for row in table["rows"]:
        for cell in row["cells"]:
            if cell["opponent"] != row["entry"]:
                mine, theirs = ranks[row["entry"]], ranks[cell["opponent"]]
                assert cell["score"] == (1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
    assert "crosstable" not in received["standings.updated"]  # not with every standings
    assert received["queue.status"]["queue"]["done"] == 1
    await comm.disconnect()


async def test_bursts_of_standings_are_coalesced_to_the_newest(organiser):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    layer = get_channel_layer()
    comm = await open_socket(competition.pk)
    await comm.receive_json_from(timeout=2)  # the snapshot

    for n in range(6):
        note = events.event(events.STANDINGS_UPDATED, competition.pk, standings=[], progress=n)
        await layer.group_send(f"competition.{competition.pk}", events.relay_message(note))

    first, second = await receive_events(comm, 2)
    assert (first["progress"], second["progress"]) == (0, 5)
    assert await comm.receive_nothing(timeout=0.4)
    await comm.disconnect()


async def test_the_snapshot_has_trends_rounds_chart_and_queue(organiser):
    competition = await database_sync_to_async(make_competition)(organiser, entries=8, start=True)
    match = await database_sync_to_async(play_one)(competition)

    comm = await open_socket(competition.pk)
    snapshot = await comm.receive_json_from(timeout=2)

    rated = {s["entry"] for s in snapshot["matches"]["recent"][0]["seats"]}
    trends = {row["entry"]: row["trend"] for row in snapshot["standings"]}
    assert all(trends[entry] is not None for entry in rated)
    assert all(trends[entry] is None for entry in set(trends) - rated)
    assert snapshot["format"] == "round-robin"
    assert snapshot["rounds"]["rounds"][0] == {
        "number": 1,
        "status": "running",
        "matches": 2,
        "done": 1,
    }
    assert match.pk in [t["id"] for t in snapshot["rounds"]["current"]["tables"]]
    assert {s["entry"] for s in snapshot["chart"]["series"]} == rated
    assert all(len(s["points"]) == 2 for s in snapshot["chart"]["series"])
    assert len(snapshot["chart"]["colours"]) == snapshot["chart"]["top"] == 10
    queue = snapshot["queue"]
    assert (queue["done"], queue["pending"], queue["running"], queue["workers"]) == (1, 1, 0, [])
    assert "backlog" in queue and queue["at"]
    await comm.disconnect()


async def test_a_claim_reaches_the_socket_with_the_queue_status(organiser):
    from tournaments.worker import execution

    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    comm = await open_socket(competition.pk)
    await comm.receive_json_from(timeout=2)  # the snapshot
    match = await database_sync_to_async(competition.matches.get)()

    await database_sync_to_async(execution.match_claim)(
        match_id=match.pk, claimed_by="host-b/77/task"
    )

    # the matches lane and the panels are built on threads of their own: either first
    received = {event["type"]: event for event in await receive_events(comm, 2)}
    started, status = received["match.started"], received["queue.status"]
    assert started["match"]["status"] == "running"
    # an anonymous socket: the worker's label, not its host and pid
    assert status["queue"]["workers"][0]["worker"] == events.worker_label("host-b/77")
    assert status["queue"]["workers"][0]["match"] == match.pk
    await comm.disconnect()
