"""Match benchmark: deals per second of one match, several ways, in the same run.

    python -m bench.match [--variant manni-basic] [--games 40] [--repeat 3] [--json]

- ``sandboxed``: the referee with three sandboxed Python bots (``bench/bots/pipe_bot.py``),
  every control on (namespaces, cgroup, seccomp filter, CPU-time charging);
- ``in-process``: the same match with the same bot logic called in-process;
- ``pipe floor``: no engine, no referee, no sandbox: the messages of that match
  replayed over plain pipes to three plain ``python3`` processes of the same
  bot, each write followed by reading the answer line (the floor).

Then what each control costs per match, measured in the same run by turning it
off: the seccomp filter, the cgroup (with it the CPU-time charging, which reads
the group's counter around every decision), and in a duplicate match of the same
length the fresh processes each seat rotation starts (``fresh_rotations``).

Target: sandboxed at >= 70 % of the pipe floor. Bot start-up is paid once per
match (once per rotation in duplicate mode): the figures include it, but not the
host probe a worker runs once (bwrap, the filter, the cgroup), done first. Each
sandboxed figure is the best of ``--repeat`` matches. The process pins itself
(and so its bots) to one core unless ``--no-pin``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import games
from bots import protocol, sandbox
from bots.referee import InProcessPlayer, Player, ProcessPlayer, TimeControl, play_match
from bots.sdk import Bot

BOT = Path(__file__).resolve().parent / "bots" / "pipe_bot.py"
RUNTIME = "/usr/bin/python3"


class SameBot(Bot):
    """pipe_bot.py's logic, in-process; keeps every message for the pipe floor."""

    name = "pipe-bot"

    def __init__(self, transcript: list[tuple[int, bytes]], player: int) -> None:
        self.transcript = transcript
        self.player = player
        self.rnd = random.Random(0)

    def start(self, hello: dict[str, Any]) -> None:
        self.rnd.seed(10 + hello["seat"])  # as pipe_bot.py
        self.transcript.append((self.player, protocol.encode(hello)))

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        return legal[self.rnd.randrange(len(legal))]


class Recording(InProcessPlayer):
    def act(self, message: dict[str, Any], timeout_s: float) -> str:
        self.bot.transcript.append((self.bot.player, protocol.encode(message)))
        return super().act(message, timeout_s)


def deals(result) -> int:
    return sum(len(g.record["decks"]) for g in result.games)


def run_match(variant: str, players: list[Player], games_count: int, seed: int, **kw):
    tc = TimeControl(move_ms=10_000, bank_ms=100_000)
    start = time.perf_counter()
    result = play_match(variant, players, games_count=games_count, seed=seed, time_control=tc, **kw)
    return result, time.perf_counter() - start


#: The sandboxed configurations timed, by name: spawn options and match keywords.
CONFIGURATIONS = {
    "sandboxed": ({}, {}),
    "no seccomp filter": ({"seccomp": False}, {}),
    "no cgroup": ({"cgroup": False}, {}),
    "duplicate, fresh rotations": ({}, {"duplicate": True}),
    "duplicate, kept processes": ({}, {"duplicate": True, "fresh_rotations": False}),
}


def sandboxed_seconds(
    variant: str, games_count: int, seed: int, repeat: int
) -> tuple[dict[str, float], set[str]]:
    """Best-of-``repeat`` seconds of the match per configuration, and the statuses seen."""
    n = games.load(variant).num_players
    best = dict.fromkeys(CONFIGURATIONS, float("inf"))
    statuses: set[str] = set()
    for _ in range(repeat):
        for name, (spawn_options, match_options) in CONFIGURATIONS.items():
            boxed = [ProcessPlayer.from_path(BOT, spawn_options=spawn_options) for _ in range(n)]
            result, seconds = run_match(variant, boxed, games_count, seed, **match_options)
            statuses |= {s["status"] for g in result.games for s in g.statuses}
            best[name] = min(best[name], seconds)
    return best, statuses


def pipe_floor(transcript: list[tuple[int, bytes]], players: int) -> float:
    """Seconds to replay ``transcript`` over plain pipes, answer by answer."""
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [RUNTIME, str(BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        for _ in range(players)
    ]
    readers = [p.stdout for p in procs]
    for player, line in transcript:
        procs[player].stdin.write(line)
        readers[player].readline()
    for p in procs:
        p.stdin.write(protocol.encode(protocol.bye()))
        p.stdin.close()
        p.wait()
    return time.perf_counter() - start


def measure(variant: str, games_count: int, seed: int, repeat: int = 3) -> dict[str, Any]:
    n = games.load(variant).num_players
    if games_count % n:
        raise ValueError(f"--games must be a multiple of {n} (the duplicate rows)")
    unused: list[tuple[int, bytes]] = []
    result, in_s = run_match(
        variant, [InProcessPlayer(SameBot(unused, p)) for p in range(n)], games_count, seed
    )
    count = deals(result)
    transcript: list[tuple[int, bytes]] = []  # the same match again, keeping every message
    run_match(variant, [Recording(SameBot(transcript, p)) for p in range(n)], games_count, seed)
    if not sandbox.available():  # the one-time host probe, paid by a worker once, not per match
        raise SystemExit(f"no sandbox here: {sandbox.describe()['probe']}")
    seconds, statuses = sandboxed_seconds(variant, games_count, seed, repeat)
    floor_s = min(pipe_floor(transcript, n) for _ in range(repeat))
    boxed_s = seconds["sandboxed"]
    return {
        "variant": variant,
        "games": games_count,
        "deals": count,
        "decisions": sum(1 for _, line in transcript if b'"type":"act"' in line),
        "repeat": repeat,
        "sandbox": sandbox.describe(),
        "sandboxed_statuses": sorted(statuses),
        "seconds": seconds,
        "sandboxed_deals_per_s": count / boxed_s,
        "in_process_deals_per_s": count / in_s,
        "pipe_floor_deals_per_s": count / floor_s,
        "sandboxed_vs_floor": (count / boxed_s) / (count / floor_s),
        "cost_ms_per_match": {
            "seccomp filter": (boxed_s - seconds["no seccomp filter"]) * 1000,
            "cgroup and CPU-time charging": (boxed_s - seconds["no cgroup"]) * 1000,
            "fresh processes per rotation": (
                seconds["duplicate, fresh rotations"] - seconds["duplicate, kept processes"]
            )
            * 1000,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="manni-basic")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="matches per configuration")
    parser.add_argument("--no-pin", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if games.variant_info(args.variant).family != "manni":
        parser.error("the match benchmark plays a Manni variant")
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    report = measure(args.variant, args.games, args.seed, args.repeat)
    report["pinned"] = not args.no_pin
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    print(
        f"Match benchmark: {args.variant}, {report['games']} games, {report['deals']} deals, "
        f"{report['decisions']} decisions, {'one core' if report['pinned'] else 'unpinned'}"
    )
    for key, label in (
        ("pipe_floor_deals_per_s", "pipe floor (no engine, no sandbox)"),
        ("in_process_deals_per_s", "in-process bots"),
        ("sandboxed_deals_per_s", "sandboxed bots"),
    ):
        print(f"  {label:<36}{report[key]:>10,.1f} deals/s")
    print(f"  sandboxed / pipe floor: {report['sandboxed_vs_floor']:.2f} (target >= 0.70)")
    print(f"Sandboxed match, best of {report['repeat']} (seconds):")
    for name, seconds in report["seconds"].items():
        print(f"  {name:<36}{seconds:>10.3f} s")
    print(f"What each control costs per match of {report['games']} games:")
    for name, cost in report["cost_ms_per_match"].items():
        share = cost / 1000 / report["seconds"]["sandboxed"]
        print(f"  {name:<36}{cost:>+10.1f} ms  ({share:+.1%} of the match)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
