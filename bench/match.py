"""Match benchmark: deals per second of one match, three ways, in the same run.

    python -m bench.match [--variant manni-basic] [--games 40] [--json]

- ``sandboxed``: the referee with three sandboxed Python bots (``bench/bots/pipe_bot.py``);
- ``in-process``: the same match with the same bot logic called in-process;
- ``pipe floor``: no engine, no referee, no sandbox: the messages of that match
  replayed over plain pipes to three plain ``python3`` processes of the same
  bot, each write followed by reading the answer line (the floor).

Target: sandboxed at >= 70 % of the pipe floor. Bot start-up is paid once per
match: the figures include it (it is amortised over ``--games`` games). The
process pins itself (and so its bots) to one core unless ``--no-pin``.
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
        self.rnd.seed(hello["match"]["player"] * 10 + hello["seat"])
        self.transcript.append((self.player, protocol.encode(hello)))

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        return legal[self.rnd.randrange(len(legal))]


class Recording(InProcessPlayer):
    def act(self, message: dict[str, Any], timeout_s: float) -> str:
        self.bot.transcript.append((self.bot.player, protocol.encode(message)))
        return super().act(message, timeout_s)


def deals(result) -> int:
    return sum(len(g.record["decks"]) for g in result.games)


def run_match(variant: str, players: list[Player], games_count: int, seed: int):
    tc = TimeControl(move_ms=10_000, bank_ms=100_000)
    start = time.perf_counter()
    result = play_match(variant, players, games_count=games_count, seed=seed, time_control=tc)
    return result, time.perf_counter() - start


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


def measure(variant: str, games_count: int, seed: int) -> dict[str, Any]:
    n = games.load(variant).num_players
    unused: list[tuple[int, bytes]] = []
    result, in_s = run_match(
        variant, [InProcessPlayer(SameBot(unused, p)) for p in range(n)], games_count, seed
    )
    count = deals(result)
    transcript: list[tuple[int, bytes]] = []  # the same match again, keeping every message
    run_match(variant, [Recording(SameBot(transcript, p)) for p in range(n)], games_count, seed)
    boxed = [ProcessPlayer.from_path(BOT) for _ in range(n)]
    boxed_result, boxed_s = run_match(variant, boxed, games_count, seed)
    statuses = {s["status"] for g in boxed_result.games for s in g.statuses}
    floor_s = pipe_floor(transcript, n)
    return {
        "variant": variant,
        "games": games_count,
        "deals": count,
        "decisions": sum(1 for _, line in transcript if b'"type":"act"' in line),
        "sandbox": sandbox.describe(),
        "sandboxed_statuses": sorted(statuses),
        "sandboxed_deals_per_s": deals(boxed_result) / boxed_s,
        "in_process_deals_per_s": count / in_s,
        "pipe_floor_deals_per_s": count / floor_s,
        "sandboxed_vs_floor": (deals(boxed_result) / boxed_s) / (count / floor_s),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="manni-basic")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-pin", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if games.variant_info(args.variant).family != "manni":
        parser.error("the match benchmark plays a Manni variant")
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    report = measure(args.variant, args.games, args.seed)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
