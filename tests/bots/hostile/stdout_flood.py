"""Hostile bot: on ``act`` writes endless bytes to stdout without ever ending the line."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "stdout-flood"}), flush=True)
    elif message["type"] == "act":
        block = b"A" * 65536
        while True:
            sys.stdout.buffer.write(block)
