"""Match benchmark: deals per second of one match, several ways, in the same run.

    python -m bench.match [--variant manni-basic] [--games 40] [--repeat 3] [--json]

- ``sandboxed``: the referee with three sandboxed Python bots (``bench/bots/pipe_bot.py``),
  every control on (namespaces, cgroup, seccomp filter, CPU-time charging);
- ``in-process``: the same match with the same bot logic called in-process;
- ``pipe floor``: no engine, no referee, no sandbox: the messages of that match
  replayed over plain pipes to three plain ``python3`` processes of the same
  bot, each write followed by reading the answer line (the floor);
- ``history_delta``: the same match with sandboxed bots that accept the
  ``history_delta`` extension (``bench/bots/delta_bot.py``: the same choices,
  the history put back at every decision), against its own pipe floor of the
  lines those bots got.

Then what each control costs per match, measured in the same run by turning it
off: the seccomp filter, the cgroup (with it the CPU-time charging, which reads
the group's counter around every decision), and in a duplicate match of the same
length the fresh processes each seat rotation starts (``fresh_rotations``).

Decision traces (``bots.referee.traces``): matches per second of the same match with
traces off (``traces=False``), for the sandboxed and the in-process bots; a row of
sandboxed bots that write a line of stderr and send a note at every decision
(``bench/bots/noting_bot.py``); and the bytes a trace adds to a game record per
decision, compressed as ``GameRecord.pack`` stores it. Target: traces on at most 10 %
slower than off. The in-process rows are this process's CPU time (the whole match runs
here, in about 60 ms), best of :data:`IN_PROCESS_ROUNDS` times ``--repeat`` runs taking
turns with traces on and off: a wall-clock best of a few is moved by the machine's other
work more than by the traces.

Target: sandboxed at >= 85 % of the pipe floor. Bot start-up is paid once per
match (once per rotation in duplicate mode): the figures include it, but not the
host probe a worker runs once (bwrap, the filter, the cgroup), done first. Each
figure is the best of ``--repeat`` matches, the floors and the sandboxed
matches taking turns so that a change in the machine's load reaches both. The
process pins itself (and so its bots) to one core unless ``--no-pin``.

Start-up: how long a sandboxed bot takes from spawn to its ``ready`` (the
SDK and the engines are copied into every sandbox), for the bench bot and for
a bot that imports ``games`` and loads its variant, and the staging copy alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import games
from bots import protocol, sandbox
from bots.referee import InProcessPlayer, Player, ProcessPlayer, TimeControl, play_match
from bots.referee.encoding import ActEncoder
from bots.referee.players import OFFERED
from bots.sandbox import isolation
from bots.sdk import Bot

BOT = Path(__file__).resolve().parent / "bots" / "pipe_bot.py"
DELTA_BOT = Path(__file__).resolve().parent / "bots" / "delta_bot.py"
NOTING_BOT = Path(__file__).resolve().parent / "bots" / "noting_bot.py"
RUNTIME = "/usr/bin/python3"
#: A bot that thinks with the mounted engine: what importing it adds to start-up.
ENGINE_BOT = """import json, sys
import games
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        games.load(message["variant"], **message["options"]).new_game(1)
        print('{"ready":true}', flush=True)
    elif message["type"] == "bye":
        break
"""


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
    """Keeps the lines a bot program would get, encoded as ``ProcessPlayer`` encodes them."""

    def __init__(self, bot: SameBot, *, delta: bool = False) -> None:
        super().__init__(bot)
        self.encoder = ActEncoder(delta=delta)

    def start(self, hello: dict[str, Any], timeout_s: float) -> None:
        super().start(hello, timeout_s)
        line = protocol.encode({**hello, "extensions": OFFERED})
        self.bot.transcript[-1] = (self.bot.player, line)

    def act(self, message: dict[str, Any], timeout_s: float) -> str:
        self.bot.transcript.append((self.bot.player, self.encoder.encode(message)))
        return super().act(message, timeout_s)


def deals(result) -> int:
    return sum(len(g.record["decks"]) for g in result.games)


def run_match(variant: str, players: list[Player], games_count: int, seed: int, **kw):
    tc = TimeControl(move_ms=10_000, bank_ms=100_000)
    start = time.perf_counter()
    result = play_match(variant, players, games_count=games_count, seed=seed, time_control=tc, **kw)
    return result, time.perf_counter() - start


#: In-process matches with traces on and off per ``--repeat`` (they are short).
IN_PROCESS_ROUNDS = 4

#: The sandboxed configurations timed, by name: spawn options and match keywords.
CONFIGURATIONS = {
    "sandboxed": ({}, {}),
    "no seccomp filter": ({"seccomp": False}, {}),
    "no landlock reads": ({"landlock": False}, {}),
    "no cgroup": ({"cgroup": False}, {}),
    "duplicate, fresh rotations": ({}, {"duplicate": True}),
    "duplicate, kept processes": ({}, {"duplicate": True, "fresh_rotations": False}),
    "traces off": ({}, {"traces": False}),
}
#: The row of bots that accept the history_delta extension (bench/bots/delta_bot.py).
DELTA = "sandboxed, history_delta bots"
#: The row of bots that write stderr and a note at every decision (bench/bots/noting_bot.py).
NOTING = "sandboxed, noting bots"
NOTING_OFF = "sandboxed, noting bots, traces off"


def packed_bytes(record: dict[str, Any]) -> int:
    """The bytes of ``record`` as ``tournaments.models.GameRecord.pack`` stores it."""
    return len(zlib.compress(json.dumps(record, separators=(",", ":")).encode(), 6))


def trace_bytes(results: list) -> tuple[float, int]:
    """The compressed bytes the decision traces add to the game records of ``results``
    (match results), per decision, and the number of decisions."""
    added = decisions = 0
    for result in results:
        for game in result.games:
            record = game.record
            bare = {k: v for k, v in record.items() if k != "traces"}
            added += packed_bytes(record) - packed_bytes(bare)
            decisions += len(record.get("traces", []))
    return added / max(1, decisions), decisions


def own_cpu_s() -> float:
    """CPU time (user and system) this process used so far: the referee's, never a bot's."""
    times = os.times()
    return times.user + times.system


def sandboxed_seconds(
    variant: str,
    games_count: int,
    seed: int,
    spawn_options: dict,
    match_options: dict,
    bot: Path,
    kept: list | None = None,
) -> tuple[float, set[str], float]:
    """Seconds of one sandboxed match, the statuses seen and the referee's own CPU seconds;
    the match result is added to ``kept`` if given."""
    n = games.load(variant).num_players
    boxed = [ProcessPlayer.from_path(bot, spawn_options=spawn_options) for _ in range(n)]
    cpu = own_cpu_s()
    result, seconds = run_match(variant, boxed, games_count, seed, **match_options)
    cpu = own_cpu_s() - cpu
    if kept is not None:
        kept.append(result)
    return seconds, {s["status"] for g in result.games for s in g.statuses}, cpu


def pipe_floor(
    transcript: list[tuple[int, bytes]], players: int, bot: Path = BOT
) -> tuple[float, float]:
    """Seconds to replay ``transcript`` over plain pipes, answer by answer, and our CPU seconds."""
    cpu = own_cpu_s()
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [RUNTIME, str(bot)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
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
    return time.perf_counter() - start, own_cpu_s() - cpu


def transcript_of(variant: str, games_count: int, seed: int, *, delta: bool) -> list:
    """Every line of the match as the bots get it: (player, line) in order."""
    n = games.load(variant).num_players
    transcript: list[tuple[int, bytes]] = []
    players = [Recording(SameBot(transcript, p), delta=delta) for p in range(n)]
    run_match(variant, players, games_count, seed)
    return transcript


def start_up_ms(variant: str, rounds: int = 5) -> dict[str, float]:
    """Median milliseconds: staging the copies, and spawn to ``ready`` of two bots."""
    hello = protocol.encode(
        protocol.hello(variant=variant, options={}, seat=0, players=3, match={}, time_control={})
    )
    with tempfile.TemporaryDirectory() as directory:
        engine_bot = Path(directory) / "engine_bot.py"
        engine_bot.write_text(ENGINE_BOT)
        samples: dict[str, list[float]] = {"staging": [], "bench bot": [], "importing games": []}
        for _ in range(rounds):
            started = time.perf_counter()
            isolation.stage(Path(directory), uid=None).remove()
            samples["staging"].append(time.perf_counter() - started)
            for name, program in (("bench bot", BOT), ("importing games", engine_bot)):
                command, bot_dir = sandbox.resolve(program)
                started = time.perf_counter()
                with sandbox.spawn(command, bot_dir=bot_dir) as bot:
                    bot.send(hello)
                    bot.readline(timeout_s=30)
                    samples[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1000 for name, values in samples.items()}


def measure(variant: str, games_count: int, seed: int, repeat: int = 3) -> dict[str, Any]:
    n = games.load(variant).num_players
    if games_count % n:
        raise ValueError(f"--games must be a multiple of {n} (the duplicate rows)")
    unused: list[tuple[int, bytes]] = []
    result, in_s = run_match(
        variant, [InProcessPlayer(SameBot(unused, p)) for p in range(n)], games_count, seed
    )
    count = deals(result)
    transcript = transcript_of(variant, games_count, seed, delta=False)
    delta_transcript = transcript_of(variant, games_count, seed, delta=True)
    if not sandbox.available():  # the one-time host probe, paid by a worker once, not per match
        raise SystemExit(f"no sandbox here: {sandbox.describe()['probe']}")
    seconds = dict.fromkeys([*CONFIGURATIONS, DELTA, NOTING, NOTING_OFF], float("inf"))
    in_process = {"traces on": float("inf"), "traces off": float("inf")}
    traced: dict[str, list] = {"sandboxed": [], NOTING: []}
    floor_s = delta_floor_s = float("inf")
    statuses: set[str] = set()
    referee_cpu = {"sandboxed": float("inf"), "pipe floor": float("inf")}
    for _ in range(repeat):  # floors and matches take turns, so load changes reach both
        figure, cpu = pipe_floor(transcript, n)
        floor_s = min(floor_s, figure)
        referee_cpu["pipe floor"] = min(referee_cpu["pipe floor"], cpu)
        for name, (spawn_options, match_options) in CONFIGURATIONS.items():
            figure, seen, cpu = sandboxed_seconds(
                variant, games_count, seed, spawn_options, match_options, BOT,
                traced["sandboxed"] if name == "sandboxed" else None,
            )  # fmt: skip
            seconds[name], statuses = min(seconds[name], figure), statuses | seen
            if name == "sandboxed":
                referee_cpu[name] = min(referee_cpu[name], cpu)
        delta_floor_s = min(delta_floor_s, pipe_floor(delta_transcript, n, DELTA_BOT)[0])
        figure, seen, _ = sandboxed_seconds(variant, games_count, seed, {}, {}, DELTA_BOT)
        seconds[DELTA], statuses = min(seconds[DELTA], figure), statuses | seen
        figure, seen, _ = sandboxed_seconds(
            variant, games_count, seed, {}, {}, NOTING_BOT, traced[NOTING]
        )
        seconds[NOTING], statuses = min(seconds[NOTING], figure), statuses | seen
        figure, seen, _ = sandboxed_seconds(
            variant, games_count, seed, {}, {"traces": False}, NOTING_BOT
        )
        seconds[NOTING_OFF], statuses = min(seconds[NOTING_OFF], figure), statuses | seen
        for _ in range(IN_PROCESS_ROUNDS):
            for traces in (True, False):  # in-process, taking turns too
                bots = [InProcessPlayer(SameBot(unused, p)) for p in range(n)]
                key = "traces on" if traces else "traces off"
                cpu = time.process_time()
                run_match(variant, bots, games_count, seed, traces=traces)
                in_process[key] = min(in_process[key], time.process_time() - cpu)
    boxed_s = seconds["sandboxed"]
    decisions = sum(1 for _, line in transcript if b'"type":"act"' in line)
    return {
        "variant": variant,
        "games": games_count,
        "deals": count,
        "decisions": decisions,
        "repeat": repeat,
        "sandbox": sandbox.describe(),
        "sandboxed_statuses": sorted(statuses),
        "seconds": seconds,
        "sandboxed_deals_per_s": count / boxed_s,
        "in_process_deals_per_s": count / in_s,
        "pipe_floor_deals_per_s": count / floor_s,
        "sandboxed_vs_floor": floor_s / boxed_s,
        # What the referee's process itself spends per decision (engine, encoding,
        # sandbox I/O and CPU-time charging; bots excluded): less moved by the load
        # of other work than wall-clock figures.
        "referee_cpu_us_per_decision": {
            name: value / decisions * 1e6 for name, value in referee_cpu.items()
        },
        "history_delta": {
            "bytes_per_match": sum(len(line) for _, line in delta_transcript),
            "version_1_bytes_per_match": sum(len(line) for _, line in transcript),
            "sandboxed_deals_per_s": count / seconds[DELTA],
            "pipe_floor_deals_per_s": count / delta_floor_s,
            "sandboxed_vs_floor": delta_floor_s / seconds[DELTA],
        },
        "traces": {
            "sandboxed_matches_per_s": 1 / boxed_s,
            "sandboxed_traces_off_matches_per_s": 1 / seconds["traces off"],
            "sandboxed_slowdown": boxed_s / seconds["traces off"] - 1,
            "noting_matches_per_s": 1 / seconds[NOTING],
            "noting_traces_off_matches_per_s": 1 / seconds[NOTING_OFF],
            "noting_slowdown": seconds[NOTING] / seconds[NOTING_OFF] - 1,
            "in_process_matches_per_s": 1 / in_process["traces on"],
            "in_process_traces_off_matches_per_s": 1 / in_process["traces off"],
            "in_process_slowdown": in_process["traces on"] / in_process["traces off"] - 1,
            "bytes_per_decision": trace_bytes(traced["sandboxed"][:1])[0],
            "noting_bytes_per_decision": trace_bytes(traced[NOTING][:1])[0],
        },
        "start_up_ms": start_up_ms(variant, rounds=max(3, repeat)),
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
    print(f"  sandboxed / pipe floor: {report['sandboxed_vs_floor']:.2f} (target >= 0.85)")
    cpu = report["referee_cpu_us_per_decision"]
    print(
        f"  referee process CPU per decision: sandboxed {cpu['sandboxed']:.1f} us, "
        f"pipe floor's writer {cpu['pipe floor']:.1f} us (best of {report['repeat']})"
    )
    delta = report["history_delta"]
    print(
        f"Bots with history_delta: {delta['bytes_per_match'] / 1e6:.2f} MB sent per match "
        f"(version 1: {delta['version_1_bytes_per_match'] / 1e6:.2f} MB)"
    )
    print(f"  {'pipe floor of those lines':<36}{delta['pipe_floor_deals_per_s']:>10,.1f} deals/s")
    print(f"  {'sandboxed bots':<36}{delta['sandboxed_deals_per_s']:>10,.1f} deals/s")
    print(f"  sandboxed / pipe floor: {delta['sandboxed_vs_floor']:.2f}")
    tr = report["traces"]
    print(f"Decision traces (target: at most 10 % slower), best of {report['repeat']}:")
    for label, on, off, slow in (
        ("sandboxed bots", "sandboxed_matches_per_s", "sandboxed_traces_off_matches_per_s",
         "sandboxed_slowdown"),
        ("in-process bots (CPU time)", "in_process_matches_per_s",
         "in_process_traces_off_matches_per_s", "in_process_slowdown"),
        ("noting bots (stderr + note)", "noting_matches_per_s",
         "noting_traces_off_matches_per_s", "noting_slowdown"),
    ):  # fmt: skip
        print(
            f"  {label:<28} traces on {tr[on]:8.3f} matches/s, off {tr[off]:8.3f}"
            f"  ({tr[slow]:+.1%})"
        )
    print(
        f"  a trace adds {tr['bytes_per_decision']:.1f} bytes a decision to the stored "
        f"record (compressed); {tr['noting_bytes_per_decision']:.1f} with a stderr line "
        "and a note"
    )
    ups = report["start_up_ms"]
    print(
        f"Start-up, median: staging a bot {ups['staging']:.1f} ms; spawn to ready: "
        f"bench bot {ups['bench bot']:.1f} ms, a bot importing games "
        f"{ups['importing games']:.1f} ms"
    )
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
