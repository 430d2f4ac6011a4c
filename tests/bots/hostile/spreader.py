"""Hostile bot: on ``act`` spreads out (a child, a double-forked daemon in its own
session, and threads), then answers; everything it started keeps running.
"""

import json
import os
import sys
import threading
import time


def sleep_forever():
    while True:
        time.sleep(3600)


def spread():
    if os.fork() == 0:  # a plain child
        sleep_forever()
    if os.fork() == 0:  # a daemon: new session, double fork, parent gone
        os.setsid()
        if os.fork() == 0:
            sleep_forever()
        os._exit(0)
    for _ in range(3):
        threading.Thread(target=sleep_forever, daemon=True).start()


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "spreader"}), flush=True)
    elif message["type"] == "act":
        spread()
        time.sleep(0.2)  # let the daemon's parent exit
        print(json.dumps({"action": message["legal"][0], "report": {}}), flush=True)
