"""Print what the sandbox enforces on this host and what it costs.

python -m bots.sandbox [--rounds N] [--spawns N]

Costs: the round trip of a 1 KB line through the sandbox and through a plain
subprocess; starting and killing a sandboxed bot with and without its
cgroup; and the per-decision cgroup calls the referee makes (reading the
CPU time, the OOM count, setting the CPU weight).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
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


def spawn_kill_ms(program: Path, spawns: int, *, cgroup: bool) -> float:
    """Median milliseconds to start a sandboxed echo bot, get one line back, and kill it."""
    command, bot_dir = resolve(program)
    samples = []
    for _ in range(spawns):
        start = time.perf_counter()
        bot = spawn(command, bot_dir=bot_dir, cgroup=cgroup)
        bot.send(b"x\n")
        bot.readline(timeout_s=10)
        bot.kill()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def call_us(call: Callable[[], object], rounds: int = 20_000) -> float:
    """Mean microseconds of one ``call()``."""
    start = time.perf_counter()
    for _ in range(rounds):
        call()
    return (time.perf_counter() - start) / rounds * 1e6


def cgroup_costs(program: Path, spawns: int) -> None:
    with_group = spawn_kill_ms(program, spawns, cgroup=True)
    without = spawn_kill_ms(program, spawns, cgroup=False)
    print(
        f"spawn + 1 line + kill, median of {spawns}: with its cgroup {with_group:.1f} ms, "
        f"without {without:.1f} ms"
    )
    command, bot_dir = resolve(program)
    with spawn(command, bot_dir=bot_dir) as bot:
        costs = {
            "cpu_time_ns()": call_us(bot.cpu_time_ns),
            "run_delays_ns()": call_us(bot.run_delays_ns),
            "oom_kills()": call_us(bot.oom_kills),
            "set_deciding()": call_us(lambda: bot.set_deciding(True)),
        }
    print("per call: " + ", ".join(f"{name} {us:.1f} us" for name, us in costs.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.sandbox", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5000, help="round trips to time")
    parser.add_argument("--spawns", type=int, default=20, help="bots to start and kill")
    args = parser.parse_args(argv)
    report = describe()
    print(json.dumps(report, indent=2))
    print(f"the engine bots get: {report['engine']}")
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
        if available() and report["cgroup"]["version"]:
            cgroup_costs(program, args.spawns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
