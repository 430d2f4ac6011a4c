"""Hostile bot: on ``act`` writes a file in its scratch ``/tmp`` a MiB at a time, without
end, and does not catch the error: Python ignores ``SIGXFSZ``, so the file size limit
reaches it as ``OSError: [Errno 27] File too large``."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "big-file"}), flush=True)
    elif message["type"] == "act":
        with open("/tmp/big", "wb") as handle:
            while True:
                handle.write(b"x" * 1024 * 1024)
                handle.flush()
