"""Collusion benchmark: what two colluding copies gain, and whether the guards catch them.

    python -m bench.collusion [--matches 120] [--evening 240] [--ladder 1000] [--games 6]

The colluding pair is ``tests/bots/hostile/colluder.py`` (copies that find each
other by a timing beacon and soft-play for each other); the honest pair is the same
program with collusion off (the same beacon, greedy moves always). Everything is
played in-process through the referee (``bots.referee.play_match``), in duplicate
matches of manni-basic, with ``builtin:greedy`` as the outsider:

1. **Guard off**: on the same seeds, the pair (two copies and greedy at one table)
   played honestly and colluding; the gain is the honest pair's mean game rank less
   the colluding pair's (positive: collusion helps), with its standard error over
   matches (paired by seed), and the outsider's share of first places.
2. **Guard on**: the copies cannot share a table, so each sits with two greedy
   players; the same comparison (the gain is 0 by construction: no partner is found).
3. **The report under a waiver**: a ladder evening of ``--evening`` matches at
   tables of three drawn at random from six entries (the two copies and four greedy
   players), then ``tournaments.ratings.collusion`` on its results: the copies'
   pair, its p-value and whether it is flagged (target: flagged at p <= 0.01).
4. **False alarms**: a ladder of ``--ladder`` matches of built-ins only (three
   greedy, three random entries, tables drawn the same way): how many of its pairs
   the report flags (target: none).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

from bots import builtin
from bots.referee import InProcessPlayer, play_match
from bots.referee.schedule import rotations, schedule
from games.rng import shuffled
from tournaments.formats.match_result import game_points
from tournaments.ratings import soft_play, think_times
from tournaments.ratings.collusion import MIN_TABLES, SeatedTable, collusion_report
from tournaments.ratings.collusion_watch import collusion_watch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the hostile bots live with the tests
    sys.path.insert(0, str(ROOT))

from tests.bots.hostile.colluder import Colluder  # noqa: E402
from tests.bots.hostile.sybil import helper as sybil  # noqa: E402

VARIANT = "manni-basic"


def _player(kind: str, name: str, seed: int) -> InProcessPlayer:
    if kind == "colluder":
        return InProcessPlayer(Colluder(seed), name)
    if kind == "sybil":
        return InProcessPlayer(sybil.make(seed), name)
    if kind == "honest":
        return InProcessPlayer(Colluder(seed, collude=False), name)
    return InProcessPlayer(builtin.make(kind, seed=seed), name)


def _match(kinds: list[str], seed: int, games: int):
    players = [_player(kind, f"p{i}", seed + i) for i, kind in enumerate(kinds)]
    return play_match(VARIANT, players, games_count=games, seed=seed, duplicate=True)


def _mean_ranks(result, players: list[int]) -> tuple[float, float]:
    """The mean game rank of ``players`` (match player indices), and the share of
    games the other players won."""
    ranks, outsider_wins, outsiders = [], 0, 0
    for game in result.games:
        for seat, player in enumerate(game.seats):
            if player in players:
                ranks.append(game.ranking[seat])
            else:
                outsiders += 1
                outsider_wins += game.ranking[seat] == 1
    return statistics.mean(ranks), outsider_wins / outsiders


def pair_gain(kinds: tuple[list[str], list[str]], pair: list[int], matches: int, games: int):
    """Honest minus colluding mean rank per match, paired by seed: mean, se, wins."""
    gains, wins = [], {0: [], 1: []}
    for m in range(matches):
        honest, w0 = _mean_ranks(_match(kinds[0], 1000 + m, games), pair)
        colluding, w1 = _mean_ranks(_match(kinds[1], 1000 + m, games), pair)
        gains.append(honest - colluding)
        wins[0].append(w0)
        wins[1].append(w1)
    se = statistics.stdev(gains) / math.sqrt(len(gains))
    return statistics.mean(gains), se, statistics.mean(wins[0]), statistics.mean(wins[1])


def ladder(field: list[str], matches: int, games: int, seed: int) -> list[SeatedTable]:
    """``matches`` tables of three drawn at random from ``field``, played and scored."""
    tables = []
    for m in range(matches):
        seated = shuffled(list(range(len(field))), seed, f"bench/collusion/ladder/{m}")[:3]
        result = _match([field[e] for e in seated], seed * 100_000 + m, games)
        points = game_points([g.__dict__ for g in result.games], 3)
        tables.append(SeatedTable(tuple(seated), tuple(points), len(result.games)))
    return tables


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=120, help="matches per pair comparison")
    parser.add_argument("--evening", type=int, default=240, help="matches of the ladder evening")
    parser.add_argument("--ladder", type=int, default=1000, help="matches of the built-in ladder")
    parser.add_argument("--games", type=int, default=6, help="games per match (duplicate)")
    parser.add_argument(
        "--parts",
        default="off,on,evening,alarms,watch",
        help="comma-separated parts to run (default: all): off, on, evening, alarms, watch",
    )
    parser.add_argument("--watched", type=int, default=1000, help="matches of the watched parts")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    started = time.perf_counter()
    if "off" in parts:
        _guard_off(args)
    if "on" in parts:
        _guard_on(args)
    if "evening" in parts:
        _evening(args)
    if "alarms" in parts:
        _alarms(args)
    if "watch" in parts:
        _watch_sybils(args)
        _watch_alarms(args)
    print(f"wall time {time.perf_counter() - started:.0f} s", flush=True)
    return 0


def _guard_off(args) -> None:
    mean, se, w0, w1 = pair_gain(
        (["honest", "honest", "greedy"], ["colluder", "colluder", "greedy"]),
        [0, 1],
        args.matches,
        args.games,
    )
    print(f"guard off: {args.matches} matches x {args.games} games, pair vs builtin:greedy")
    print(f"  gain in mean rank (honest - colluding): {mean:+.3f} (se {se:.3f})")
    print(f"  outsider's share of wins: honest {w0:.1%}, colluding {w1:.1%}", flush=True)


def _guard_on(args) -> None:
    mean, se, _, _ = pair_gain(
        (["honest", "greedy", "greedy"], ["colluder", "greedy", "greedy"]),
        [0],
        max(10, args.matches // 4),
        args.games,
    )
    print("guard on: each copy at a table of its own with two greedy players")
    print(f"  gain in mean rank: {mean:+.3f} (se {se:.3f})", flush=True)


def _evening(args) -> None:
    field = ["colluder", "colluder", "greedy", "greedy", "greedy", "greedy"]
    report = collusion_report(ladder(field, args.evening, args.games, seed=1))
    pair = next((r for r in report if {r.a, r.b} == {0, 1}), None)
    print(f"report under a waiver: ladder evening of {args.evening} matches, 6 entries")
    if pair is None:
        print("  the copies met too rarely to be tested (fewer than its minimum of tables)")
    else:
        print(
            f"  colluding pair: {pair.tables_together} tables together, effect "
            f"{pair.effect:+.3f} (se {pair.se:.3f}), p {pair.p:.2g}, Holm p "
            f"{pair.p_adjusted:.2g} over {len(report)} pairs: "
            f"{'FLAGGED' if pair.flagged else 'not flagged'}"
        )
    others = [r for r in report if {r.a, r.b} != {0, 1} and r.flagged]
    names = [f"{field[r.a]}#{r.a}+{field[r.b]}#{r.b} (p {r.p_adjusted:.2g})" for r in others]
    print(f"  other pairs flagged: {len(others)} {', '.join(names)}", flush=True)


def _alarms(args) -> None:
    field = ["greedy", "greedy", "greedy", "random", "random", "random"]
    report = collusion_report(ladder(field, args.ladder, args.games, seed=2))
    flagged = sum(r.flagged for r in report)
    smallest = min((r.p_adjusted for r in report), default=1.0)
    print(f"false alarms: ladder of {args.ladder} matches of built-ins (3 greedy, 3 random)")
    print(
        f"  pairs tested {len(report)}, flagged {flagged} "
        f"(false-alarm rate {flagged / max(1, len(report)):.1%}), smallest Holm p "
        f"{smallest:.2g}",
        flush=True,
    )


class Watched:
    """A ladder played table by table under the collusion watch
    (``tournaments.ratings.collusion_watch``): after each table the pairs seated at it
    are looked at, and a flagged pair is kept apart from the next table on."""

    def __init__(self, field: list[str], games: int, seed: int) -> None:
        self.field, self.games, self.seed = field, games, seed
        self.tables: list[SeatedTable] = []
        self.signals: dict = {}
        self.kept_apart: dict[frozenset, int] = {}  # pair: tables shared when flagged
        #: Each entry's think-time processes (``think_times.match_processes``).
        self.processes: dict[int, list] = {}
        #: Whether the watch reads think times (off: as before they existed).
        self.think = True

    def draw(self, m: int) -> list[int]:
        """Three seats drawn at random, drawn again while a kept-apart pair shares them."""
        for attempt in range(1000):
            label = f"bench/collusion/ladder/{m}" + (f"/{attempt}" if attempt else "")
            seated = shuffled(list(range(len(self.field))), self.seed, label)[:3]
            if not any(pair <= set(seated) for pair in self.kept_apart):
                return seated
        raise RuntimeError("the field cannot keep its flagged pairs apart")

    def add(self, seated: list[int], points, games) -> None:
        """Record one table (``games``: (entries at each seat, tally) per game) and look."""
        self.tables.append(SeatedTable(tuple(seated), tuple(points), len(games)))
        for pair, row in soft_play.soft_play(games).items():
            old = self.signals.get(pair)
            if old is not None:
                row = soft_play.SoftPlay(
                    *(x + y for x, y in zip(vars(old).values(), vars(row).values(), strict=True))
                )
            self.signals[pair] = row
        for row in self.rows():
            pair = frozenset((row.a, row.b))
            if row.flagged and pair <= set(seated) and pair not in self.kept_apart:
                self.kept_apart[pair] = row.tables_together

    def profiles(self) -> dict[int, think_times.Profile] | None:
        if not self.think:
            return None
        return {e: think_times.Profile.of(p) for e, p in self.processes.items()}

    def rows(self, min_tables: int = MIN_TABLES):
        """The watch's verdicts on the tables so far."""
        report = collusion_report(self.tables, min_tables=min_tables)
        return collusion_watch(
            report, self.signals, min_tables=min_tables, profiles=self.profiles()
        )

    def play(self, matches: int) -> None:
        for m in range(matches):
            seated = self.draw(m)
            result = _match([self.field[e] for e in seated], self.seed * 100_000 + m, self.games)
            points = game_points([g.__dict__ for g in result.games], 3)
            games = [
                ([seated[p] for p in g.seats], soft_play.game_tally(g.record) or [])
                for g in result.games
            ]
            timed = [
                ([seated[p] for p in g.seats], think_times.seat_times(g.record["traces"], 3))
                for g in result.games
            ]
            spans = rotations(schedule(len(result.games), 3, duplicate=True))
            for entry, found in think_times.match_processes(timed, spans).items():
                self.processes.setdefault(entry, []).extend(found)
            self.add(seated, points, games)


def _watch_sybils(args) -> None:
    field = ["sybil", "sybil", "greedy", "greedy", "greedy", "greedy"]
    watched = Watched(field, args.games, seed=3)
    watched.play(args.watched)
    pair = frozenset((0, 1))
    report = collusion_report(watched.tables)
    row = next((r for r in report if {r.a, r.b} == pair), None)
    shared = row.tables_together if row else 0
    print(f"the watch: ladder evening of {args.watched} matches, two sybils (two accounts,")
    print("  one helper module) and four greedy players, a flagged pair kept apart at once")
    if pair in watched.kept_apart:
        print(f"  sybils flagged and kept apart after {watched.kept_apart[pair]} shared tables")
    else:
        print("  sybils never flagged")
    if row is not None:
        # Game points taken from the outsider beyond the pair's usual share: the
        # effect is a share of the 2 * games comparisons with the outsider a table.
        gain = row.effect * 2 * args.games * shared
        unwatched = args.watched * (3 / 6) * (2 / 5)  # tables a random draw seats both
        print(
            f"  gain over the evening: {gain:+.1f} game points at {shared} shared tables "
            f"(effect {row.effect:+.3f}); unwatched about {unwatched:.0f} shared tables, "
            f"{row.effect * 2 * args.games * unwatched:+.1f} game points"
        )
    think = next((r.p_think for r in watched.rows() if {r.a, r.b} == pair), None)
    if think is not None:
        print(f"  think-time p of the sybils at the end {think:.2g}")
    others = [p for p in watched.kept_apart if p != pair]
    print(f"  other pairs flagged: {len(others)}", flush=True)


def _watch_alarms(args) -> None:
    field = ["greedy", "greedy", "greedy", "random", "random", "random"]
    watched = Watched(field, args.games, seed=2)
    watched.play(args.watched)
    rows = watched.rows()
    smallest = min((r.p_adjusted for r in rows), default=1.0)
    print(f"the watch's false alarms: ladder of {args.watched} matches of built-ins")
    print(
        f"  pairs looked at {len(rows)}, flagged at some look {len(watched.kept_apart)}, "
        f"smallest adjusted p at the end {smallest:.2g}",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
