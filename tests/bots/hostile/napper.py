"""A bot that blocks instead of computing: its first ``NAPS`` acts sleep 600 ms each."""

import json
import sys
import time

NAPS = 6
acts = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "napper"}), flush=True)
    elif message["type"] == "act":
        acts += 1
        if acts <= NAPS:
            time.sleep(0.6)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
