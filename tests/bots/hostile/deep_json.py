"""A sore loser: its fifth answer is 40,000 nested ``[`` (under the line cap), which
no JSON reader of the referee's recursion depth can parse."""

import json
import sys

acts = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        acts += 1
        if acts == 5:
            sys.stdout.write("[" * 40_000 + "\n")
            sys.stdout.flush()
        else:
            print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
