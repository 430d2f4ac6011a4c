"""Timing channel benchmark: what one bot can tell another through its think time,
with the referee's pacing off and on (``TimeControl.pace_ms``).

    python -m bench.timing [--games 20] [--step-ms 8] [--pace-ms 20]

A bot sees the wall time between its answer and its next turn, and the public
history says who acted in between: a colluder can think longer or shorter on
purpose, and its partner reads the difference (``tests/bots/hostile/colluder.py``
finds its partner so). Here the sender, on each decision, waits ``step_ms`` or not,
by a seeded coin; the receiver notes the time between its own answer and its next
turn. Both are played in-process through the referee (``bots.referee.play_match``)
in manni-basic with a random player as the third seat.

For every gap of the receiver that holds exactly one decision of the sender, the
receiver's best guess of the coin is "waited" when the gap is over the midpoint of
the two medians (a receiver that knows both distributions: an upper bound of what a
real one reads). The error rate ``e`` of that guess gives the channel's capacity
in bits a decision, ``1 - H(e)`` (a binary symmetric channel with a fair coin: 1 bit
when the guess is always right, 0 when it is a coin toss). Printed with pacing off
and on, with what pacing costs: seconds a match and the added time a decision.

The remaining capacity with pacing is not zero: a sender that thinks whole quanta
(``pace_ms`` or more) moves the gap by a quantum, at the price of its own time
(``bots/sandbox/README.md``, the threat table).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from typing import Any

from bots.builtin import make
from bots.referee import InProcessPlayer, TimeControl, play_match
from bots.sdk import Bot

VARIANT = "manni-basic"


class Sender(Bot):
    """Waits ``step_ms`` on a decision when its seeded coin says so; notes when."""

    name = "timing-sender"
    needs_observation = False

    def __init__(self, step_ms: float, seed: int) -> None:
        self.step_s = step_ms / 1000
        self.coin = random.Random(seed)
        self.decisions: list[tuple[float, int]] = []  # (when it was asked, its bit)

    def act(self, observation: Any, legal: list[str]) -> str:
        bit = self.coin.getrandbits(1)
        self.decisions.append((time.perf_counter(), bit))
        if bit:
            time.sleep(self.step_s)
        return legal[0]


class Receiver(Bot):
    """Notes, at each turn, the time since its own last answer."""

    name = "timing-receiver"
    needs_observation = False

    def __init__(self) -> None:
        self.answered: float | None = None
        self.gaps: list[tuple[float, float]] = []  # (its last answer, this turn)

    def act(self, observation: Any, legal: list[str]) -> str:
        now = time.perf_counter()
        if self.answered is not None:
            self.gaps.append((self.answered, now))
        self.answered = time.perf_counter()
        return legal[0]


def entropy(p: float) -> float:
    if p <= 0 or p >= 1:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def channel(*, games: int, step_ms: float, pace_ms: int, seed: int = 1) -> dict[str, float | int]:
    """Play ``games`` games; the receiver's best guess of the sender's coin, its error
    rate, the bits a decision that leaves, and the match's seconds."""
    sender, receiver = Sender(step_ms, seed), Receiver()
    players = [
        InProcessPlayer(sender),
        InProcessPlayer(receiver),
        InProcessPlayer(make("random", seed=seed)),
    ]
    clock = TimeControl(move_ms=2_000, bank_ms=20_000, pace_ms=pace_ms)
    started = time.perf_counter()
    result = play_match(VARIANT, players, games_count=games, seed=seed, time_control=clock)
    seconds = time.perf_counter() - started

    samples: list[tuple[float, int]] = []  # (gap ms, the one bit sent in it)
    for begun, ended in receiver.gaps:
        inside = [bit for when, bit in sender.decisions if begun <= when < ended]
        if len(inside) == 1:
            samples.append(((ended - begun) * 1000, inside[0]))
    zeros = [gap for gap, bit in samples if bit == 0]
    ones = [gap for gap, bit in samples if bit == 1]
    if not zeros or not ones:
        raise SystemExit("too few samples: play more games")
    threshold = (statistics.median(zeros) + statistics.median(ones)) / 2
    wrong = sum((gap > threshold) != bool(bit) for gap, bit in samples)
    error = min(wrong / len(samples), 0.5)
    return {
        "samples": len(samples),
        "median_gap_0_ms": statistics.median(zeros),
        "median_gap_1_ms": statistics.median(ones),
        "error": error,
        "bits": 1 - entropy(error),
        "seconds": seconds,
        # Every seat's decisions (each game's record traces them all).
        "decisions": sum(len(g.record["traces"]) for g in result.games),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.timing", description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--step-ms", type=float, default=8.0, help="the sender's wait")
    parser.add_argument("--pace-ms", type=int, default=20, help="the referee's quantum")
    args = parser.parse_args(argv)
    print(f"{VARIANT}, {args.games} games, the sender waits {args.step_ms:g} ms or not")
    rows = {}
    for pace in (0, args.pace_ms):
        rows[pace] = row = channel(games=args.games, step_ms=args.step_ms, pace_ms=pace)
        label = "pacing off" if pace == 0 else f"pacing {pace} ms"
        print(
            f"  {label:<18} {row['bits']:.3f} bits a decision (guess wrong {row['error']:.1%}"
            f" of {row['samples']}; median gap {row['median_gap_0_ms']:.1f} ms without the"
            f" wait, {row['median_gap_1_ms']:.1f} ms with it); {row['seconds']:.2f} s"
        )
    off, on = rows[0], rows[args.pace_ms]
    added = (on["seconds"] - off["seconds"]) / max(1, on["decisions"]) * 1000
    ratio = on["seconds"] / off["seconds"]
    print(
        f"  pacing costs: {ratio:.2f}x the match's time, {added:.1f} ms a decision"
        f" (a quantum of {args.pace_ms} ms at most)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
