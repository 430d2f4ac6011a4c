"""Hostile bot: answers ``hello`` with garbage, then ``act`` with half a line and exits."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stdout.buffer.write(b"\xff\xfe not json at all {{{\n")
        sys.stdout.flush()
    elif message["type"] == "act":
        sys.stdout.write('{"action": "pa')
        sys.stdout.flush()
        sys.exit(3)
