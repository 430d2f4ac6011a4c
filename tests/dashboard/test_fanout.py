"""The live stream's fan-out: one subscription, batched frames, shared snapshots, slow sockets."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

import pytest

from tournaments.live.events import Changes, event, notification, relay_batch, relay_message
from tournaments.sockets.fanout import CLOSE_TOO_SLOW, MAX_BACKLOG, Fanout, Outbox, join_frames

pytestmark = pytest.mark.asyncio


class Socket:
    """A fake socket whose writes can be held back."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.closed_with: int | None = None
        self.gate = asyncio.Event()
        self.gate.set()

    async def send(self, text: str) -> None:
        await self.gate.wait()
        self.frames.append(text)

    async def close(self, code: int) -> None:
        self.closed_with = code

    def events(self) -> list[int]:
        out = []
        for frame in self.frames:
            value = json.loads(frame)
            out.extend(value if isinstance(value, list) else [value])
        return out


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_nothing_is_written_before_the_outbox_opens():
    socket = Socket()
    outbox = Outbox(socket.send, socket.close)
    outbox.push("1")
    outbox.push("2")
    await settle()
    assert socket.frames == []

    outbox.open()
    await settle()
    assert socket.events() == [1, 2]


async def test_one_event_is_one_frame_and_a_backlog_is_one_array_in_order():
    socket = Socket()
    outbox = Outbox(socket.send, socket.close)
    outbox.open()
    outbox.push("1")
    await settle()
    assert socket.frames == ["1"]

    socket.gate.clear()  # the next write hangs: events pile up behind it
    outbox.push("2")
    await settle()
    for n in (3, 4, 5):
        outbox.push(str(n))
    socket.gate.set()
    await settle()
    assert socket.frames == ["1", "2", "[3,4,5]"]


async def test_a_socket_that_falls_too_far_behind_is_closed_to_reconnect():
    socket = Socket()
    outbox = Outbox(socket.send, socket.close)
    outbox.open()
    outbox.push('"first"')
    await settle()
    socket.gate.clear()  # the socket stops reading
    for n in range(MAX_BACKLOG + 2):
        outbox.push(str(n))
    await settle()
    assert socket.closed_with == CLOSE_TOO_SLOW
    outbox.push("late")  # ignored once closed
    socket.gate.set()
    await settle()
    assert socket.frames == ['"first"']  # nothing of the backlog is written


async def test_frames_join_into_one_array_of_their_events_in_order():
    assert join_frames(['{"a":1}', '[{"b":2},{"c":3}]', '{"d":4}']) == (
        '[{"a":1},{"b":2},{"c":3},{"d":4}]'
    )


class Layer:
    """The channel-layer calls a fan-out makes, in memory."""

    def __init__(self) -> None:
        self.groups: dict[str, set[str]] = {}
        self.queues: dict[str, asyncio.Queue] = {}

    async def new_channel(self, prefix: str = "") -> str:
        name = f"{prefix}{len(self.queues)}"
        self.queues[name] = asyncio.Queue()
        return name

    async def group_add(self, group: str, channel: str) -> None:
        self.groups.setdefault(group, set()).add(channel)

    async def group_discard(self, group: str, channel: str) -> None:
        self.groups.get(group, set()).discard(channel)

    async def receive(self, channel: str) -> dict:
        return await self.queues[channel].get()

    def send_to_group(self, group: str, event: dict) -> None:
        for channel in self.groups.get(group, ()):
            self.queues[channel].put_nowait(relay_message(event))


async def test_the_events_of_one_moment_reach_every_socket_as_one_frame():
    layer = Layer()
    fanout = Fanout(layer, 7)
    sockets = [Socket() for _ in range(3)]
    outboxes = [Outbox(s.send, s.close) for s in sockets]
    for outbox in outboxes:
        await fanout.join(outbox)
        outbox.open()
    assert len(layer.groups["competition.7"]) == 1  # one subscription for all

    for n in range(3):
        layer.send_to_group("competition.7", event("match.finished", 7, match={"id": n}))
    await asyncio.sleep(fanout.batch_window_s * 4)

    for socket in sockets:
        assert len(socket.frames) == 1
        assert [e["match"]["id"] for e in socket.events()] == [0, 1, 2]
    for outbox in outboxes:
        await fanout.leave(outbox)
    assert layer.groups["competition.7"] == set()


async def test_sockets_joining_together_share_one_snapshot_reading():
    fanout = Fanout(Layer(), 7)
    readings: list[int] = []
    gate = asyncio.Event()

    async def read(begin) -> str:
        await gate.wait()  # queued behind other readings, as in the database thread
        begin()
        readings.append(1)
        return f'{{"n":{len(readings)}}}'

    first = [asyncio.ensure_future(fanout.snapshot(False, time.monotonic(), read))]
    await asyncio.sleep(0)
    # Sockets that join while the reading waits to start share it.
    first += [
        asyncio.ensure_future(fanout.snapshot(False, time.monotonic(), read)) for _ in range(49)
    ]
    gate.set()
    assert set(await asyncio.gather(*first)) == {'{"n":1}'} and readings == [1]

    # A socket subscribed after that reading started needs a reading of its own.
    later = time.monotonic() + 1e-6
    while time.monotonic() < later:
        await asyncio.sleep(0)
    assert await fanout.snapshot(False, later, read) == '{"n":2}'
    # Organisers' and spectators' snapshots differ: never shared across keys.
    assert await fanout.snapshot(True, 0.0, read) == '{"n":3}'


@pytest.mark.serial
async def test_notifications_are_built_into_events_at_most_once_per_window():
    """A burst of results costs the panels one build at once and one per window after,
    the head-to-head one at once and the next after its own, longer, window; the matches
    lane sends every result."""
    builds: list[list[int]] = []
    tables: list[list[int]] = []

    async def build(competition_id: int, changes: Changes, lane: str) -> list[dict]:
        if lane == "matches":
            return [
                event("match.finished", competition_id, match={"id": m}) for m in changes.finished
            ]
        if lane == "head_to_head":
            tables.append(list(changes.finished))
            table = {"rows": [], "more": 0}
            return [event("head_to_head.updated", competition_id, head_to_head=table)]
        builds.append(list(changes.finished))
        return [event("standings.updated", competition_id, standings=[], progress={})]

    layer = Layer()
    fanout = Fanout(layer, 7, build=build)
    fanout.panels_interval_s = 0.2
    socket = Socket()
    outbox = Outbox(socket.send, socket.close)
    await fanout.join(outbox)
    outbox.open()

    for n in range(30):  # 30 results within a few milliseconds
        layer.send_to_group("competition.7", notification(7, ["match.finished"], match_id=n))
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.05)
    assert builds == [[0]]  # the first at once, the rest wait for the window
    await asyncio.sleep(0.25)

    assert builds == [[0], list(range(1, 30))]
    assert tables == [[0]]  # the rest wait for the head-to-head window (5 s)
    received = socket.events()
    finished = [e["match"]["id"] for e in received if e["type"] == "match.finished"]
    assert finished == list(range(30))
    assert [e["type"] for e in received].count("standings.updated") == 2
    assert {e["type"] for e in received} == {
        "match.finished",
        "standings.updated",
        "head_to_head.updated",
    }
    await fanout.leave(outbox)


async def test_a_batch_of_notifications_is_built_like_the_notifications_one_by_one():
    """A worker's sender folds the notifications of a tick into one message: every
    result in it reaches the matches lane, in order, and the panels are built once."""
    builds: list[list[int]] = []

    async def build(competition_id: int, changes: Changes, lane: str) -> list[dict]:
        if lane == "matches":
            return [
                event("match.finished", competition_id, match={"id": m}) for m in changes.finished
            ]
        builds.append(list(changes.finished))
        return []

    layer = Layer()
    fanout = Fanout(layer, 7, build=build)
    socket = Socket()
    outbox = Outbox(socket.send, socket.close)
    await fanout.join(outbox)
    outbox.open()

    batch = relay_batch(
        [relay_message(notification(7, ["match.finished"], match_id=n)) for n in range(12)]
    )
    for channel in layer.groups["competition.7"]:
        layer.queues[channel].put_nowait(batch)
    await asyncio.sleep(0.1)

    assert builds[0] == list(range(12))
    finished = [e["match"]["id"] for e in socket.events() if e["type"] == "match.finished"]
    assert finished == list(range(12))
    await fanout.leave(outbox)


async def test_a_failed_build_is_logged_and_the_next_notification_builds_again(caplog):
    calls: list[int] = []

    async def build(competition_id: int, changes: Changes, lane: str) -> list[dict]:
        assert lane == "panels"  # no match changed
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database away")
        return [event("queue.status", competition_id, queue={"workers": []})]

    fanout = Fanout(Layer(), 7, build=build)
    fanout.panels_interval_s = 0.01
    socket = Socket()
    outbox = Outbox(socket.send, socket.close)
    fanout.outboxes.add(outbox)
    outbox.open()
    text = json.dumps(notification(7, ["queue.changed"]))

    fanout.publish("competition.changed", text)
    await asyncio.sleep(0.05)
    fanout.publish("competition.changed", text)
    await asyncio.sleep(0.05)

    assert len(calls) == 2 and "build failed" in caplog.text
    assert [e["type"] for e in socket.events()] == ["queue.status"]


async def test_a_slow_panels_build_spaces_the_next_and_never_holds_back_a_result():
    """Under load a panels build takes longer: four times as long as it took passes
    before the next (not the 10 ms window), while every result goes out as soon as it
    is built."""
    panels: list[float] = []
    sent: dict[int, float] = {}

    async def build(competition_id: int, changes: Changes, lane: str) -> list[dict]:
        if lane == "matches":
            return [
                event("match.finished", competition_id, match={"id": m}) for m in changes.finished
            ]
        if lane == "panels":
            panels.append(time.monotonic())
            await asyncio.sleep(0.1)  # a table read by a busy server
        return []

    async def send(text: str) -> None:
        for e in json.loads(text) if text.startswith("[") else [json.loads(text)]:
            if e["type"] == "match.finished":
                sent[e["match"]["id"]] = time.monotonic()

    layer = Layer()
    fanout = Fanout(layer, 7, build=build)
    fanout.panels_interval_s = 0.01
    outbox = Outbox(send, Socket().close)
    await fanout.join(outbox)
    outbox.open()

    published: dict[int, float] = {}
    for n in range(8):  # a result every 0.1 s for 0.8 s
        published[n] = time.monotonic()
        layer.send_to_group("competition.7", notification(7, ["match.finished"], match_id=n))
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)

    gaps = [b - a for a, b in itertools.pairwise(panels)]
    assert len(panels) == 3 and min(gaps) >= 0.1 + 0.4 - 0.01  # the build, then 4 times it
    assert sorted(sent) == list(range(8))
    assert max(sent[n] - published[n] for n in sent) < 0.1  # not after a 0.1 s build
    await fanout.leave(outbox)


@pytest.mark.django_db
async def test_the_matches_lane_is_built_beside_a_panels_build_not_after_it(monkeypatch):
    """The real builder: a result's events are read on a thread of their own, so a panels
    build in progress on Channels' database thread does not hold them back."""
    from tournaments.sockets import fanout as module

    def live_events(*, competition_id, changes, matches, panels, head_to_head):
        if panels:
            time.sleep(0.5)
        return [{"type": "panels" if panels else "matches"}]

    monkeypatch.setattr(module, "live_events", live_events)
    changes = Changes()
    started = time.monotonic()
    done: dict[str, float] = {}

    async def timed(lane: str) -> None:
        (built,) = await module.build_live_events(7, changes, lane)
        done[built["type"]] = time.monotonic() - started

    slow = asyncio.create_task(timed("panels"))
    await asyncio.sleep(0.05)  # the panels build holds the database thread
    await timed("matches")
    await slow

    assert done["matches"] < 0.4 and done["panels"] >= 0.5  # not after the panels build
