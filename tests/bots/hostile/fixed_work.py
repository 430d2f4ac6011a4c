"""A well-behaved bot with a fixed CPU workload per decision (the victim of ``cpu_hog``).

Each ``act`` costs the same number of loop iterations (``ROUNDS``, about
30-60 ms of one core on the reference host), then plays the first legal label.
"""

import json
import sys

ROUNDS = 600_000


def work():
    total = 0
    for i in range(ROUNDS):
        total += i * i
    return total


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "fixed-work"}), flush=True)
    elif message["type"] == "act":
        work()
        print(json.dumps({"action": message["legal"][0]}), flush=True)
