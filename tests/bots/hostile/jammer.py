"""Stops reading its input half-way through a message, so the referee's write blocks.

It shrinks its stdin pipe to one page at ``hello``. From its third ``act`` on it only
takes messages it has seen whole (peeking with ``tee(2)``): the first message longer
than the page then stays half-written in the pipe for good, and every later write to
the bot (an ``act``, a ``result``, the ``bye``) would block."""

import ctypes
import fcntl
import json
import os
import select
import time

F_SETPIPE_SZ = 1031
libc = ctypes.CDLL(None, use_errno=True)


def out(message):
    os.write(1, (json.dumps(message) + "\n").encode())


def peek() -> bytes:
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, F_SETPIPE_SZ, 1 << 16)
    copied = libc.tee(0, write_end, 1 << 16, 2)
    data = os.read(read_end, 1 << 16) if copied > 0 else b""
    os.close(read_end)
    os.close(write_end)
    return data


acts, buffer, jamming = 0, b"", False
while True:
    if jamming:
        select.select([0], [], [], None)
        data = peek()
        end = data.find(b"\n")
        if end < 0:
            time.sleep(0.01)  # an incomplete message: left in the pipe
            continue
        line = os.read(0, end + 1)[:-1]
    else:
        end = buffer.find(b"\n")
        if end < 0:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            buffer += chunk
            continue
        line, buffer = buffer[:end], buffer[end + 1 :]
    message = json.loads(line)
    if message["type"] == "hello":
        fcntl.fcntl(0, F_SETPIPE_SZ, 4096)
        out({"ready": True})
    elif message["type"] == "act":
        acts += 1
        out({"action": message["legal"][0]})
        if acts == 3 and not buffer:
            jamming = True
    elif message["type"] == "bye":
        break
