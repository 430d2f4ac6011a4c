"""The per-socket outbox of the live stream: order, batching, slow sockets."""

from __future__ import annotations

import asyncio
import json

import pytest

from tournaments.fanout import CLOSE_TOO_SLOW, MAX_BACKLOG, Outbox

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
