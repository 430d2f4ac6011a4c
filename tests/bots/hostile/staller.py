"""Waits just under every move's wall-clock ceiling (once charged only ``(wall - grace) / 4``,
which stayed under ``move_ms``: its bank never ran down while the match dragged on)."""

import json
import sys
import time

nap = 0.0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        move_s = message["time_control"]["move_ms"] / 1000
        nap = 4 * move_s + 1.0 - 0.15
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        time.sleep(nap)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
