"""Hostile bot: answers every ``act`` with a label that is never legal."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "illegal"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": "play the joker"}), flush=True)
    elif message["type"] == "bye":
        break
