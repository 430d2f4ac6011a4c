"""The benchmark's bot: a seeded random legal action, standard library only.

It parses every message fully (as a real bot must), so the benchmark pays the
real JSON cost on both sides of the pipe.
"""

import json
import random
import sys


def main() -> None:
    rnd = random.Random(0)
    out = sys.stdout
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "act":
            legal = message["legal"]
            out.write('{"action":' + json.dumps(legal[rnd.randrange(len(legal))]) + "}\n")
            out.flush()
        elif kind == "hello":
            rnd.seed(10 + message["seat"])  # the choices of earlier runs (seed 1), no seed sent
            out.write('{"ready":true,"name":"pipe-bot"}\n')
            out.flush()
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()
