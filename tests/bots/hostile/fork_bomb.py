"""Hostile bot: on ``act`` forks until the system refuses, and reports how far it got.

Every child sleeps (so they all stay alive); the parent answers with
``{"action": ..., "report": {"forked": n, "error": "..."}}``.
"""

import json
import os
import sys
import time


def bomb(ceiling=5000):
    forked = 0
    while forked < ceiling:
        try:
            pid = os.fork()
        except OSError as error:
            return {"forked": forked, "error": error.__class__.__name__ + ": " + str(error)}
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        forked += 1
    return {"forked": forked, "error": None}


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "fork-bomb"}), flush=True)
    elif message["type"] == "act":
        report = bomb()
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
