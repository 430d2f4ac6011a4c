"""Print what the sandbox enforces on this host and how fast a bot answers through it.

python -m bots.sandbox [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from . import BotProcess, available, describe, resolve, spawn

ECHO_PROGRAM = """import sys
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
"""


def round_trip_us(bot: BotProcess, line: bytes, rounds: int) -> float:
    """Median microseconds to send ``line`` and read it back."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        bot.send(line)
        bot.readline(timeout_s=5)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.sandbox", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5000, help="round trips to time")
    args = parser.parse_args(argv)
    print(json.dumps(describe(), indent=2))
    line = b"x" * 1023 + b"\n"
    with tempfile.TemporaryDirectory() as directory:
        program = Path(directory) / "echo.py"
        program.write_text(ECHO_PROGRAM)
        modes = [True, False] if available() else [False]
        for sandboxed in modes:
            command, bot_dir = resolve(program)
            with spawn(command, bot_dir=bot_dir, sandboxed=sandboxed) as bot:
                round_trip_us(bot, line, 200)
                figure = round_trip_us(bot, line, args.rounds)
            label = "sandboxed (bwrap)" if sandboxed else "plain subprocess"
            print(f"1 KB line round trip, python3 echo bot, {label}: {figure:.1f} us (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
