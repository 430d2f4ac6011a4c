"""Hostile bot: on ``act`` tries to write everywhere, and reports where it could.

Targets: fixed system places, its own code, and host paths from the hello
``options`` (``paths``); then its scratch ``/tmp`` (allowed) and a file larger
than the scratch space (must be cut short).
"""

import json
import os
import sys

FIXED = [
    "/x",
    "/bot/x",
    "/bot/writer.py",
    "/usr/x",
    "/etc/x",
    "/etc/passwd",
    "/dev/x",
    "/dev/shm/x",
    "/proc/x",
    "/opt/cardroom/bots/x",
    "/opt/cardroom/bots/sdk/__init__.py",
    "/opt/cardroom/games/x",
    "/opt/cardroom/games/__init__.py",
]


def write(path, size=16):
    try:
        with open(path, "ab") as handle:
            handle.write(b"x" * size)
        return "written"
    except OSError as error:
        return "failed: " + error.__class__.__name__


def write_big(path, megabytes):
    written = 0
    try:
        with open(path, "wb") as handle:
            for _ in range(megabytes):
                handle.write(b"x" * 1024 * 1024)
                handle.flush()
                written += 1
    except OSError as error:
        return {"written_mb": written, "error": error.__class__.__name__ + ": " + str(error)}
    return {"written_mb": written, "error": None}


options = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        options = message.get("options", {})
        print(json.dumps({"ready": True, "name": "writer"}), flush=True)
    elif message["type"] == "act":
        report = {path: write(path) for path in FIXED + options.get("paths", [])}
        report["/tmp/ok"] = write("/tmp/ok")
        report["home"] = write(os.path.join(os.environ.get("HOME", "/nonexistent"), "home-ok"))
        report["big"] = write_big("/tmp/big", options.get("big_mb", 256))
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
