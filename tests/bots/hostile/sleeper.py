"""Hostile bot: greets, then never answers an ``act`` (sleeps forever)."""

import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "sleeper"}), flush=True)
    elif message["type"] == "act":
        while True:
            time.sleep(3600)
