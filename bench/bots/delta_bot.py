"""The benchmark's bot with the ``history_delta`` extension (PROTOCOL.md): pipe_bot.py's choices.

It accepts the extension when offered, puts the full history back together
at every ``act`` as a real bot must, and parses every message fully.
"""

import json
import random
import sys


def main() -> None:
    rnd = random.Random(0)
    out = sys.stdout
    history: list = []
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "act":
            observation = message["observation"]
            if "history_from" in message:
                history = history[: message["history_from"]] + observation["history"]
                observation["history"] = history
            legal = message["legal"]
            out.write('{"action":' + json.dumps(legal[rnd.randrange(len(legal))]) + "}\n")
            out.flush()
        elif kind == "hello":
            rnd.seed(10 + message["seat"])  # as pipe_bot.py
            accept = message.get("extensions", {}).get("history_delta") == 1
            extensions = ',"extensions":{"history_delta":1}' if accept else ""
            out.write('{"ready":true,"name":"delta-bot"' + extensions + "}\n")
            out.flush()
        elif kind == "result":
            history = []
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()
