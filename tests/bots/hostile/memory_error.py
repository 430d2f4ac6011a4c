"""Hostile bot: on ``act`` allocates (and touches) memory until it is refused, and does
not catch the ``MemoryError``: it dies of its address-space limit, with the traceback
on stderr."""

import json
import sys

CHUNK_MB = 16

held = []
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "memory-error"}), flush=True)
    elif message["type"] == "act":
        while True:
            held.append(bytearray(CHUNK_MB * 1024 * 1024))
