"""Logs, for each path, whether it could read it (``read``) or why not; the paths
prefixed ``child`` are tried by a child process."""

import json
import os
import sys

PATHS = [
    "/proc/self/status", "/proc/self/maps", "/proc/meminfo", "/proc/stat",
    "/proc/self/pagemap", "/proc/self/smaps", "/proc/self/smaps_rollup",
    "/proc/self/numa_maps", "/proc/self/cgroup", "/proc/cgroups", "/proc/net/sockstat",
    "/proc/self/mountinfo",
]  # fmt: skip


def attempt(path: str) -> str:
    try:
        with open(path, "rb") as file:
            file.read(8)
        return "read"
    except OSError as error:
        return error.strerror


for path in PATHS:
    sys.stderr.write(f"{path}: {attempt(path)}\n")
sys.stderr.flush()
if os.fork() == 0:
    for path in ("/proc/self/pagemap", "/proc/self/status"):
        sys.stderr.write(f"child {path}: {attempt(path)}\n")
    sys.stderr.flush()
    os._exit(0)
os.wait()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
