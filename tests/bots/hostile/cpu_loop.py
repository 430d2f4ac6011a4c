"""Hostile bot: greets, then spins the CPU forever on ``act``."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "cpu-loop"}), flush=True)
    elif message["type"] == "act":
        n = 0
        while True:
            n += 1
