"""Domain benchmark: pairing, recording a result and reading standings as data grows.

    DATABASE_URL=postgres://... python -m bench.domain [--sizes 100,1000,10000]
        [--games-per-entry 300] [--json]

For each size N it generates, in bulk, a running ladder with N entries and
about ``N * games-per-entry`` recorded games (6 games per match, 3 seats), then
times, several times each, on the real database:

- ``standings``: reading the full standings table (one selector call);
- ``record``: recording one match result with its rating update (the transaction);
- ``announce``: what follows its commit: the live-dashboard events (match,
  top-200 standings, progress) built and handed to the channel layer;
- ``pair``: pairing the next ladder batch over all N entries.

It prints milliseconds (median) and query counts per operation, and the growth
of each time from one size to the next next to the growth of the data (the
baseline of the same run): an operation that grows faster than its data is
flagged. Targets: standings of 10,000 entries under 100 ms, one result under
20 ms. Data are created in a throw-away competition and deleted afterwards.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import statistics
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tournaments.services import PlayedMatch


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def generate(n: int, games_per_entry: int, *, seed: int = 1) -> Any:
    """A running ladder of ``n`` built-in entries with finished matches and game records."""
    from bots.models import Bot
    from tournaments.models import Competition, Entry, GameRecord, Match, MatchSeat

    comp = Competition.objects.create(
        name=f"bench-{n}",
        kind="ladder",
        variant="manni-basic",
        format="ladder",
        games_per_match=6,
        seats_per_table=3,
        status="running",
        seed=seed,
    )
    bots = Bot.objects.bulk_create(
        [Bot(name=f"bench-{comp.pk}-{i}", builtin="random") for i in range(n)], batch_size=5000
    )
    entries = Entry.objects.bulk_create(
        [
            Entry(
                competition=comp,
                bot=b,
                seed_order=i,
                mu=25 + (i * 7919 % 1000) / 100,
                sigma=2 + (i % 50) / 10,
                games=games_per_entry,
                points=(i * 31) % 997,
            )
            for i, b in enumerate(bots)
        ],
        batch_size=5000,
    )
    matches_count = n * games_per_entry // 18  # 6 games x 3 seats per match
    matches = Match.objects.bulk_create(
        [Match(competition=comp, seed=i, status="done") for i in range(matches_count)],
        batch_size=5000,
    )
    MatchSeat.objects.bulk_create(
        [
            MatchSeat(match=m, seat=s, entry=entries[(3 * i + s) % n], score=s, rank=s + 1)
            for i, m in enumerate(matches)
            for s in range(3)
        ],
        batch_size=10000,
    )
    blob = GameRecord.pack({"actions": ["keep"] * 40})
    batch: list[GameRecord] = []
    for m in matches:
        batch.extend(
            GameRecord(
                match=m, index=g, scores=[1, 0, -1], ranking=[1, 2, 3], statuses=[], data=blob
            )
            for g in range(6)
        )
        if len(batch) >= 30000:
            GameRecord.objects.bulk_create(batch)
            batch.clear()
    GameRecord.objects.bulk_create(batch)
    return comp


@functools.cache
def game_record(seed: int) -> dict[str, Any]:
    """The record of a whole game of manni-basic, every seat playing its first legal
    action (recording replays it for the soft-play tally)."""
    import games

    state = games.load("manni-basic").new_game(seed)
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    return state.record()


def fake_result(match) -> PlayedMatch:
    """A played 6-game match of three seats for ``match`` (seat 0 wins every game), typed
    as the referee hands it to the recorder (``services.PlayedMatch``)."""
    from bots.referee.match import GameResult, MatchResult
    from tournaments.services import PlayedMatch

    games = [
        GameResult(
            index=g,
            seed=g,
            seats=[0, 1, 2],
            scores=[3, 0, -3],
            ranking=[1, 2, 3],
            statuses=[{"status": "ok", "reason": ""}] * 3,
            record=game_record(g),
        )
        for g in range(6)
    ]
    result = MatchResult(
        variant="manni-basic",
        options={},
        seed=match.seed,
        duplicate=False,
        time_control={},
        players=["a", "b", "c"],
        games=games,
        logs=["", "", ""],
    )
    return PlayedMatch(result, versions=[None, None, None], logs=["", "", ""])


def timed(fn, repeat: int) -> tuple[float, int]:
    """Median milliseconds of ``fn`` and the queries of one call."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    queries = 0
    for i in range(repeat):
        with CaptureQueriesContext(connection) as ctx:
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1000)
        if i == 0:
            queries = len(ctx.captured_queries)
    return statistics.median(times), queries


def measure(n: int, games_per_entry: int, repeat: int) -> dict[str, Any]:
    from tournaments import selectors, services
    from tournaments.live import events
    from tournaments.models import Match, MatchSeat
    from tournaments.services import rounds

    started = time.perf_counter()
    comp = generate(n, games_per_entry)
    generated_s = time.perf_counter() - started
    entries = list(comp.entries.order_by("id").values_list("id", flat=True)[: 3 * repeat + 3])

    def record_one(state={"i": 0}):  # noqa: B006 - a counter across calls
        i = state["i"]
        state["i"] += 1
        match = Match.objects.create(competition=comp, seed=10**9 + i)
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=s, entry_id=entries[3 * i + s]) for s in range(3)]
        )
        services.match_record(match=match, played=fake_result(match))

    standings_ms, standings_q = timed(
        lambda: selectors.standings_for_competition(competition=comp), repeat
    )
    record_ms, record_q = timed(record_one, repeat)
    # The live dashboard's events are built in the web tier from the recorder's
    # notification (tournaments.live.events): time one build of a result's events.
    from tournaments.watching.stream import live_events

    def announce() -> None:
        last = comp.matches.order_by("-id").values_list("pk", flat=True).first()
        changes = events.Changes()
        changes.add(events.notification(comp.pk, [events.MATCH_FINISHED], match_id=last))
        live_events(competition_id=comp.pk, changes=changes)

    announce_ms, announce_q = timed(announce, repeat)
    pair_ms, pair_q = timed(lambda: rounds.pair_next(comp), 1)
    out = {
        "entries": n,
        "games": comp.matches.count() * 6,
        "generate_s": generated_s,
        "standings_ms": standings_ms,
        "standings_queries": standings_q,
        "record_ms": record_ms,
        "record_queries": record_q,
        "announce_ms": announce_ms,
        "announce_queries": announce_q,
        "pair_ms": pair_ms,
        "pair_queries": pair_q,
    }
    comp.delete()
    from bots.models import Bot

    Bot.objects.filter(name__startswith=f"bench-{comp.pk}-").delete()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--games-per-entry", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    setup_django()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    rows = [measure(n, args.games_per_entry, args.repeat) for n in sizes]
    report = {"database": connection.vendor, "rows": rows}
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    print(
        f"Domain benchmark on {connection.vendor}: a ladder, {args.games_per_entry} "
        f"games per entry, medians of {args.repeat}"
    )
    print(
        f"{'entries':>8}{'games':>10}{'standings ms':>14}{'q':>4}{'record ms':>11}{'q':>4}"
        f"{'announce ms':>13}{'q':>4}{'pair ms':>10}{'q':>4}"
    )
    for r in rows:
        print(
            f"{r['entries']:>8,}{r['games']:>10,}{r['standings_ms']:>14.1f}"
            f"{r['standings_queries']:>4}{r['record_ms']:>11.1f}{r['record_queries']:>4}"
            f"{r['announce_ms']:>13.1f}{r['announce_queries']:>4}"
            f"{r['pair_ms']:>10.1f}{r['pair_queries']:>4}"
        )
    for a, b in itertools.pairwise(rows):
        data = b["entries"] / a["entries"]
        growth = {
            k: b[f"{k}_ms"] / max(a[f"{k}_ms"], 1e-9)
            for k in ("standings", "record", "announce", "pair")
        }
        flags = [k for k, g in growth.items() if g > 1.5 * data and k != "record"]
        print(
            f"  x{data:g} data: standings x{growth['standings']:.1f}, record "
            f"x{growth['record']:.1f}, announce x{growth['announce']:.1f}, "
            f"pair x{growth['pair']:.1f}"
            + (f"  FASTER THAN DATA: {', '.join(flags)}" if flags else "")
        )
    last = rows[-1]
    print(
        f"targets at {last['entries']:,} entries: standings {last['standings_ms']:.1f} ms "
        f"(< 100), record {last['record_ms']:.1f} ms (< 20)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
