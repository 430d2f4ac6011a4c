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
from collections import Counter
from typing import Any

from bots.builtin import make
from bots.referee import OPEN_LADDER_PACE_MS, InProcessPlayer, TimeControl, play_match
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


class QuantaSender(Sender):
    """Thinks a whole number of quanta on purpose: a symbol of ``bits`` bits a decision,
    ``symbol * quantum_ms`` (plus a tenth of a quantum, past the grid's edge)."""

    name = "quanta-sender"

    def __init__(self, quantum_ms: float, bits: int, seed: int) -> None:
        super().__init__(0, seed)
        self.quantum_s, self.bits = quantum_ms / 1000, bits

    def act(self, observation: Any, legal: list[str]) -> str:
        symbol = self.coin.getrandbits(self.bits)
        self.decisions.append((time.perf_counter(), symbol))
        time.sleep(self.quantum_s * (symbol + 0.1 * bool(symbol)))
        return legal[0]


class Thinker(Bot):
    """An honest bot that thinks a seeded random time, uniform in [0, 2 x ``mean_ms``]."""

    name = "thinker"
    needs_observation = False

    def __init__(self, mean_ms: float, seed: int) -> None:
        self.mean_s, self.draws = mean_ms / 1000, random.Random(seed)

    def act(self, observation: Any, legal: list[str]) -> str:
        time.sleep(self.draws.uniform(0, 2 * self.mean_s))
        return legal[0]


class Noted(Bot):
    """Another bot, noting when it was asked (the receiver reads from the public history
    how many decisions of the others a gap holds)."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.name = bot, bot.name
        self.needs_observation = getattr(bot, "needs_observation", True)
        self.asked: list[float] = []

    def act(self, observation: Any, legal: list[str]) -> str:
        self.asked.append(time.perf_counter())
        return self.bot.act(observation, legal)


def received(
    sender: Sender, receiver: Receiver, third: Noted | None = None
) -> list[tuple[float, int, int]]:
    """(gap ms, the symbol sent in it, the third seat's decisions in it) for each gap of
    the receiver holding exactly one decision of the sender."""
    samples = []
    for begun, ended in receiver.gaps:
        inside = [symbol for when, symbol in sender.decisions if begun <= when < ended]
        others = 0 if third is None else sum(begun <= when < ended for when in third.asked)
        if len(inside) == 1:
            samples.append(((ended - begun) * 1000, inside[0], others))
    return samples


def entropy(p: float) -> float:
    if p <= 0 or p >= 1:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def channel(
    *, games: int, step_ms: float, pace_ms: int, pace_jitter: int = 0, seed: int = 1
) -> dict[str, float | int]:
    """Play ``games`` games; the receiver's best guess of the sender's coin, its error
    rate, the bits a decision that leaves, and the match's seconds."""
    sender, receiver = Sender(step_ms, seed), Receiver()
    players = [
        InProcessPlayer(sender),
        InProcessPlayer(receiver),
        InProcessPlayer(make("random", seed=seed)),
    ]
    clock = TimeControl(move_ms=2_000, bank_ms=20_000, pace_ms=pace_ms, pace_jitter=pace_jitter)
    started = time.perf_counter()
    result = play_match(VARIANT, players, games_count=games, seed=seed, time_control=clock)
    seconds = time.perf_counter() - started

    samples = [(gap, bit) for gap, bit, _ in received(sender, receiver)]
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


def symmetric_bits(symbols: int, error: float) -> float:
    """Bits a decision of a ``symbols``-ary symmetric channel wrong ``error`` of the time:
    ``log2 M - H(e) - e log2(M - 1)`` (0 at a guess's error rate or worse)."""
    if error >= 1 - 1 / symbols:
        return 0.0
    return math.log2(symbols) - entropy(error) - error * math.log2(symbols - 1)


def quanta_channel(
    *,
    games: int,
    pace_ms: int,
    pace_jitter: int,
    quantum_ms: int = 0,
    bits: int = 4,
    seed: int = 1,
) -> dict[str, float | int]:
    """The whole-quanta sender (:class:`QuantaSender`, ``bits`` a symbol, quanta of
    ``quantum_ms``, by default ``pace_ms``) against a receiver that decodes each gap, in
    whole quanta, as the symbol most often sent with that gap and that many decisions of
    the third seat in it (a receiver that knows the channel, fitted on the samples it
    decodes: an upper bound): the share decoded right and the bits a decision of that
    symmetric channel."""
    quantum_ms = quantum_ms or pace_ms
    sender, receiver = QuantaSender(quantum_ms, bits, seed), Receiver()
    third = Noted(make("random", seed=seed))
    players = [InProcessPlayer(sender), InProcessPlayer(receiver), InProcessPlayer(third)]
    clock = TimeControl(move_ms=2_000, bank_ms=60_000, pace_ms=pace_ms, pace_jitter=pace_jitter)
    play_match(VARIANT, players, games_count=games, seed=seed, time_control=clock)
    samples = received(sender, receiver, third)
    sent: dict[tuple[int, int], Counter[int]] = {}
    for gap, symbol, others in samples:
        sent.setdefault((round(gap / quantum_ms), others), Counter())[symbol] += 1
    decoded = sum(counts.most_common(1)[0][1] for counts in sent.values())
    error = 1 - decoded / len(samples)
    return {
        "samples": len(samples),
        "decoded": decoded,
        "bits": symmetric_bits(2**bits, error),
    }


def cost(
    *,
    games: int,
    pace_ms: int,
    pace_jitter: int,
    think_ms: float,
    seed: int = 1,
    uploaded: int = 3,
) -> dict[str, float | int]:
    """An honest match of three :class:`Thinker` bots thinking ``think_ms`` a decision on
    average, the first ``uploaded`` of them paced as uploaded bots are and the others
    house bots (never paced, answering at once): its seconds and decisions."""
    players = []
    for s in range(3):
        house = s >= uploaded
        player = InProcessPlayer(Thinker(0.0 if house else think_ms, seed * 10 + s))
        player.paced = not house
        players.append(player)
    clock = TimeControl(move_ms=2_000, bank_ms=20_000, pace_ms=pace_ms, pace_jitter=pace_jitter)
    started = time.perf_counter()
    result = play_match(VARIANT, players, games_count=games, seed=seed, time_control=clock)
    return {
        "seconds": time.perf_counter() - started,
        "decisions": sum(len(g.record["traces"]) for g in result.games),
    }


def tables(think_ms: float) -> None:
    """Print what the default pacing costs by who sits at the table: the referee holds a
    table's turns only where two uploaded bots sit (``Referee.pacing``)."""
    pace, jitter = OPEN_LADDER_PACE_MS, TimeControl.pace_jitter
    print(
        f"the default pacing ({pace} ms, jitter 0-{jitter}) by table, against the same"
        " table unpaced (one game):"
    )
    for think in (think_ms, 1.0):
        for uploaded, who in ((1, "one uploaded bot, two house bots (a validation)"),
                              (2, "two uploaded bots, one house bot"),
                              (3, "three uploaded bots")):  # fmt: skip
            off = cost(games=1, pace_ms=0, pace_jitter=0, think_ms=think, uploaded=uploaded)
            on = cost(games=1, pace_ms=pace, pace_jitter=jitter, think_ms=think, uploaded=uploaded)
            print(
                f"  bots thinking {think:g} ms, {who}: {off['seconds']:.2f} s unpaced,"
                f" {on['seconds']:.2f} s paced, {on['seconds'] / off['seconds']:.2f}x"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.timing", description=__doc__)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--step-ms", type=float, default=8.0, help="the sender's wait")
    parser.add_argument("--think-ms", type=float, default=33.0, help="honest bots' mean")
    args = parser.parse_args(argv)
    default = (OPEN_LADDER_PACE_MS, TimeControl.pace_jitter)
    settings = [(0, 0), (20, 0), (OPEN_LADDER_PACE_MS, 0), default, (OPEN_LADDER_PACE_MS, 5)]
    print(
        f"{VARIANT}, {args.games} games a row; a sender waiting {args.step_ms:g} ms or not;"
        f" one thinking 0 to 15 whole quanta (4 bits); the cost: a match of three honest"
        f" bots thinking {args.think_ms:g} ms a decision on average"
    )
    base = cost(games=1, pace_ms=0, pace_jitter=0, think_ms=args.think_ms)["seconds"]
    for pace, jitter in settings:
        step = channel(games=args.games, step_ms=args.step_ms, pace_ms=pace, pace_jitter=jitter)
        whole = quanta_channel(
            games=args.games, pace_ms=pace, pace_jitter=jitter, quantum_ms=pace or 5
        )
        paid = (
            base
            if pace == 0
            else cost(games=1, pace_ms=pace, pace_jitter=jitter, think_ms=args.think_ms)["seconds"]
        )
        label = "pacing off" if pace == 0 else f"{pace} ms, jitter 0-{jitter}"
        mark = " (default)" if (pace, jitter) == default else ""
        print(
            f"  {label:<18} {args.step_ms:g} ms sender {step['bits']:.3f} bits;"
            f" whole quanta {whole['decoded']} of {whole['samples']} symbols decoded,"
            f" {whole['bits']:.2f} bits; match {paid:.2f} s, {paid / base:.2f}x{mark}"
        )
    tables(args.think_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
