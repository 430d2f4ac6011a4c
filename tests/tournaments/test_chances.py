"""The soft-play tallies counted off the match's hot path (tournaments/integrity/chances.py): a
match is recorded without them, and the collusion report, the watch and the background
task count them from the stored records, the same as counting them at recording did."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tournaments import selectors, services
from tournaments.integrity import chances
from tournaments.models import GameRecord, Match
from tournaments.ratings import soft_play
from tournaments.selectors import fair_play
from tournaments.worker import tasks

pytestmark = pytest.mark.django_db


def _competition(organiser, *, variant="manni-basic", games=3, entries=3, **extra):
    comp = services.competition_create(
        created_by=organiser, name="Tallies", kind="tournament", variant=variant,
        format="round-robin", games_per_match=games, seed=3, **extra,
    )  # fmt: skip
    for i in range(entries):
        bot = Bot.objects.create(name=f"greedy-{i}", builtin="greedy" if i % 2 else "random")
        services.entry_create(competition=comp, bot=bot)
    services.competition_start(competition=comp, send=None)
    return comp


def _play_round(comp) -> None:
    for match in comp.matches.filter(status=Match.Status.PENDING):
        assert services.match_record(
            match=match, played=services.match_play(match=match), send=None
        )


def _records(comp):
    return list(GameRecord.objects.filter(match__competition=comp).order_by("pk"))


def test_a_match_is_recorded_without_tallies_and_the_report_counts_them_as_recording_did(
    organiser,
):
    comp = _competition(organiser)
    _play_round(comp)
    assert _records(comp) and all(r.chances is None for r in _records(comp))

    tables, _ = fair_play._collusion_tables(comp)
    signals = selectors.soft_play_of_competition(competition=comp, tables=tables)

    records = _records(comp)
    assert all(r.chances == soft_play.game_tally(r.record()) for r in records)
    assert any(r.chances for r in records)  # greedy and random let chances go
    assert signals and any(s.chances for s in signals.values())
    again = selectors.soft_play_of_competition(competition=comp, tables=tables)
    assert again == signals  # counted once: read as stored the second time


def test_the_background_task_counts_what_is_left_once(organiser):
    comp = _competition(organiser)
    _play_round(comp)
    uncounted = len(_records(comp))

    assert tasks.chances_count(comp.pk) == uncounted
    assert tasks.chances_count(comp.pk) == 0
    assert all(r.chances == soft_play.game_tally(r.record()) for r in _records(comp))
    assert chances.count(competition=comp, limit=5) == 0


def test_a_limited_count_takes_the_oldest_games_first(organiser):
    comp = _competition(organiser)
    _play_round(comp)
    assert chances.count(competition=comp, limit=2) == 2
    records = _records(comp)
    assert [r.chances is not None for r in records] == [True, True, False]


def test_two_seat_games_keep_no_tally(organiser):
    comp = _competition(
        organiser, variant="money-jordan", games=2, entries=2, options={"money.max_plays": 60}
    )
    _play_round(comp)
    assert tasks.chances_count(comp.pk) == 0
    assert all(r.chances is None for r in _records(comp))


def test_the_watch_sees_each_batch_counted_before_the_next_is_paired(organiser):
    """A public ladder's watch looks at the batch just played when it pairs the next: its
    games are counted by then, without a worker or the background task."""
    comp = services.competition_create(
        created_by=organiser, name="Ladder night", kind="ladder", variant="manni-basic",
        format="ladder", games_per_match=3, seed=7, is_public=True,
    )  # fmt: skip
    for i in range(6):
        services.entry_create(
            competition=comp, bot=Bot.objects.create(name=f"g-{i}", builtin="greedy")
        )
    services.competition_start(competition=comp, send=None)
    for match in comp.matches.filter(round__number=1):
        assert services.match_record(
            match=match, played=services.match_play(match=match), send=None
        )

    assert comp.rounds.filter(number=2).exists()  # the next batch is paired
    first = GameRecord.objects.filter(match__competition=comp, match__round__number=1)
    assert first.exists() and not first.filter(chances__isnull=True).exists()
