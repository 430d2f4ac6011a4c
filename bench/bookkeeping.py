"""Where a match's bookkeeping time goes: ``bench.bulk``'s breakdown of a direct run.

A competition of its own (``--breakdown-entries``, the same variant and games) is played
here as ``bench.bulk``'s direct run plays it, each round's matches as one list
(:func:`play_list`), each round first by the referee alone, with timers around the steps
of a list played a batch at a time (``tournaments.worker.batches``): the batch's claim
(one statement), the play (the referee with the match's watchers, and the seating around
it), the recording (its game rows, the rating math, the batch's one statement, the
round's closing and the rest), what is left (fair share, metrics, the live publisher)
and the list's own reads between batches. Each step's wall time and this process's CPU
time, per match; the timers cost about a microsecond a step. With
``CARDROOM_RECORD_BATCH=1`` (one match at a time) only the match and the referee alone
are timed.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

#: (module, attribute, step): the functions timed, each where its caller looks it up (a
#: dotted attribute is a class's method).
STEPS = (
    ("tournaments.worker.lists", "matches_execute", "list"),
    ("tournaments.worker.lists", "_play_batch", "batch"),
    ("tournaments.worker.batches", "matches_claim_with_seats", "claim"),
    ("tournaments.worker.execution", "Run.play", "play"),
    ("tournaments.services.play", "play_match", "referee in the match"),
    ("tournaments.worker.batches", "Recorder.add", "keep"),
    ("tournaments.worker.batches", "Recorder.flush", "flush"),
    ("tournaments.services.record", "_game_rows", "game rows"),
    ("tournaments.services.record_many", "rating_rows", "rating math"),
    ("tournaments.services.record_many", "_store", "statement"),
    ("tournaments.services.record", "round_close_if_complete", "round closing"),
)


@contextlib.contextmanager
def timed(wall: Counter, cpu: Counter, calls: Counter) -> Iterator[None]:
    """Timers around :data:`STEPS` while the block runs (the originals put back after)."""
    saved = []
    for module_name, dotted, step in STEPS:
        module = importlib.import_module(module_name)
        *path, name = dotted.split(".")
        for part in path:
            module = getattr(module, part)
        original = getattr(module, name)

        def timer(*args: Any, __f=original, __step=step, **kwargs: Any) -> Any:
            started, used = time.perf_counter(), time.thread_time()
            try:
                return __f(*args, **kwargs)
            finally:
                wall[__step] += time.perf_counter() - started
                cpu[__step] += time.thread_time() - used
                calls[__step] += 1

        saved.append((module, name, original))
        setattr(module, name, timer)
    try:
        yield
    finally:
        for module, name, original in reversed(saved):
            setattr(module, name, original)


def measure(args, new_competition) -> dict[str, Any]:
    """The breakdown (see the module docstring): per step ``ms`` (wall) and ``cpu_ms``
    a match, and ``referee_ms``, the same matches played by the referee alone."""
    from django.db.models import Count

    from bots.referee import TimeControl, play_match
    from bots.referee.seating import seat_player
    from tournaments import services
    from tournaments.models import Match

    comp = new_competition(args, "breakdown")
    tc = TimeControl(move_ms=comp.move_ms, bank_ms=max(1, comp.bank_ms))
    wall: Counter = Counter()
    cpu: Counter = Counter()
    calls: Counter = Counter()
    services.competition_start(competition=comp, send=None)
    with timed(wall, cpu, calls):
        while tables := list(
            comp.matches.filter(status=Match.Status.PENDING)
            .annotate(seats_count=Count("seats"))
            .order_by("id")
            .values_list("pk", "seed", "seats_count")
        ):
            for _, seed, seats in tables:
                started, used = time.perf_counter(), time.thread_time()
                players = [seat_player(builtin="random", seed=seed, seat=s) for s in range(seats)]
                play_match(
                    comp.variant, players, games_count=comp.games_per_match, seed=seed,
                    options=comp.options, duplicate=comp.duplicate, time_control=tc,
                )  # fmt: skip
                wall["referee alone"] += time.perf_counter() - started
                cpu["referee alone"] += time.thread_time() - used
            play_list([match_id for match_id, _, _ in tables], claimed_by="bench-parts")
    # (one at a time, CARDROOM_RECORD_BATCH=1, the batch's steps are not timed: 0)
    matches = comp.matches.filter(status=Match.Status.DONE).count()
    for counter in (wall, cpu):
        counter["record"] = counter["keep"] + counter["flush"]
    per = {step: 1000 * wall[step] / matches for step in wall}
    per_cpu = {step: 1000 * cpu[step] / matches for step in cpu}
    steps = {
        "claim (a batch in one statement)": "claim",
        "watchers and seating": ("play", "referee alone"),
        "game rows (records packed)": "game rows",
        "rating math": "rating math",
        "recording statement (a batch in one)": "statement",
        "round closing (pairing the next)": "round closing",
        "rest of the recording": (
            "record",
            "game rows",
            "rating math",
            "statement",
            "round closing",
        ),  # fmt: skip
        "fair share, metrics, live": ("batch", "play", "keep"),
        "the list (its reads between batches)": ("list", "batch", "claim", "flush"),
    }

    def value(of: dict[str, float], spec) -> float:
        if isinstance(spec, str):
            return of.get(spec, 0.0)
        first, *minus = spec
        return of.get(first, 0.0) - sum(of.get(m, 0.0) for m in minus)

    return {
        "matches": matches,
        "games_per_match": comp.games_per_match,
        "referee_ms": per["referee alone"],
        "referee_cpu_ms": per_cpu["referee alone"],
        "match_ms": per["list"],
        "match_cpu_ms": per_cpu["list"],
        "referee_in_match_ms": per.get("referee in the match", 0.0),
        "steps": {
            name: {"ms": value(per, spec), "cpu_ms": value(per_cpu, spec)}
            for name, spec in steps.items()
        },
        "round_closings": calls["round closing"],
        "batches": calls["statement"],
    }


def play_list(match_ids: list[int], *, claimed_by: str) -> None:
    """Play ``match_ids`` (a round's waiting matches) as one list, as a worker's
    ``tournaments.matches_run`` task does (``lists.matches_execute``: each match
    claimed in the round trip that records the one before it), here without Celery."""
    from tournaments.worker import lists

    def fault(match_id: int, fault: Exception) -> None:
        raise fault

    lists.matches_execute(
        match_ids=match_ids, start=0, claimed_by=claimed_by, on_fault=fault, budget_s=3600,
        send=None,
    )  # fmt: skip


def report(b: dict[str, Any]) -> None:
    """Print the breakdown of :func:`measure`."""
    books = b["match_ms"] - b["referee_ms"]
    print(
        f"  where a {b['games_per_match']}-game match's time goes (direct, {b['matches']}"
        f" matches, ms a match, wall (CPU of this process); the referee alone first):"
    )
    alone = "referee alone (the same match)"
    print(f"    {alone:<34} {b['referee_ms']:6.3f} ({b['referee_cpu_ms']:.3f})")
    print(
        f"    {'the match, direct':<34} {b['match_ms']:6.3f} ({b['match_cpu_ms']:.3f});"
        f" its referee, watched, {b['referee_in_match_ms']:.3f}"
    )
    for name, step in b["steps"].items():
        share = 100 * step["ms"] / b["match_ms"] if b["match_ms"] else 0.0
        print(f"      {name:<32} {step['ms']:6.3f} ({step['cpu_ms']:.3f})  {share:4.1f} %")
    if b.get("batches"):
        print(
            f"    {b['matches']} matches recorded in {b['batches']} statements"
            f" ({b['matches'] / b['batches']:.1f} a statement), {b['round_closings']}"
            " round closings"
        )
    print(
        f"    bookkeeping (the match less the referee alone) {books:.3f} ms,"
        f" {100 * books / b['match_ms']:.0f} % of the match; direct / referee here"
        f" {b['referee_ms'] / b['match_ms']:.2f}"
    )
