"""Replays under load: one long finished game's replay page, and the home page while
anonymous clients ask for that replay in parallel: ``python -m bench.replay``.

Sets up a public competition with one finished Money game of many actions (random
play of ``money-egypt``, seed 6: 3,495 actions), starts the ASGI server
(``tournaments.demo.processes.asgi_server_argv``) on the database of ``DATABASE_URL`` and the
Redis of ``REDIS_URL`` (run it under ``python -m tests.services run --``), and prints:

- the replay page's size and server time, the first time and once more;
- the home page's median and p95 latency alone (the baseline, same run) and while
  ``--clients`` anonymous clients fetch the replay over and over, with the ratio;
- how the replay requests were answered meanwhile (200, 429, 503).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from bench.live import ensure_database, free_port, percentile, start_server, stop

VARIANT, SEED = "money-egypt", 6
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/cardroom_replay"


def long_record() -> dict:
    import games

    game = games.load(VARIANT)
    state, chance = game.new_game(SEED), random.Random(SEED)
    while not state.is_over():
        state.apply(chance.choice(state.legal_actions()))
    return state.record()


def make_game(tag: str) -> int:
    """A public competition with one finished match holding the long game; its game id."""
    import games
    from bots.models import Bot
    from tournaments import services
    from tournaments.models import GameRecord, Match

    competition = services.competition_create(
        created_by=None,
        name=f"bench-replay-{tag}",
        kind="tournament",
        variant=VARIANT,
        format="round-robin",
        games_per_match=1,
        duplicate=False,
        is_public=True,
    )
    for i in range(2):
        bot = Bot.objects.create(name=f"bench-replay-{tag}-{i}", builtin="random")
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)  # nothing is played
    match = competition.matches.order_by("id").first()
    record = long_record()
    state = games.replay(record)
    game = GameRecord.objects.create(
        match=match,
        index=0,
        scores=state.scores(),
        ranking=state.ranking(),
        data=GameRecord.pack(record),
    )
    Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
    return game.pk


def fetch(url: str) -> tuple[int, int, float]:
    """(status, bytes, seconds) of one GET."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            body = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        body, status = error.read(), error.code
    return status, len(body), time.perf_counter() - started


def home_latencies(url: str, seconds: float) -> list[float]:
    times, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        times.append(fetch(url)[2] * 1000)
        time.sleep(0.05)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16, help="parallel anonymous replays")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each phase")
    args = parser.parse_args(argv)

    database_url = os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)
    ensure_database(database_url)
    os.environ.update(DATABASE_URL=database_url, CARDROOM_CHANNEL_LAYER="memory")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", interactive=False, verbosity=0)
    game_id = make_game(uuid.uuid4().hex[:8])
    connections.close_all()

    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "CARDROOM_SERVE_STATIC": "1"}
    env["CARDROOM_CACHE_PREFIX"] = f"bench-replay-{uuid.uuid4().hex[:8]}"
    base = f"http://127.0.0.1:{port}"
    replay, home = f"{base}/dashboard/games/{game_id}/", f"{base}/"
    server = start_server(env, port, Path(tempfile.mkdtemp(prefix="bench-replay-")) / "log")
    try:
        first = fetch(replay)
        again = fetch(replay)
        alone = home_latencies(home, args.seconds)
        answers: list[int] = []
        stop_flag = threading.Event()

        def client() -> None:
            while not stop_flag.is_set():
                answers.append(fetch(replay)[0])

        threads = [threading.Thread(target=client, daemon=True) for _ in range(args.clients)]
        for thread in threads:
            thread.start()
        loaded = home_latencies(home, args.seconds)
        stop_flag.set()
        for thread in threads:
            thread.join(timeout=180)
    finally:
        stop(server)
    median_alone, median_loaded = statistics.median(alone), statistics.median(loaded)
    print(f"replay of game {game_id} ({VARIANT} seed {SEED})")
    print(f"  first view:  HTTP {first[0]}, {first[1] / 1e6:.2f} MB, {first[2] * 1000:.0f} ms")
    print(f"  second view: HTTP {again[0]}, {again[1] / 1e6:.2f} MB, {again[2] * 1000:.0f} ms")
    print(
        f"home page alone: median {median_alone:.0f} ms, "
        f"p95 {percentile(alone, 0.95):.0f} ms ({len(alone)} requests)"
    )
    print(
        f"home page with {args.clients} anonymous replays in parallel: median "
        f"{median_loaded:.0f} ms, p95 {percentile(loaded, 0.95):.0f} ms ({len(loaded)} requests)"
    )
    print(f"  ratio (median, loaded / alone): {median_loaded / median_alone:.1f}")
    counts = {status: answers.count(status) for status in sorted(set(answers))}
    print(f"  replay answers meanwhile: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
