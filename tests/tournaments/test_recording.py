"""Recording on the real PostgreSQL: a handful of statements, exact ratings under concurrency.

Set ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` to run these.
"""

from __future__ import annotations

import itertools
import random
import threading
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.db import OperationalError, connection, transaction

from bots.models import Bot
from tests.workers import SERVICES, assert_ratings_equal_a_recompute
from tournaments import services
from tournaments.models import Competition, Match, MatchSeat, RatingEvent, Round
from tournaments.services import PlayedMatch, record, rounds
from tournaments.services import record_statements as recording
from tournaments.worker import execution

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


def test_claiming_playing_and_recording_a_one_game_match_takes_2_statements(
    django_assert_num_queries,
):
    """The claim (which reads the seats to play) and the recording statement, each a
    transaction of its own; the round's other match waits, so the round needs no check."""
    comp = tournament(entries=4)
    first, second = services.competition_start(competition=comp, send=None)

    with django_assert_num_queries(2):
        outcome = execution.match_execute(match_id=first.pk, claimed_by="host/1/t", send=None)

    assert outcome == execution.RECORDED
    first.refresh_from_db()
    assert first.status == Match.Status.DONE and first.claimed_by == "host/1/t"
    assert first.game_records.count() == 1 and first.rating_events.count() == 2
    assert sorted(first.seats.values_list("rank", flat=True)) in ([1, 2], [1, 1])
    assert Match.objects.get(pk=second.pk).status == Match.Status.PENDING  # untouched


@pytest.mark.parametrize("claimed", [True, False], ids=["one statement", "two statements"])
def test_recording_writes_every_seat_game_and_rating(django_assert_num_queries, claimed):
    """From the claim (the entries' ratings known): one statement, its own transaction,
    which sees the round's other match waiting. Without them: ``BEGIN``, the match with
    its games and seats, the ratings, ``COMMIT``, then the round checked (still open)."""
    comp = tournament(entries=4, games=3)
    match, _ = services.competition_start(competition=comp, send=None)
    match, seats = execution.match_claim_with_seats(match_id=match.pk, claimed_by="host/1/a")
    if not claimed:
        match = Match.objects.select_related("competition").get(pk=match.pk)
        seats = None
    played = services.match_play(match=match, claimed_seats=seats)

    with django_assert_num_queries(1 if claimed else 5):
        recorded = services.match_record(
            match=match, played=played, claimed_by="host/1/a", claimed_seats=seats
        )

    assert recorded
    standings = played.result.standings()
    seats = list(match.seats.order_by("seat"))
    assert [s.score for s in seats] == [row["score"] for row in standings]
    assert [s.wins for s in seats] == [row["wins"] for row in standings]
    assert [s.statuses for s in seats] == [row["statuses"] for row in standings]
    assert [s.log for s in seats] == [log[-8_000:] for log in played.logs]
    assert sorted(s.rank for s in seats) in ([1, 2], [1, 1])
    assert sum(s.points for s in seats) == pytest.approx(3.0)
    records = list(match.game_records.order_by("index"))
    assert [r.index for r in records] == [g.index for g in played.result.games]
    assert [r.scores for r in records] == [g.scores for g in played.result.games]
    assert records[0].record() == played.result.games[0].record
    entries = {e.pk: e for e in comp.entries.all()}
    for event in RatingEvent.objects.filter(match=match):
        entry = entries[event.entry_id]
        assert (entry.mu, entry.sigma, entry.games) == (event.mu_after, event.sigma_after, 3)
        assert (event.mu_before, event.sigma_before, event.sequence) == (25.0, 25.0 / 3, 1)
    assert sum(e.points for e in entries.values()) == pytest.approx(1.0)


def test_a_refused_recording_writes_nothing():
    comp = tournament(entries=2)
    (match,) = services.competition_start(competition=comp, send=None)
    match = execution.match_claim(match_id=match.pk, claimed_by="host/1/a")
    played = services.match_play(match=match)

    assert services.match_record(match=match, played=played, claimed_by="host/2/b") is False

    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING
    assert not match.game_records.exists() and not RatingEvent.objects.exists()
    assert set(match.seats.values_list("rank", flat=True)) == {None}
    assert set(comp.entries.values_list("games", flat=True)) == {0}


def test_the_claim_is_one_statement_and_a_second_claim_gets_nothing(django_assert_num_queries):
    comp = tournament(entries=2)
    (match,) = services.competition_start(competition=comp, send=None)

    with django_assert_num_queries(1):
        claimed = execution.match_claim(match_id=match.pk, claimed_by="host/1/a")
    with django_assert_num_queries(1):
        again = execution.match_claim(match_id=match.pk, claimed_by="host/2/b")

    assert claimed is not None and claimed.status == Match.Status.RUNNING
    assert claimed.claimed_by == "host/1/a" and claimed.attempts == 1
    assert claimed.lease_until is not None and again is None


def test_a_result_is_a_typed_object_and_a_result_that_does_not_fit_changes_nothing():
    comp = tournament(entries=3)
    match = services.competition_start(competition=comp, send=None)[0]
    played = services.match_play(match=match)
    assert isinstance(played, PlayedMatch) and len(played.result.games) == 1
    assert played.versions == [None, None]

    with pytest.raises(TypeError, match="must be a PlayedMatch, not dict"):
        services.match_record(match=match, played=played.result.to_json())
    played.result.players.append("a ghost")  # three players for a two-seat match
    with pytest.raises(ValidationError):
        services.match_record(match=match, played=played)
    match.refresh_from_db()
    assert match.status == Match.Status.PENDING
    assert not match.game_records.exists() and not RatingEvent.objects.exists()


@pytest.mark.parametrize("claimed", [True, False], ids=["rated as claimed", "rated as locked"])
def test_ratings_recorded_concurrently_equal_a_recompute_in_sequence_order(claimed):
    """Four threads record 40 results of six entries that share entries all the time.

    Claimed first, every match carries the ratings its entries had at the start, which
    all but the first results of each entry find changed: they are rated again from
    the locked ratings, and the history stays one chain per entry."""
    comp = tournament(entries=6)
    comp.status = Competition.Status.RUNNING
    comp.save(update_fields=["status"])
    entries = list(comp.entries.values_list("pk", flat=True))
    rng = random.Random(7)
    played = []
    for i in range(40):
        match = Match.objects.create(
            competition=comp,
            seed=i,
            status=Match.Status.QUEUED if claimed else Match.Status.RUNNING,
            claimed_by="" if claimed else "bench",
        )
        pair = rng.sample(entries, 2)
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=s, entry_id=e) for s, e in enumerate(pair)]
        )
        seats = None
        if claimed:
            match, seats = execution.match_claim_with_seats(match_id=match.pk, claimed_by="bench")
            assert [s.entry_id for s in seats] == pair
        else:
            match = Match.objects.select_related("competition").get(pk=match.pk)
        played.append((match, seats, services.match_play(match=match, claimed_seats=seats)))
    errors: list[BaseException] = []

    def record(share: list) -> None:
        try:
            for match, seats, result in share:
                assert services.match_record(
                    match=match, played=result, claimed_by="bench", claimed_seats=seats
                )
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


def test_a_result_rated_from_claimed_ratings_that_changed_is_rated_again_from_the_stored_ones(
    django_assert_num_queries,
):
    """Two matches of one entry claimed together: the second recorded finds the entry's
    rating changed by the first, writes nothing in its first statement and is rated from
    the rating the first left (``BEGIN``, two statements, ``COMMIT``)."""
    comp = tournament(entries=3)
    comp.status = Competition.Status.RUNNING
    comp.save(update_fields=["status"])
    a, b, c = comp.entries.order_by("pk")
    claimed = []
    for i, pair in enumerate([(a, b), (a, c)]):
        match = Match.objects.create(competition=comp, seed=i, status=Match.Status.QUEUED)
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=s, entry=e) for s, e in enumerate(pair)]
        )
        claimed.append(execution.match_claim_with_seats(match_id=match.pk, claimed_by="host/1/a"))
    (first, first_seats), (second, second_seats) = claimed
    results = [services.match_play(match=m, claimed_seats=s) for m, s in claimed]
    assert services.match_record(
        match=first, played=results[0], claimed_by="host/1/a", claimed_seats=first_seats
    )

    with django_assert_num_queries(5):
        assert services.match_record(
            match=second, played=results[1], claimed_by="host/1/a", claimed_seats=second_seats
        )

    a.refresh_from_db()
    after_first = RatingEvent.objects.get(match=first, entry=a)
    after_second = RatingEvent.objects.get(match=second, entry=a)
    assert (after_second.mu_before, after_second.sigma_before) == (
        after_first.mu_after,
        after_first.sigma_after,
    )
    assert (a.mu, a.sigma, a.games) == (after_second.mu_after, after_second.sigma_after, 2)
    assert [after_first.sequence, after_second.sequence] == [1, 2]
    assert_ratings_equal_a_recompute(comp)


def test_the_last_result_of_a_round_closes_it_without_asking_whether_it_is_complete(
    django_assert_max_num_queries,
):
    comp = tournament(entries=4)
    first, second = services.competition_start(competition=comp, send=None)
    execution.match_execute(match_id=first.pk, claimed_by="host/1/t", send=None)
    queries: list[str] = []

    def watch(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        execution.match_execute(match_id=second.pk, claimed_by="host/1/t", send=None)

    assert comp.rounds.get(number=1).status == "finished"
    assert comp.rounds.get(number=2).matches.count() == 2
    assert not any(q.startswith('SELECT 1 AS "a"') or '%s AS "a"' in q for q in queries)


def test_a_result_recorded_while_the_rounds_other_match_runs_checks_the_round_after_commit():
    """Two workers hold the last two matches of a round: each result sees the other match
    running, so each checks the round once committed; the second to commit closes it."""
    comp = tournament(entries=4)
    first, second = services.competition_start(competition=comp, send=None)
    held = [execution.match_claim_with_seats(match_id=m.pk, claimed_by=f"host/{i}/t")
            for i, m in enumerate((first, second))]  # fmt: skip
    results = [services.match_play(match=m, claimed_seats=s) for m, s in held]

    for i, ((match, seats), played) in enumerate(zip(held, results, strict=True)):
        assert services.match_record(
            match=match, played=played, claimed_by=f"host/{i}/t", claimed_seats=seats, send=None
        )
        if i == 0:
            assert comp.rounds.get(number=1).status == "running"

    assert comp.rounds.get(number=1).status == "finished"
    assert comp.rounds.get(number=2).matches.count() == 2


def recorded_by_recorders_that_die_before_closing(monkeypatch, matches) -> None:
    """Record each of ``matches`` by a recorder that dies (its connection lost) once the
    result has committed, before it closes the round: nobody gets to close it."""

    def die(**kwargs):
        raise OperationalError("the connection was lost before the round was closed")

    with monkeypatch.context() as patched:
        patched.setattr(record, "round_close_if_complete", die)
        for match in matches:
            match = Match.objects.select_related("competition").get(pk=match.pk)
            with pytest.raises(OperationalError, match="before the round was closed"):
                services.match_record(match=match, played=services.match_play(match=match))


def test_a_round_whose_last_recorder_died_before_closing_it_is_closed_by_the_reaper(
    monkeypatch,
):
    comp = tournament(entries=4)
    first, second = services.competition_start(competition=comp, send=None)
    recorded_by_recorders_that_die_before_closing(monkeypatch, (first, second))
    assert comp.rounds.get(number=1).status == "running"
    assert not comp.matches.exclude(status=Match.Status.DONE).exists()
    sent: list[int] = []

    execution.matches_reap(send=sent.extend)

    assert comp.rounds.get(number=1).status == "finished"
    second_round = comp.rounds.get(number=2)
    assert sorted(sent) == sorted(second_round.matches.values_list("pk", flat=True))
    assert execution.matches_reap(send=sent.extend).enqueued == []  # closed once


def test_a_second_closer_of_a_round_leaves_it_to_the_first_without_waiting(monkeypatch):
    """The round's two last results both see it complete. While the first recorder closes it
    (pairing the next round under the round's lock) the second returns at once instead of
    waiting for that commit; when the first fails, the reaper closes the round."""
    comp = tournament(entries=4)
    first, second = services.competition_start(competition=comp, send=None)
    # Recorded, not closed: the closing is what this test is about.
    recorded_by_recorders_that_die_before_closing(monkeypatch, (first, second))
    round_id = comp.rounds.get(number=1).pk
    closing, failed = threading.Event(), threading.Event()

    def first_closer() -> None:
        try:
            with transaction.atomic():  # its guarded update, then it is pairing
                assert Round.objects.filter(pk=round_id, status="running").update(status="finished")
                closing.set()
                failed.wait(30)
                raise RuntimeError("the first closer fails while it pairs")
        except RuntimeError:
            pass
        finally:
            connection.close()

    thread = threading.Thread(target=first_closer)
    thread.start()
    assert closing.wait(30)

    second_closing = services.round_close_if_complete(
        competition=comp, round_id=round_id, known_complete=True
    )

    first_still_closing = thread.is_alive()
    failed.set()
    thread.join(30)
    assert second_closing is None and first_still_closing  # it did not wait for the first
    assert comp.rounds.get(number=1).status == "running"  # the first rolled back
    sent: list[int] = []
    execution.matches_reap(send=sent.extend)
    assert comp.rounds.get(number=1).status == "finished"
    assert sorted(sent) == sorted(comp.rounds.get(number=2).matches.values_list("pk", flat=True))


def test_a_result_is_recorded_while_another_worker_pairs_but_a_second_pairer_and_a_pause_wait():
    """Pairing a round takes a while (about 8 ms for 46 entries); recording a result, which
    updates the competition's rating sequence, goes on meanwhile. Another pairing of the
    same competition, and a status change such as a pause, still wait for it."""
    comp = tournament(entries=4)
    first, _ = services.competition_start(competition=comp, send=None)
    match, seats = execution.match_claim_with_seats(match_id=first.pk, claimed_by="host/1/t")
    played = services.match_play(match=match, claimed_seats=seats)
    pairing, release = threading.Event(), threading.Event()

    def pairer() -> None:
        try:
            with transaction.atomic():
                rounds.locked_for_pairing(comp.pk)
                pairing.set()
                release.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=pairer)
    thread.start()
    assert pairing.wait(30)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '3s'")
        recorded = services.match_record(
            match=match, played=played, claimed_by="host/1/t", claimed_seats=seats, send=None
        )
        for wait in (
            lambda: rounds.locked_for_pairing(comp.pk),
            lambda: services.competition_pause(competition=comp),
        ):
            with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '200ms'")
                wait()
        still_pairing = thread.is_alive()
    finally:
        release.set()
        thread.join(30)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")

    assert recorded and still_pairing
    assert Match.objects.get(pk=first.pk).status == Match.Status.DONE
    assert RatingEvent.objects.filter(match_id=first.pk).count() == 2
    with transaction.atomic():  # the pairing is over: the next one goes at once
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '1s'")
        assert rounds.locked_for_pairing(comp.pk).status == Competition.Status.RUNNING


def test_a_recording_whose_commit_was_lost_leaves_the_match_to_be_played_again_the_same(
    monkeypatch,
):
    """The worker's commits do not wait for the disk (synchronous_commit off): a result
    lost with its commit must leave the match held under its lease, to be replayed."""
    comp = tournament(entries=2)
    (match,) = services.competition_start(competition=comp, send=None)
    lost: list[tuple[str, list]] = []
    store = recording.match_store_rated

    def store_then_lose_the_commit(**kwargs):
        """The recording statement, its own transaction, whose commit is then lost."""
        with connection.cursor() as cursor:
            cursor.execute("BEGIN")  # hold the statement's transaction open
        store(**kwargs)
        with connection.cursor() as cursor:  # what the commit would have been
            cursor.execute("SHOW synchronous_commit")
            lost.append((cursor.fetchone()[0], kwargs["games"]))
            cursor.execute("ROLLBACK")
        raise OperationalError("server closed the connection before the commit returned")

    with connection.cursor() as cursor:  # the server's own (a test cluster may have it off)
        cursor.execute("SHOW synchronous_commit")
        (session_setting,) = cursor.fetchone()
    monkeypatch.setattr(recording, "match_store_rated", store_then_lose_the_commit)
    with pytest.raises(execution.InfrastructureFault):
        execution.match_execute(match_id=match.pk, claimed_by="host/1/a", send=None, lease_s=0)
    monkeypatch.undo()

    ((setting, games),) = lost
    assert setting == "off"
    with connection.cursor() as cursor:  # only that transaction: the session keeps its setting
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == session_setting
    held = Match.objects.get(pk=match.pk)
    assert held.status == Match.Status.RUNNING and held.claimed_by == "host/1/a"
    assert not held.game_records.exists() and not RatingEvent.objects.filter(match=held).exists()
    assert set(comp.entries.values_list("games", flat=True)) == {0}

    assert match.pk in execution.matches_reap(send=lambda ids: None).requeued
    outcome = execution.match_execute(match_id=match.pk, claimed_by="host/2/b", send=None)

    assert outcome == execution.RECORDED
    replayed = Match.objects.get(pk=match.pk)
    assert replayed.status == Match.Status.DONE and replayed.attempts == 2
    (game,) = replayed.game_records.all()
    ((index, _, scores, _, _, data, _),) = games
    assert (game.index, game.scores, bytes(game.data)) == (index, scores, data)
    assert RatingEvent.objects.filter(match=replayed).count() == 2
    assert_ratings_equal_a_recompute(comp)


@pytest.mark.parametrize("prepared", [True, False], ids=["prepared", "not prepared"])
def test_the_claim_and_the_recording_are_prepared_statements_unless_switched_off(
    settings, prepared
):
    """Prepared, they are planned once per connection (generically) and then only run;
    switched off (for a pooler that cannot keep them) the same writes are sent as text."""
    settings.CARDROOM_PREPARED_STATEMENTS = prepared
    comp = tournament(entries=6)
    matches = services.competition_start(competition=comp, send=None)
    connection.close()  # a fresh connection: nothing prepared yet

    for match in matches:
        outcome = execution.match_execute(match_id=match.pk, claimed_by="host/1/t", send=None)
        assert outcome == execution.RECORDED

    with connection.cursor() as cursor:
        cursor.execute("SHOW plan_cache_mode")
        assert cursor.fetchone()[0] == "force_generic_plan"
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        statements = cursor.fetchall()
    if prepared:
        claims = [s for s in statements if s[0].startswith("WITH claimed AS (UPDATE")]
        records = [s for s in statements if s[0].startswith("WITH expected AS")]
        assert len(claims) == 1 and len(records) == 1
        # three runs each, all on the one generic plan (none planned for its parameters)
        assert claims[0][1:] == (3, 0) and records[0][1:] == (3, 0)
    else:
        assert statements == []
    assert Match.objects.filter(competition=comp, status=Match.Status.DONE).count() == 3
    assert_ratings_equal_a_recompute(comp)
