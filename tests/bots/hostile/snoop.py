"""Hostile bot: on ``act`` tries to read what it must not see, and reports what it found.

Paths come from the hello ``options`` (``paths``) plus fixed ones; for each the
report says ``"missing"``, ``"denied"`` or the first bytes read. It also
reports its environment and uid.
"""

import json
import os
import sys

FIXED = [
    "/etc/passwd",
    "/etc/shadow",
    "/root",
    "/home",
    "/work",
    "/work/main/pyproject.toml",
    "/var/lib/postgresql",
    "/proc/1/environ",
]


def look(path):
    try:
        if os.path.isdir(path):
            return "dir: " + ",".join(sorted(os.listdir(path))[:20])
        with open(path, "rb") as handle:
            return "read: " + handle.read(200).decode("utf-8", "replace")
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        return "denied: " + error.__class__.__name__


options = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        options = message.get("options", {})
        print(json.dumps({"ready": True, "name": "snoop"}), flush=True)
    elif message["type"] == "act":
        report = {path: look(path) for path in FIXED + options.get("paths", [])}
        report["environ"] = dict(os.environ)
        report["uid"] = [os.getuid(), os.getgid(), os.getgroups()]
        report["pids"] = sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
