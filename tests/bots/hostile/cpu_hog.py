"""Hostile bot: on ``hello`` starts 60 busy children, each in its own session, then answers at once.

The children spin for as long as the sandbox lives, to starve whatever else
runs on the machine (the other seats' bots above all).
"""

import json
import os
import sys

CHILDREN = 60


def spin_forever():
    os.setsid()
    n = 0
    while True:
        n += 1


def start_children():
    for _ in range(CHILDREN):
        if os.fork() == 0:
            spin_forever()


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        start_children()
        print(json.dumps({"ready": True, "name": "cpu-hog"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": message["legal"][0]}), flush=True)
