"""Plays legally and writes a NUL byte to its log, which no text column can store."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stderr.write("before\0after\n")
        sys.stderr.flush()
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
