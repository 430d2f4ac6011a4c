"""Hostile bot: thinks 85 % of its move limit at every decision (CPU time, spinning),
then plays the first legal label. Always within its clock, always close to it."""

import json
import sys
import time

SHARE = 0.85

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "close-call"}), flush=True)
    elif message["type"] == "act":
        until = time.process_time() + SHARE * message["move_limit_ms"] / 1000
        while time.process_time() < until:
            pass
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
