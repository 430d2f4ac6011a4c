"""Recording on the real PostgreSQL: a handful of statements, exact ratings under concurrency.

Set ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` to run these.
"""

from __future__ import annotations

import itertools
import random
import threading
import uuid

import pytest
from django.db import connection

from bots.models import Bot
from tests.tournaments.test_tasks import SERVICES, assert_ratings_equal_a_recompute
from tournaments import execution, services
from tournaments.models import Competition, Match, MatchSeat, RatingEvent
from tournaments.services import PlayedMatch

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]


def tournament(entries: int, games: int = 1, fmt: str = "round-robin") -> Competition:
    comp = services.competition_create(
        created_by=None,
        name="Recording night",
        kind="tournament",
        variant="money-jordan",
        format=fmt,
        games_per_match=games,
        duplicate=False,
    )
    for i in range(entries):
        bot = Bot.objects.create(name=f"rec-{uuid.uuid4().hex[:8]}-{i}", builtin="random")
        services.entry_create(competition=comp, bot=bot)
    return comp


def test_claiming_playing_and_recording_a_one_game_match_takes_at_most_12_queries(
    django_assert_max_num_queries,
):
    comp = tournament(entries=4)
    first, second = execution.competition_launch(competition=comp, send=None)

    with django_assert_max_num_queries(12):
        outcome = execution.match_execute(match_id=first.pk, claimed_by="host/1/t", send=None)

    assert outcome == execution.RECORDED
    first.refresh_from_db()
    assert first.status == Match.Status.DONE and first.claimed_by == "host/1/t"
    assert first.game_records.count() == 1 and first.rating_events.count() == 2
    assert sorted(first.seats.values_list("rank", flat=True)) in ([1, 2], [1, 1])
    assert Match.objects.get(pk=second.pk).status == Match.Status.PENDING  # untouched


def test_the_claim_is_one_statement_and_a_second_claim_gets_nothing(django_assert_num_queries):
    comp = tournament(entries=2)
    (match,) = execution.competition_launch(competition=comp, send=None)

    with django_assert_num_queries(1):
        claimed = execution.match_claim(match_id=match.pk, claimed_by="host/1/a")
    with django_assert_num_queries(1):
        again = execution.match_claim(match_id=match.pk, claimed_by="host/2/b")

    assert claimed is not None and claimed.status == Match.Status.RUNNING
    assert claimed.claimed_by == "host/1/a" and claimed.attempts == 1
    assert claimed.lease_until is not None and again is None


def test_a_result_is_a_typed_object_and_a_result_that_does_not_fit_changes_nothing():
    comp = tournament(entries=3)
    match = execution.competition_launch(competition=comp, send=None)[0]
    played = services.match_play(match=match)
    assert isinstance(played, PlayedMatch) and len(played.result.games) == 1
    assert played.versions == [None, None]

    played.result.players.append("a ghost")  # three players for a two-seat match
    with pytest.raises(services.ValidationError):
        services.match_record_result(match=match, result=played)
    match.refresh_from_db()
    assert match.status == Match.Status.PENDING
    assert not match.game_records.exists() and not RatingEvent.objects.exists()


def test_ratings_recorded_concurrently_equal_a_recompute_in_sequence_order():
    """Four threads record 40 results of six entries that share entries all the time."""
    comp = tournament(entries=6)
    comp.status = Competition.Status.RUNNING
    comp.save(update_fields=["status"])
    entries = list(comp.entries.values_list("pk", flat=True))
    rng = random.Random(7)
    played = []
    for i in range(40):
        match = Match.objects.create(
            competition=comp, seed=i, status=Match.Status.RUNNING, claimed_by="bench"
        )
        pair = rng.sample(entries, 2)
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=s, entry_id=e) for s, e in enumerate(pair)]
        )
        match = Match.objects.select_related("competition").get(pk=match.pk)
        played.append((match, services.match_play(match=match)))
    errors: list[BaseException] = []

    def record(share: list) -> None:
        try:
            for match, result in share:
                assert services.match_record_played(match=match, played=result, claimed_by="bench")
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=record, args=(played[k::4],)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors, errors
    comp.refresh_from_db()
    assert comp.rating_sequence == 40
    sequences = sorted(set(RatingEvent.objects.values_list("sequence", flat=True)))
    assert sequences == list(range(1, 41))
    assert_ratings_equal_a_recompute(comp)
    # Each entry's history is a chain: every update starts where the previous one ended.
    for entry in entries:
        chain = list(
            RatingEvent.objects.filter(entry_id=entry)
            .order_by("sequence")
            .values_list("mu_before", "sigma_before", "mu_after", "sigma_after")
        )
        for before, after in itertools.pairwise(chain):
            assert (after[0], after[1]) == (before[2], before[3])


def test_a_round_whose_last_recorder_died_before_closing_it_is_closed_by_the_reaper():
    comp = tournament(entries=4)
    first, second = execution.competition_launch(competition=comp, send=None)
    for match in (first, second):  # recorded, but nobody got to close the round
        match = Match.objects.select_related("competition").get(pk=match.pk)
        services.match_record_played(match=match, played=services.match_play(match=match))
    assert comp.rounds.get(number=1).status == "running"
    sent: list[int] = []

    execution.matches_reap(send=sent.extend)

    assert comp.rounds.get(number=1).status == "finished"
    second_round = comp.rounds.get(number=2)
    assert sorted(sent) == sorted(second_round.matches.values_list("pk", flat=True))
    assert execution.matches_reap(send=sent.extend).enqueued == []  # closed once
