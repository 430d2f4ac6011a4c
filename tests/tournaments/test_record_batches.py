"""A list's short matches a batch at a time (``tournaments.worker.batches``), on the real
PostgreSQL: claimed in one statement, played, stored in one statement
(``services.record_many``); the standings end as they end one match at a time, and a
result no longer held, or rated from a rating that changed, is stored as alone.

Set ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` to run these.
"""

from __future__ import annotations

import itertools

import pytest
from django.db import connection

from tests.factories import make_competition
from tests.workers import SERVICES
from tournaments import services
from tournaments.models import Competition, Entry, Match, MatchSeat, RatingEvent
from tournaments.services import record_many
from tournaments.worker import batches, claims, execution, lists

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]

BATCH = "WITH expected AS (SELECT * FROM unnest("
CLAIM = 'WITH claimed AS (UPDATE "tournaments_match"'


@pytest.fixture(autouse=True)
def fresh_pace():
    """No match duration measured by an earlier test: a list's first batch is one match."""
    batches._seconds_a_match.clear()
    yield
    batches._seconds_a_match.clear()


class Statements:
    """The text of each statement sent while it is in use (``with Statements() as sent``)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def __enter__(self) -> list[str]:
        def note(execute, sql, params, many, context):
            self.sent.append(sql if isinstance(sql, str) else "")
            return execute(sql, params, many, context)

        self.wrapper = connection.execute_wrapper(note)
        self.wrapper.__enter__()
        return self.sent

    def __exit__(self, *exc) -> None:
        self.wrapper.__exit__(*exc)


def waiting(comp: Competition) -> list[int]:
    open_ = (Match.Status.PENDING, Match.Status.QUEUED)
    return list(comp.matches.filter(status__in=open_).order_by("id").values_list("pk", flat=True))


def play_list(ids: list[int], claimed_by: str = "w") -> lists.Drained:
    def fault(match_id, exc):
        raise exc

    return lists.matches_execute(
        match_ids=ids, start=0, claimed_by=claimed_by, on_fault=fault, budget_s=600, send=None
    )


def standings(comp: Competition) -> list[tuple]:
    """Each entry's rating, games and points, in entry order (the same bots' order)."""
    return [
        (round(e.mu, 9), round(e.sigma, 9), e.games, round(e.points, 9))
        for e in Entry.objects.filter(competition=comp).order_by("id")
    ]


def play_round_robin(comp: Competition, seeds: dict | None = None) -> dict:
    """Play ``comp`` to its end, a round's waiting matches as one list; ``seeds`` (round
    number and table to seed) replaces the matches' deals with another competition's.
    Returns the seeds played."""
    services.competition_start(competition=comp, send=None)
    played = {}
    while ids := waiting(comp):
        for match in Match.objects.filter(pk__in=ids).select_related("round"):
            key = (match.round.number, match.table)
            if seeds is not None:
                Match.objects.filter(pk=match.pk).update(seed=seeds[key])
            played[key] = seeds[key] if seeds is not None else match.seed
        drained = play_list(ids)
        assert set(drained.outcomes.values()) == {execution.RECORDED}
    return played


def test_a_round_robin_in_batches_ends_with_the_standings_of_one_match_at_a_time(settings):
    """The same round robin of 12 random bots (the same deals, table by table) played in
    batches and one match at a time: every entry's rating, games and points are the
    same, each rating event follows the one before it, and the batches took far fewer
    statements than the matches."""
    settings.CARDROOM_RECORD_BATCH = 32
    batched = make_competition(entries=12, games=1, variant="money-jordan", duplicate=False)
    with Statements() as sent:
        seeds = play_round_robin(batched)
    settings.CARDROOM_RECORD_BATCH = 1
    alone = make_competition(entries=12, games=1, variant="money-jordan", duplicate=False)
    play_round_robin(alone, seeds)

    matches = batched.matches.count()
    assert matches == 66 and alone.matches.filter(status="done").count() == 66
    assert standings(batched) == standings(alone)
    assert standings(batched)[0][2] == 11  # each entry played its eleven matches
    stored = sum(sql.startswith(BATCH) for sql in sent)
    assert stored <= 2 * 11  # a round of six matches in at most two statements
    batched.refresh_from_db()
    assert batched.rating_sequence == matches and batched.status == "finished"
    for entry in Entry.objects.filter(competition=batched):
        chain = list(entry.rating_events.order_by("sequence"))
        assert len(chain) == 11
        for before, after in itertools.pairwise(chain):
            assert (after.mu_before, after.sigma_before) == (before.mu_after, before.sigma_after)


def claimed_and_played(ids: list[int], claimed_by: str = "w"):
    taken = claims.matches_claim_with_seats(match_ids=ids, claimed_by=claimed_by)
    assert sorted(taken) == sorted(ids)
    out = []
    for match_id in ids:
        match, seats = taken[match_id]
        played = services.match_play(match=match, claimed_seats=seats)
        out.append(record_many.ready(match, played, seats))
    return out


def first_round(entries: int) -> tuple[Competition, list[int]]:
    comp = make_competition(entries=entries, games=1, variant="money-jordan", duplicate=False)
    services.competition_start(competition=comp, send=None)
    return comp, waiting(comp)


def test_four_results_are_stored_in_one_statement_each_under_its_own_sequence_number():
    comp, ids = first_round(entries=10)
    items = claimed_and_played(ids[:4])
    order = [ids[2], ids[0], ids[3], ids[1]]  # stored in the order given
    items = sorted(items, key=lambda item: order.index(item.match.pk))

    with Statements() as sent:
        stored, together = record_many.matches_record(items, claimed_by="w", send=None)

    assert stored == [True] * 4 and together
    assert [sql[: len(BATCH)] for sql in sent] == [BATCH]
    for place, match_id in enumerate(order, 1):
        match = Match.objects.get(pk=match_id)
        assert (match.status, match.lease_until, match.game_records.count()) == ("done", None, 1)
        assert set(match.rating_events.values_list("sequence", flat=True)) == {place}
        assert all(seat.rank is not None for seat in match.seats.all())
    comp.refresh_from_db()
    assert comp.rating_sequence == 4
    assert Match.objects.get(pk=ids[4]).status == "pending"  # not in the batch: untouched
    played = Entry.objects.filter(competition=comp, games=1).count()
    assert played == 8 and RatingEvent.objects.filter(match__competition=comp).count() == 8


def test_a_result_no_longer_held_is_refused_and_the_others_stored_one_by_one():
    comp, ids = first_round(entries=6)
    items = claimed_and_played(ids)
    taken = ids[1]  # its lease expired and another worker claimed it meanwhile
    Match.objects.filter(pk=taken).update(claimed_by="other")

    with Statements() as sent:
        stored, together = record_many.matches_record(items, claimed_by="w", send=None)

    assert stored == [True, False, True] and not together
    assert sum(sql.startswith(BATCH) for sql in sent) == 1  # refused
    match = Match.objects.get(pk=taken)
    assert (match.status, match.claimed_by, match.game_records.count()) == ("running", "other", 0)
    assert not match.rating_events.exists()
    assert Match.objects.filter(pk__in=[ids[0], ids[2]], status="done").count() == 2
    comp.refresh_from_db()
    assert comp.rating_sequence == 2


def test_a_rating_changed_since_the_claim_is_rated_again_from_the_database():
    comp, ids = first_round(entries=4)
    items = claimed_and_played(ids)
    first = MatchSeat.objects.filter(match_id=ids[0]).order_by("seat").first()
    Entry.objects.filter(pk=first.entry_id).update(mu=31.5)  # another result stored meanwhile

    with Statements() as sent:
        stored, together = record_many.matches_record(items, claimed_by="w", send=None)

    assert stored == [True, True] and together  # rated again, then stored together
    assert sum(sql.startswith(BATCH) for sql in sent) == 2
    event = RatingEvent.objects.get(match_id=ids[0], entry_id=first.entry_id)
    assert event.mu_before == 31.5  # rated from the rating as it is, not as claimed
    assert Entry.objects.get(pk=first.entry_id).mu == event.mu_after


def test_a_batch_that_seats_an_entry_twice_rates_its_second_match_from_its_first():
    """A ladder's batch may seat an entry at two tables: the recorder stores the first
    before it takes the second, which is rated from the rating the first left."""
    comp, ids = first_round(entries=4)
    first = Match.objects.get(pk=ids[0])
    entry = first.seats.order_by("seat").first().entry_id
    other = Match.objects.get(pk=ids[1]).seats.order_by("seat").first().entry_id
    again = Match.objects.create(competition=comp, round=first.round, table=9, seed=77)
    MatchSeat.objects.create(match=again, seat=0, entry_id=other)
    MatchSeat.objects.create(match=again, seat=1, entry_id=entry)
    ids = [first.pk, again.pk]
    taken = claims.matches_claim_with_seats(match_ids=ids, claimed_by="w")
    outcomes: dict[int, str] = {}
    recorder = batches.Recorder(claimed_by="w", send=None, on_fault=None, outcomes=outcomes)
    recorder.claimed()

    with Statements() as sent:
        for match_id in ids:
            match, seats = taken[match_id]
            run = execution.Run(match, seats, "w")
            played = run.play()
            run.close()
            recorder.add(run, played)
        recorder.flush()

    assert outcomes == dict.fromkeys(ids, execution.RECORDED)
    assert sum(sql.startswith(BATCH) for sql in sent) == 2
    chain = list(RatingEvent.objects.filter(entry_id=entry).order_by("sequence"))
    assert [e.match_id for e in chain] == ids
    assert (chain[1].mu_before, chain[1].sigma_before) == (chain[0].mu_after, chain[0].sigma_after)


def test_a_list_claims_and_stores_its_matches_a_batch_at_a_time():
    """A round of eight matches: the first batch is one match (its length not known yet),
    then the rest in one batch: two claims and two stores for the eight."""
    comp, ids = first_round(entries=16)
    assert len(ids) == 8

    with Statements() as sent:
        drained = play_list(ids)

    assert drained.outcomes == dict.fromkeys(ids, execution.RECORDED)
    kinds = [
        "claim" if sql.startswith(CLAIM) else "store"
        for sql in sent
        if sql.startswith((CLAIM, BATCH))
    ]
    assert kinds == ["claim", "store", "claim", "store"]
    assert Match.objects.filter(pk__in=ids, status="done", attempts=1).count() == 8


def test_a_claim_of_a_batch_skips_what_another_worker_holds():
    comp, ids = first_round(entries=8)
    assert claims.matches_claim_with_seats(match_ids=[ids[1]], claimed_by="other")

    taken = claims.matches_claim_with_seats(match_ids=ids, claimed_by="w")

    assert sorted(taken) == [ids[0], *ids[2:]]
    assert Match.objects.get(pk=ids[1]).claimed_by == "other"
    for match_id, (match, seats) in taken.items():
        assert match.pk == match_id and match.claimed_by == "w" and match.status == "running"
        assert [s.seat for s in seats] == [0, 1]
        assert {s.entry_id for s in seats} == set(
            MatchSeat.objects.filter(match_id=match_id).values_list("entry_id", flat=True)
        )


def test_a_batch_that_meets_another_worker_plays_the_rest_and_leaves_it_its_matches():
    comp, ids = first_round(entries=16)
    claim = claims.matches_claim_with_seats

    def meanwhile(*, match_ids, **kwargs):
        if ids[2] in match_ids:  # the other worker took these just before
            assert claim(match_ids=ids[2:5], claimed_by="other")
        return claim(match_ids=match_ids, **kwargs)

    batches.matches_claim_with_seats, saved = meanwhile, batches.matches_claim_with_seats
    try:
        drained = play_list(ids)
    finally:
        batches.matches_claim_with_seats = saved

    recorded = [ids[0], ids[1], *ids[5:]]
    assert drained.outcomes == {
        **dict.fromkeys(recorded, execution.RECORDED),
        **dict.fromkeys(ids[2:5], execution.SKIPPED),
    }
    held = comp.matches.filter(status=Match.Status.RUNNING, claimed_by="other")
    assert sorted(held.values_list("pk", flat=True)) == ids[2:5]
    assert not RatingEvent.objects.filter(match_id__in=ids[2:5]).exists()


def test_a_list_sent_to_other_workers_claims_half_of_what_waits_at_a_time():
    """A list whose tasks other workers take too (``send``): the worker invited to join
    starts from the middle, so a batch takes at most half of what waits."""
    comp, ids = first_round(entries=16)
    batches._seconds_a_match[comp.pk] = 0.001  # (quick matches: a batch of 32 alone)
    claimed: list[list[int]] = []
    claim = claims.matches_claim_with_seats

    def noted(*, match_ids, **kwargs):
        claimed.append(list(match_ids))
        return claim(match_ids=match_ids, **kwargs)

    batches.matches_claim_with_seats, saved = noted, batches.matches_claim_with_seats
    try:
        drained = lists.matches_execute(
            match_ids=ids, start=0, claimed_by="w", on_fault=None, budget_s=600,
            send=lambda ids: None,
        )  # fmt: skip
    finally:
        batches.matches_claim_with_seats = saved

    assert {i: drained.outcomes[i] for i in ids} == dict.fromkeys(ids, execution.RECORDED)
    assert claimed[:4] == [ids[:4], ids[4:6], ids[6:7], ids[7:]]  # then the next round's


def test_a_result_the_database_refuses_fails_alone_and_the_rest_of_its_batch_is_stored(
    monkeypatch,
):
    """A value of one result that the database refuses (here a seat's statuses that are
    no JSON) fails the batch's statement: each result is then stored on its own, and
    only that match fails."""
    from tournaments.services import record

    comp, ids = first_round(entries=6)
    bad = ids[1]
    seat_rows = record._seat_rows

    def out_of_range(played, ranks, points):
        rows = seat_rows(played, ranks, points)
        if played is marked["played"]:
            rows[0][5] = {"ok": float("nan")}  # (json.dumps writes NaN: no JSON)
        return rows

    marked: dict = {"played": None}
    monkeypatch.setattr(record, "_seat_rows", out_of_range)
    taken = claims.matches_claim_with_seats(match_ids=ids, claimed_by="w")
    outcomes: dict[int, str] = {}
    recorder = batches.Recorder(claimed_by="w", send=None, on_fault=None, outcomes=outcomes)
    recorder.claimed()
    for match_id in ids:
        match, seats = taken[match_id]
        run = execution.Run(match, seats, "w")
        played = run.play()
        run.close()
        if match_id == bad:
            marked["played"] = played
        recorder.add(run, played)
    recorder.flush()

    assert outcomes == {ids[0]: "recorded", bad: "failed", ids[2]: "recorded"}
    assert Match.objects.get(pk=bad).status == "failed"
    assert not RatingEvent.objects.filter(match_id=bad).exists()
    assert Match.objects.filter(pk__in=[ids[0], ids[2]], status="done").count() == 2


def test_a_batch_that_held_its_matches_for_half_a_lease_gives_back_the_rest(monkeypatch):
    """A batch whose matches run far longer than the ones measured before them (a bot
    that stalls) gives back those it has not played before their leases run out, and
    stores what it played: the caller sends them again."""
    comp, ids = first_round(entries=6)
    batches._seconds_a_match[comp.pk] = 0.001  # (quick matches: all three in one batch)
    monkeypatch.setattr(batches, "hold_s", lambda: 0.0)

    drained = play_list(ids)

    assert drained.outcomes == {ids[0]: execution.RECORDED}
    assert drained.left == ids[1:]
    rest = Match.objects.filter(pk__in=ids[1:])
    assert {(m.status, m.claimed_by, m.attempts) for m in rest} == {("queued", "", 0)}
    assert Match.objects.get(pk=ids[0]).status == "done"
