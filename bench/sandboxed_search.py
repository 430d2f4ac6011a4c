"""What the compiled engine gives a search bot in the sandbox: ``ismcts``, pure against compiled.

    python -m bench.sandboxed_search [--variant V] [--sets N] [--cpu-ms MS] [--seed S]

Every player is the built-in ``ismcts`` run as an uploaded bot: a program in the
sandbox (bubblewrap, its own cgroup) that imports ``bots.builtin`` and ``games``
from the copies every bot gets (bots/sandbox/engine.py). Seat 0 uses the engine
bots get (the compiled build where one fits the sandbox's Python); the other seats
ask for the pure source (``CARDROOM_PURE_ENGINES=1`` set by the bot before it
imports ``games``). Each
decision searches for ``--cpu-ms`` of the bot's own CPU time (its search clock is
``time.process_time``, so a busy machine takes wall time, not playouts, from it),
as many playouts as fit.

Duplicate sets (``play_match(..., duplicate=True)``): one deal sequence played once
per seat rotation, so each engine gets the same cards. Printed: per engine, the
decisions searched, playouts, CPU seconds of search and playouts a second; then the
compiled seat's mean rank (1 is first) against the pure seats' mean rank, and its
pairwise score (the share of pure seats it outranks, ties half; 1/2 when equally
strong), each with its standard error over sets.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time
from pathlib import Path

import games
from bots.referee import ProcessPlayer, TimeControl, play_match
from bots.sandbox import isolation

#: The bot program: the built-in ismcts with a CPU-time budget, and its counts on stderr.
PROGRAM = """
import json, os, sys, time
if ASK_PURE:
    os.environ["CARDROOM_PURE_ENGINES"] = "1"  # before games is imported
import games, games.native, games.search


class CpuClock:
    perf_counter = staticmethod(time.process_time)  # the search's deadline: CPU time


games.search.time = CpuClock
from bots.builtin.ismcts import IsmctsBot
from bots.sdk import run


class Counted(IsmctsBot):
    def start(self, hello):
        super().start(hello)
        self.counts = {"decisions": 0, "playouts": 0, "cpu_s": 0.0}

    def decide(self, tracker, legal):
        began = time.process_time()
        label = super().decide(tracker, legal)
        if self.last is not None and self.last.playouts:
            self.counts["decisions"] += 1
            self.counts["playouts"] += self.last.playouts
            self.counts["cpu_s"] += time.process_time() - began
        return label

    def game_over(self, result):
        super().game_over(result)
        report = {"kind": "search", "compiled": len(games.native.MODULES), **self.counts}
        sys.stderr.write(json.dumps(report) + "\\n")
        sys.stderr.flush()


run(Counted(SEED, iterations=1_000_000, time_ms=CPU_MS))
"""


#: Room for a slow start on a busy machine: the budget that matters is the bot's own.
SLACK = TimeControl(move_ms=5_000, bank_ms=120_000, start_ms=60_000)


def make_bot(directory: Path, *, pure: bool, cpu_ms: float, seed: int) -> Path:
    """A bot directory holding ``main.py`` (``bots.builtin`` is in every sandbox)."""
    directory.mkdir(parents=True)
    source = PROGRAM.replace("ASK_PURE", str(pure)).replace("CPU_MS", repr(float(cpu_ms)))
    (directory / "main.py").write_text(source.replace("SEED", str(seed)))
    return directory


def play_set(variant: str, index: int, cpu_ms: float, seed: int, work: Path) -> dict:
    """One duplicate set: the compiled seat's ranks and pairwise scores, and the counts."""
    n = games.load(variant).num_players
    players = [
        ProcessPlayer.from_path(
            make_bot(work / f"set{index}-{p}", pure=p != 0, cpu_ms=cpu_ms, seed=seed + p)
        )
        for p in range(n)
    ]
    result = play_match(
        variant,
        players,
        games_count=n,
        seed=seed * 1000 + index,
        duplicate=True,
        time_control=SLACK,
    )
    ranks, others, pairs = [], [], []
    for game in result.games:
        mine = game.seats.index(0)
        ranks.append(game.ranking[mine])
        theirs = [game.ranking[s] for s in range(n) if s != mine]
        others += theirs
        pairs += [1.0 if ranks[-1] < r else 0.5 if ranks[-1] == r else 0.0 for r in theirs]
        bad = [s for s in game.statuses if s["status"] != "ok"]
        assert not bad, (bad, result.logs)
    counts = {"compiled": [], "pure": []}
    for player, log in enumerate(result.logs):
        for line in log.splitlines():
            if line.startswith("{") and '"search"' in line:
                counts["pure" if player else "compiled"].append(json.loads(line))
    return {
        "rank": statistics.mean(ranks),
        "others": statistics.mean(others),
        "score": statistics.mean(pairs),
        "counts": counts,
    }


def mean_se(values: list[float]) -> tuple[float, float]:
    mean = statistics.mean(values)
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, se


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="maniglia-4")
    parser.add_argument("--sets", type=int, default=12)
    parser.add_argument("--cpu-ms", type=float, default=20.0, help="search CPU a decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    engine = isolation.bots_engine()
    print(f"the engine bots get: {engine.describe()}")
    print(
        f"ismcts in the sandbox, {args.cpu_ms:g} ms of CPU a decision, {args.variant}: "
        "seat 0 with the engine bots get, the others with the pure source; duplicate sets",
        flush=True,
    )
    started = time.perf_counter()
    sets = []
    with tempfile.TemporaryDirectory(prefix="cardroom-search-bench-") as work:
        for index in range(args.sets):
            sets.append(play_set(args.variant, index, args.cpu_ms, args.seed, Path(work)))
    totals = {}
    print("| engine | modules compiled | decisions | playouts | search CPU s | playouts/s |")
    print("|---|---|---|---|---|---|")
    for name in ("compiled", "pure"):
        reports = [r for s in sets for r in s["counts"][name]]
        decisions = sum(r["decisions"] for r in reports)
        playouts = sum(r["playouts"] for r in reports)
        cpu = sum(r["cpu_s"] for r in reports)
        modules = sorted({r["compiled"] for r in reports})
        totals[name] = playouts / cpu if cpu else float("nan")
        print(
            f"| {name} | {modules} | {decisions} | {playouts} | {cpu:.1f} | {totals[name]:,.0f} |"
        )
    print(f"compiled / pure playouts a second: {totals['compiled'] / totals['pure']:.2f}")
    rank, rank_se = mean_se([s["rank"] for s in sets])
    other, other_se = mean_se([s["others"] for s in sets])
    score, score_se = mean_se([s["score"] for s in sets])
    games_played = len(sets) * games.load(args.variant).num_players
    print("| variant | sets | games | mean rank compiled | mean rank pure | score compiled |")
    print("|---|---|---|---|---|---|")
    print(
        f"| {args.variant} | {len(sets)} | {games_played} | {rank:.2f} ± {rank_se:.2f} "
        f"| {other:.2f} ± {other_se:.2f} | {score:.3f} ± {score_se:.3f} |"
    )
    print(f"({time.perf_counter() - started:.0f} s)")
    if args.json:
        print(json.dumps({"playouts_per_s": totals, "sets": sets}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
