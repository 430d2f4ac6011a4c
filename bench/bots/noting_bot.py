"""pipe_bot.py's choices, and at every decision a line of stderr and a note (PROTOCOL.md).

What a bot that explains itself costs the platform's decision traces.
"""

import json
import random
import sys


def main() -> None:
    rnd = random.Random(0)
    out, err = sys.stdout, sys.stderr
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "act":
            legal = message["legal"]
            action = legal[rnd.randrange(len(legal))]
            decisions += 1
            err.write(f"decision {decisions}: {len(legal)} legal, chose {action}\n")
            err.flush()
            note = f"random among {len(legal)}"
            out.write(json.dumps({"action": action, "note": note}) + "\n")
            out.flush()
        elif kind == "hello":
            rnd.seed(10 + message["seat"])
            out.write('{"ready":true,"name":"noting-bot"}\n')
            out.flush()
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()
