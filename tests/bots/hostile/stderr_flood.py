"""Hostile bot: on ``act`` writes 32 MB to stderr, then a marker, then answers normally."""

import json
import sys

flooded = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "stderr-flood"}), flush=True)
    elif message["type"] == "act" and not flooded:
        flooded = True
        block = b"log line that nobody will read\n" * 2048
        for _ in range(32 * 1024 * 1024 // len(block)):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.write(b"END-OF-FLOOD\n")
        sys.stderr.flush()
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": message["legal"][0]}), flush=True)
