"""Hostile bot: on ``act`` forks children that each allocate and touch 40 MiB, each far
below its address-space limit, all of them together far above the bot's memory; then
waits for them. Only the bot's cgroup can stop it."""

import json
import os
import sys
import time

CHILDREN, CHILD_MB = 8, 40


def fill():
    for _ in range(CHILDREN):
        if os.fork() == 0:
            data = bytearray(CHILD_MB * 1024 * 1024)
            for i in range(0, len(data), 4096):
                data[i] = 1
            time.sleep(3600)
            os._exit(0)
    time.sleep(3600)


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "memory-children"}), flush=True)
    elif message["type"] == "act":
        fill()
