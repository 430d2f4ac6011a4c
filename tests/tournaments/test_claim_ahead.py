"""A list's next claim sent with the recording before it, on the real PostgreSQL: one wait
for the database a match, and nothing lost or doubled when either statement fails.

Set ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` to run these.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config import fairshare, liveness, redis_client, slots
from tests.factories import make_competition
from tests.workers import SERVICES
from tournaments import services
from tournaments.models import Competition, Match, RatingEvent
from tournaments.worker import execution, lists

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]

CLAIM = 'WITH claimed AS (UPDATE "tournaments_match"'
RECORD = "WITH expected AS ("


def first_round(entries: int) -> tuple[Competition, list[int]]:
    comp = make_competition(entries=entries, games=1, variant="money-jordan", duplicate=False)
    sent: list[int] = []
    services.competition_start(competition=comp, send=sent.extend)
    return comp, sent


def play(ids: list[int], faults: list[int] | None = None) -> lists.Drained:
    return lists.matches_execute(
        match_ids=ids,
        start=0,
        claimed_by="w",
        on_fault=lambda match_id, fault: (faults if faults is not None else []).append(match_id),
        budget_s=600,
        send=None,
    )


def statements_and_their_pipelines():
    """A wrapper of Django's that notes each claim and recording statement sent, with the
    psycopg pipeline it went in (None: sent alone, its result awaited before the next)."""
    sent: list[tuple[str, int | None]] = []

    def note(execute, sql, params, many, context):
        kind = "claim" if sql.startswith(CLAIM) else "record" if sql.startswith(RECORD) else None
        if kind is not None:
            pipeline = connection.connection._pipeline
            sent.append((kind, None if pipeline is None else id(pipeline)))
        return execute(sql, params, many, context)

    return sent, note


@pytest.mark.parametrize("prepared", [True, False], ids=["prepared", "not prepared"])
def test_a_list_records_each_match_and_claims_the_next_in_one_round_trip(settings, prepared):
    """Four matches of a round of five: the first claimed alone, then each recording goes
    in one pipeline with the next match's claim (the database waited for once), the
    last alone. Two statements a match and one read of the list, as before; the same
    with the statements sent as text (``CARDROOM_PREPARED_STATEMENTS`` off)."""
    settings.CARDROOM_PREPARED_STATEMENTS = prepared
    comp, ids = first_round(entries=10)
    assert len(ids) == 5
    sent, note = statements_and_their_pipelines()

    with CaptureQueriesContext(connection) as queries, connection.execute_wrapper(note):
        drained = play(ids[:4])

    assert drained.outcomes == dict.fromkeys(ids[:4], execution.RECORDED)
    assert len(queries) == 1 + 2 * 4  # which of the list wait, then a claim and a record each
    kinds = [kind for kind, _ in sent]
    assert kinds == ["claim", "record", "claim", "record", "claim", "record", "claim", "record"]
    pipelines = [pipeline for _, pipeline in sent]
    assert pipelines[0] is None and pipelines[-1] is None  # the first claim, the last record
    for record, claim in zip(pipelines[1:-1:2], pipelines[2:-1:2], strict=True):
        assert record is not None and record == claim  # one round trip, both statements
    matches = Match.objects.filter(pk__in=ids[:4])
    assert {(m.status, m.claimed_by, m.attempts) for m in matches} == {("done", "w", 1)}
    assert Match.objects.get(pk=ids[4]).status == Match.Status.QUEUED  # untouched
    assert RatingEvent.objects.filter(match_id__in=ids[:4]).count() == 8


@pytest.fixture(autouse=True)
def claim_ahead(settings):
    """The claim sent with the recording (off by default: ``CARDROOM_CLAIM_AHEAD=1``), on
    a list that plays its matches one at a time (``CARDROOM_RECORD_BATCH=1``)."""
    settings.CARDROOM_CLAIM_AHEAD = True
    settings.CARDROOM_RECORD_BATCH = 1


@pytest.fixture
def failing():
    """``failing(table, match_id, column)``: a trigger that makes PostgreSQL refuse, as a
    lost connection (SQLSTATE 08006), the first write of ``table`` whose ``column`` is
    ``match_id`` (and ``when``): the first only, counted by a sequence, which a rollback
    does not undo."""
    made: list[str] = []

    def make(table: str, match_id: int, column: str, when: str = "") -> None:
        name = f"fail_{table}_{match_id}"
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE SEQUENCE {name}_seq")
            cursor.execute(
                f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                f"IF NEW.{column} = {match_id} {when} AND nextval('{name}_seq') = 1 THEN "
                "RAISE EXCEPTION 'the connection was lost' USING ERRCODE = '08006'; "
                "END IF; RETURN NEW; END $$"
            )
            cursor.execute(
                f"CREATE TRIGGER {name} BEFORE INSERT OR UPDATE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {name}()"
            )
        made.append(name)

    yield make
    with connection.cursor() as cursor:
        for name in made:
            cursor.execute(f"DROP FUNCTION IF EXISTS {name}() CASCADE")
            cursor.execute(f"DROP SEQUENCE IF EXISTS {name}_seq")


def test_a_recording_that_fails_keeps_the_claim_sent_with_it(failing):
    """The first match's recording fails (its games' insert refused) in the round trip that
    claims the second: the first is left held for its retry, with nothing of it stored;
    the second was claimed once, in that round trip, and is played and recorded."""
    comp, ids = first_round(entries=8)
    failing("tournaments_gamerecord", ids[0], column="match_id")
    sent, note = statements_and_their_pipelines()
    faults: list[int] = []

    with connection.execute_wrapper(note):
        drained = play(ids[:3], faults)

    assert faults == [ids[0]]
    assert drained.outcomes == {ids[0]: "fault", ids[1]: "recorded", ids[2]: "recorded"}
    assert [kind for kind, _ in sent[:3]] == ["claim", "record", "claim"]
    assert sent[1][1] is not None and sent[1][1] == sent[2][1]  # in one round trip
    first = Match.objects.get(pk=ids[0])
    assert (first.status, first.claimed_by) == (Match.Status.RUNNING, "w")
    assert not first.game_records.exists() and not first.rating_events.exists()
    for match in Match.objects.filter(pk__in=ids[1:3]):
        assert (match.status, match.attempts) == (Match.Status.DONE, 1)
        assert match.game_records.count() == 1 and match.rating_events.count() == 2


def test_a_claim_that_fails_leaves_the_recording_sent_with_it_stored(failing):
    """The second match's claim fails in the round trip that records the first: the first
    stays recorded (each statement is its own transaction), the second is claimed again
    on its own and then goes to its retry, and the list goes on."""
    comp, ids = first_round(entries=8)
    failing("tournaments_match", ids[1], column="id", when="AND NEW.status = 'running'")
    sent, note = statements_and_their_pipelines()
    faults: list[int] = []

    with connection.execute_wrapper(note):
        drained = play(ids[:3], faults)

    assert [kind for kind, _ in sent[:3]] == ["claim", "record", "claim"]
    assert sent[1][1] is not None and sent[1][1] == sent[2][1]  # in one round trip
    assert drained.outcomes == {ids[0]: "recorded", ids[1]: "recorded", ids[2]: "recorded"}
    assert faults == []
    for match in Match.objects.filter(pk__in=ids[:3]):
        assert match.status == Match.Status.DONE
        assert match.game_records.count() == 1 and match.rating_events.count() == 2
    # The failed claim wrote nothing: the second match was claimed once, on its own.
    assert Match.objects.get(pk=ids[1]).attempts == 1


def test_a_slot_the_next_match_takes_with_the_recording_is_held_while_it_plays(monkeypatch):
    """The next match's turn is asked (``yield_turn``, which counts this process's slot
    as its owners', as a worker's list does) as the match before it is recorded: the
    recorded match's unit ends first, so the slot stays the next match's while it plays."""
    comp, ids = first_round(entries=8)
    key = settings.CARDROOM_QUEUE_PREFIX + slots._SLOTS_KEYS[slots.USERS_LANE]
    held = redis_client.client()
    holder_while_playing: dict[int, bytes | None] = {}
    play_match = services.match_play

    def playing(*, match, **kwargs):
        holder_while_playing[match.pk] = held.hget(key, liveness.process_name())
        return play_match(match=match, **kwargs)

    def yield_turn(match_id: int) -> bool:
        fairshare.release_slot()
        assert fairshare.take_slot(f"owner:{match_id}", most=None)
        return False

    monkeypatch.setattr(services, "match_play", playing)
    sent, note = statements_and_their_pipelines()
    try:
        with connection.execute_wrapper(note):
            drained = lists.matches_execute(
                match_ids=ids[:3], start=0, claimed_by="w", on_fault=lambda *a: None,
                budget_s=600, send=None, yield_turn=yield_turn,
            )  # fmt: skip
    finally:
        fairshare.release_slot()

    assert drained.outcomes == dict.fromkeys(ids[:3], execution.RECORDED)
    assert sent[1][1] is not None and sent[1][1] == sent[2][1]  # claimed with a recording
    assert holder_while_playing == {i: f"owner:{i}".encode() for i in ids[:3]}


def test_with_claim_ahead_off_each_match_of_a_list_is_claimed_on_its_own(settings):
    """``CARDROOM_CLAIM_AHEAD=0`` (a worker on the database's own host): every claim and
    every recording is sent alone, each awaited before the next; the same outcomes."""
    settings.CARDROOM_CLAIM_AHEAD = False
    comp, ids = first_round(entries=8)
    sent, note = statements_and_their_pipelines()

    with connection.execute_wrapper(note):
        drained = play(ids[:3])

    assert drained.outcomes == dict.fromkeys(ids[:3], execution.RECORDED)
    assert sent == [("claim", None), ("record", None)] * 3
