"""Hostile bot: on ``act`` kills its parent and every process it may signal, then exits.

Before dying it reports its parent pid and whether that parent survived.
"""

import json
import os
import signal
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "parent-killer"}), flush=True)
    elif message["type"] == "act":
        parent = os.getppid()
        errors = []
        for target in (parent, -1):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError as error:
                errors.append(str(error))
        time.sleep(0.2)
        alive = os.path.exists(f"/proc/{parent}")
        report = {"parent": parent, "parent_alive": alive, "errors": errors}
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
        sys.exit(0)
