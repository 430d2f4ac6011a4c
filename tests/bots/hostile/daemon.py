"""Hostile bot: on ``act`` leaves processes behind, then answers normally.

It starts a double-forked daemon in its own session and a child whose parent
is killed (an orphan); both run ``sleep`` with the hello option ``marker`` in
their command line so the test can find them on the host.
"""

import json
import os
import sys
import time


def sleeper(marker):
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", marker])


def daemonize(marker):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            sleeper(marker)
        os._exit(0)


def orphan(marker):
    if os.fork() == 0:  # middle process: forks the sleeper, then is killed by it
        middle = os.getpid()
        if os.fork() == 0:
            os.kill(middle, 9)
            sleeper(marker)
        time.sleep(3600)


started = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        marker = message.get("options", {}).get("marker", "cardroom-hostile-daemon")
        print(json.dumps({"ready": True, "name": "daemon"}), flush=True)
    elif message["type"] == "act":
        if not started:  # once per process
            started = True
            daemonize(marker)
            orphan(marker)
            time.sleep(0.5)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
