"""Hostile bot: answers each ``act`` twice in one write (the second line is out of turn)."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "chatty"}), flush=True)
    elif message["type"] == "act":
        answer = json.dumps({"action": message["legal"][0]})
        sys.stdout.write(answer + "\n" + answer + "\n")
        sys.stdout.flush()
    elif message["type"] == "bye":
        break
