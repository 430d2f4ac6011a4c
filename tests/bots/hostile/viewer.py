"""Hostile bot: on ``act`` reports what it sees at the paths the hello ``options`` name.

For each path: ``"missing"``, ``"denied: <error>"``, ``"dir: a,b,c"`` (sorted
names) or ``"read: <whole text>"`` (up to 32 KB), so that a test can read its
whole ``/proc/self/mountinfo`` or check a synthetic ``/proc`` file.
"""

import json
import os
import sys


def look(path):
    try:
        if os.path.isdir(path):
            return "dir: " + ",".join(sorted(os.listdir(path)))
        with open(path, "rb") as handle:
            return "read: " + handle.read(32 * 1024).decode("utf-8", "replace")
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        return "denied: " + error.__class__.__name__


paths = []
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        paths = message.get("options", {}).get("paths", [])
        print(json.dumps({"ready": True, "name": "viewer"}), flush=True)
    elif message["type"] == "act":
        report = {path: look(path) for path in paths}
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
