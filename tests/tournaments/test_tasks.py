"""Match tasks on the real PostgreSQL and Redis: claim, lease, record once, advance rounds.

Set ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` to run these; the worker
tests start real ``celery -A config worker`` processes on private queues that
use the test database.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.factories import make_competition, play_all
from tests.workers import (
    SERVICES,
    assert_ratings_equal_a_recompute,
    assert_recorded_exactly_once,
    finished,
    wait_for,
)
from tournaments import services
from tournaments.models import Competition, GameRecord, Match, RatingEvent
from tournaments.services import queue
from tournaments.worker import claims as claims_module
from tournaments.worker import execution, lists, tasks

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
]


# -- in-process: the task function and the services --------------------------------------


def snapshot(comp: Competition) -> tuple:
    return (
        list(comp.entries.order_by("id").values_list("mu", "sigma", "games", "points")),
        RatingEvent.objects.count(),
        GameRecord.objects.count(),
        list(comp.matches.order_by("id").values_list("status", "attempts", "claimed_by")),
    )


def test_the_same_task_delivered_twice_plays_the_match_once():
    comp = make_competition(entries=3, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]
    assert tasks.match_run.apply(args=[match.pk]).get() == execution.RECORDED
    before = snapshot(comp)
    assert tasks.match_run.apply(args=[match.pk]).get() == execution.SKIPPED
    assert snapshot(comp) == before
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.attempts == 1


def test_a_live_lease_cannot_be_claimed_twice():
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]
    assert execution.match_claim(match_id=match.pk, claimed_by="a") is not None
    assert execution.match_claim(match_id=match.pk, claimed_by="b") is None
    match.refresh_from_db()
    assert (match.status, match.claimed_by, match.attempts) == ("running", "a", 1)


def test_a_stale_worker_gets_its_result_refused_and_changes_nothing():
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]
    assert execution.match_claim(match_id=match.pk, claimed_by="stale") is not None
    result = services.match_play(match=match)
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert execution.match_claim(match_id=match.pk, claimed_by="fresh") is not None  # takeover
    before = snapshot(comp)

    assert services.match_record(match=match, played=result, claimed_by="stale") is False

    assert snapshot(comp) == before
    assert services.match_record(match=match, played=result, claimed_by="fresh", send=None)
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.attempts == 2
    assert services.match_record(match=match, played=result, claimed_by="fresh") is False


def test_rounds_advance_by_themselves_and_new_matches_are_sent_after_commit():
    comp = make_competition(entries=4, variant="money-jordan", games=2, duplicate=False)
    sent: list[int] = []
    services.competition_start(competition=comp, send=sent.extend)
    assert sorted(sent) == sorted(comp.matches.values_list("pk", flat=True))
    played = 0
    while played < len(sent):  # a worker that runs what was sent, in order
        outcome = execution.match_execute(match_id=sent[played], claimed_by="w", send=sent.extend)
        assert outcome == execution.RECORDED
        played += 1
    assert len(sent) == len(set(sent)) == comp.matches.count() == 6  # 3 rounds of 2
    assert_recorded_exactly_once(comp)
    assert_ratings_equal_a_recompute(comp)


def test_nothing_is_sent_when_the_transaction_rolls_back():
    comp = make_competition(entries=4, variant="money-jordan", games=2, duplicate=False)
    sent: list[int] = []
    with pytest.raises(RuntimeError):
        from django.db import transaction

        with transaction.atomic():
            services.competition_start(competition=comp, send=sent.extend)
            raise RuntimeError("rolled back")
    assert sent == [] and not comp.matches.exists()


def test_the_reaper_requeues_expired_leases_and_queues_forgotten_matches():
    comp = make_competition(entries=6, variant="money-jordan", games=2, duplicate=False)
    expired, live, pending = services.competition_start(competition=comp, send=None)
    execution.match_claim(match_id=expired.pk, claimed_by="dead", lease_s=-1)
    execution.match_claim(match_id=live.pk, claimed_by="alive")
    sent: list[int] = []

    reaped = execution.matches_reap(send=sent.extend)

    assert reaped.requeued == [expired.pk] and reaped.enqueued == [pending.pk]
    assert sorted(sent) == sorted([expired.pk, pending.pk])
    expired.refresh_from_db()
    assert (expired.status, expired.claimed_by) == ("queued", "")
    assert Match.objects.get(pk=live.pk).status == Match.Status.RUNNING
    assert execution.matches_reap(send=sent.extend).resent == []  # deadline not passed yet


def test_the_reaper_fails_a_match_whose_worker_keeps_dying(settings):
    settings.CARDROOM_MATCH_MAX_ATTEMPTS = 2
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]
    for _ in range(2):
        execution.match_claim(match_id=match.pk, claimed_by="dies", lease_s=-1)
    reaped = execution.matches_reap(send=lambda ids: None)
    match.refresh_from_db()
    assert reaped.failed == [match.pk] and match.status == Match.Status.FAILED
    assert "lease expired" in match.error


def test_an_idle_ladder_gets_a_new_batch_from_the_reaper():
    comp = make_competition(
        entries=4, format="ladder", kind="ladder", variant="money-jordan", games=2, duplicate=False
    )
    services.competition_start(competition=comp, send=None)
    comp.matches.all().delete()  # as if the last batch had been closed
    sent: list[int] = []
    reaped = execution.matches_reap(send=sent.extend)
    assert reaped.ladders and sorted(sent) == sorted(reaped.ladders)


def test_a_ladder_batch_with_a_failed_match_closes_and_pairs_the_next_at_once():
    """A failed match holds up a round robin's round, never a ladder's batch."""
    comp = make_competition(
        entries=4, games=1, format="ladder", kind="ladder", variant="money-jordan", duplicate=False
    )
    first = services.competition_start(competition=comp, send=None)
    stuck = execution.match_claim(match_id=first[0].pk, claimed_by="w")
    execution.match_fail(match_id=stuck.pk, claimed_by="w", error="a bot without a version")
    for match in first[1:]:
        execution.match_execute(match_id=match.pk, claimed_by="w", send=None)
    assert comp.rounds.get(number=1).status == "finished"
    second = list(comp.matches.filter(round__number=2))
    assert second and {s.entry_id for m in second for s in m.seats.all()} == set(
        comp.entries.values_list("pk", flat=True)
    )  # the failed match's entries too
    for match in second:
        execution.match_execute(match_id=match.pk, claimed_by="w", send=None)
    assert comp.rounds.count() == 3
    assert comp.rounds.get(number=2).status == "finished"


def test_a_paced_ladder_waits_out_its_pause_before_the_next_batch(settings, monkeypatch):
    from tournaments.live import events

    settings.CARDROOM_LADDER_PAUSE_S = 60
    sent: list[dict] = []
    monkeypatch.setattr(events, "broadcast", lambda cid, event: sent.append(event))
    comp = make_competition(
        entries=4, format="ladder", kind="ladder", variant="money-jordan", games=2, duplicate=False
    )
    batch = services.competition_start(competition=comp, send=None)
    for match in batch:
        services.match_record(match=match, played=services.match_play(match=match))
    assert not comp.matches.exclude(status=Match.Status.DONE).exists()  # not paired at once
    assert execution.matches_reap(send=lambda ids: None).ladders == []  # within the pause

    comp.matches.update(finished_at=timezone.now() - timedelta(seconds=61))
    sent.clear()
    reaped = execution.matches_reap(send=lambda ids: None)
    assert reaped.ladders and comp.matches.filter(status=Match.Status.QUEUED).count() == len(
        reaped.ladders
    )
    # The dashboards hear of the new batch at once: a notification naming its round.
    started = [e for e in sent if events.ROUND_STARTED in e.get("changes", ())]
    assert [e["round"] for e in started] == [2]


def test_run_competition_inline_plays_to_the_final_standings(capsys):
    comp = make_competition(entries=4, variant="money-jordan", games=2, duplicate=False)
    call_command("run_competition", str(comp.pk), "--inline")
    out = capsys.readouterr().out
    assert_recorded_exactly_once(comp)
    assert "6/6 done" in out and "finished" in out and "rank" in out


# -- real worker processes ---------------------------------------------------------------


@pytest.mark.slow
def test_a_worker_runs_a_competition_to_its_final_standings(workers, capsys):
    worker = workers()
    comp = make_competition(entries=6, games=4, variant="money-jordan", duplicate=False)
    services.competition_start(competition=comp, send=worker.send)
    call_command("run_competition", str(comp.pk), "--follow", "--interval", "0.2")
    out = capsys.readouterr().out
    assert_recorded_exactly_once(comp)  # 5 rounds, each paired and sent by the worker
    assert_ratings_equal_a_recompute(comp)
    assert "15/15 done" in out and "games/s" in out


@pytest.mark.slow
def test_the_reaper_of_a_worker_queues_matches_nobody_sent(workers):
    workers()
    comp = make_competition(entries=4, variant="money-jordan", games=2, duplicate=False)
    services.competition_start(competition=comp, send=None)  # pending, never sent
    wait_for(lambda: finished(comp), 90, "the competition to finish")
    assert_recorded_exactly_once(comp)


# -- short matches share tasks -----------------------------------------------------------


def _first_round(comp: Competition) -> list[int]:
    sent: list[int] = []
    services.competition_start(competition=comp, send=sent.extend)
    return sent


@pytest.mark.parametrize("games", [1, 19])
def test_a_round_of_short_matches_goes_out_as_one_list(games):
    comp = make_competition(entries=8, games=games, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    assert len(ids) == 4
    assert queue.match_tasks(ids) == [("tournaments.matches_run", [ids, 0])]


def test_matches_of_twenty_games_or_more_get_a_task_each(settings):
    comp = make_competition(entries=8, games=20, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    assert queue.match_tasks(ids) == [("tournaments.match_run", [i]) for i in ids]
    settings.CARDROOM_TASK_GAMES = 1
    short = make_competition(entries=4, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(short)
    assert queue.match_tasks(ids) == [("tournaments.match_run", [i]) for i in ids]


def test_lists_hold_one_competition_and_a_bounded_number_of_ids(monkeypatch):
    monkeypatch.setattr(queue, "TASK_LIST_MAX", 3)
    one, two = (
        make_competition(entries=8, games=1, variant="money-jordan", duplicate=False),
        make_competition(entries=4, games=1, variant="money-jordan", duplicate=False),
    )
    first, second = _first_round(one), _first_round(two)
    assert queue.match_tasks(first + second) == [
        ("tournaments.matches_run", [first[:3], 0]),
        ("tournaments.match_run", first[3:]),
        ("tournaments.matches_run", [second, 0]),
    ]


def _recording_order(comp: Competition) -> list[int]:
    events = RatingEvent.objects.filter(entry__competition=comp).order_by("sequence")
    return list(dict.fromkeys(events.values_list("match_id", flat=True)))


def test_a_list_task_plays_the_waiting_matches_from_its_place_once(monkeypatch):
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    execution.match_execute(match_id=ids[3], claimed_by="another worker", send=None)
    spread: list[list] = []
    monkeypatch.setattr(
        tasks.matches_run, "apply_async", lambda args, **options: spread.append(args)
    )
    sent: list[list[int]] = []
    monkeypatch.setattr(queue, "send_match_tasks", lambda ids: sent.append(list(ids)))

    outcomes = tasks.matches_run.apply(args=[ids, 2]).get()

    # Three waited: a free worker was asked to start halfway, at ids[0]; nothing more
    # was asked of the broker but the rounds this task closed.
    assert spread == [[ids, 0]]
    order = _recording_order(comp)
    assert order[:4] == [ids[3], ids[2], ids[0], ids[1]]
    # Each round it closed went out for the other workers and was played on here,
    # in the order sent: the whole round robin, every match once.
    assert [len(r) for r in sent] == [4] * 6
    assert order[4:] == [i for r in sent for i in r]
    assert list(outcomes) == [str(i) for i in order[1:]]
    assert set(outcomes.values()) == {"recorded"}
    assert_recorded_exactly_once(comp)
    before = snapshot(comp)
    assert tasks.matches_run.apply(args=[ids, 0]).get() == {}  # a second delivery: nothing
    assert snapshot(comp) == before


def test_a_list_that_meets_another_worker_leaves_it_its_matches(monkeypatch, settings):
    """Another worker plays the list from ids[2] on: after one skip this one reads the list
    again and takes the second half of what waits, never trying the other's matches (a
    list that plays its matches one at a time: ``CARDROOM_RECORD_BATCH=1``; in batches,
    ``tests/tournaments/test_record_batches.py``)."""
    settings.CARDROOM_RECORD_BATCH = 1
    comp = make_competition(entries=16, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    assert len(ids) == 8
    claims: list[int] = []
    statement = claims_module.claim_statement

    def counted(*, match_id, claimed_by, **kwargs):
        # (every claim's statement: on its own, or sent with the last recording)
        if claimed_by == "w":
            claims.append(match_id)
            if match_id == ids[2]:  # meanwhile the other worker took ids[2] to ids[4]
                for taken in ids[2:5]:
                    assert execution.match_claim(match_id=taken, claimed_by="other") is not None
        return statement(match_id=match_id, claimed_by=claimed_by, **kwargs)

    monkeypatch.setattr(claims_module, "claim_statement", counted)
    drained = lists.matches_execute(
        match_ids=ids,
        start=0,
        claimed_by="w",
        on_fault=lambda match_id, fault: None,
        budget_s=60,
        send=None,
    )

    # ids[5:8] still waited after the skip: the second half of them first.
    assert claims == [ids[0], ids[1], ids[2], ids[6], ids[7], ids[5]]
    assert drained.outcomes == {
        ids[0]: "recorded",
        ids[1]: "recorded",
        ids[2]: "skipped",
        ids[6]: "recorded",
        ids[7]: "recorded",
        ids[5]: "recorded",
    }
    held = comp.matches.filter(status=Match.Status.RUNNING, claimed_by="other")
    assert sorted(held.values_list("pk", flat=True)) == ids[2:5]


def _pairs(comp: Competition, round_number: int) -> set[frozenset[int]]:
    matches = comp.matches.filter(round__number=round_number).prefetch_related("seats")
    return {frozenset(s.entry_id for s in m.seats.all()) for m in matches}


def test_a_list_that_runs_dry_plays_on_into_the_next_round_robin_round(monkeypatch):
    """Round 2 is paired while round 1's last match still plays, as the schedule has it."""
    schedule = make_competition(
        entries=8, games=1, variant="money-jordan", duplicate=False
    )  # the same round robin, played plainly
    services.competition_start(competition=schedule, send=None)
    play_all(schedule)
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    held = execution.match_claim(match_id=ids[0], claimed_by="another worker")
    monkeypatch.setattr(tasks.matches_run, "apply_async", lambda args, **options: None)
    sent: list[list[int]] = []
    monkeypatch.setattr(queue, "send_match_tasks", lambda ids: sent.append(list(ids)))

    outcomes = tasks.matches_run.apply(args=[ids, 1]).get()

    # Round 1's three free matches, then round 2 (paired ahead, sent for the others and
    # played here) and no further: round 1 still plays, and two rounds at most run.
    assert len(sent) == 1 and len(outcomes) == 3 + 4
    assert comp.rounds.count() == 2
    assert list(comp.rounds.order_by("number").values_list("status", flat=True)) == [
        "running",
        "finished",  # closed, but it paired nothing: round 1 still plays
    ]
    services.match_record(
        match=held, played=services.match_play(match=held), claimed_by="another worker"
    )
    assert comp.rounds.count() == 3  # the last of the two to close paired round 3
    while pending := list(comp.matches.filter(status="queued").values_list("pk", flat=True)):
        tasks.matches_run.apply(args=[pending, 0]).get()
    assert_recorded_exactly_once(comp)
    assert_ratings_equal_a_recompute(comp)
    # Who meets whom, round by round, is the schedule's, whatever overlapped.
    entry = dict(zip(schedule.entries.order_by("id"), comp.entries.order_by("id"), strict=True))
    renamed = {e.pk: entry[e].pk for e in entry}
    for number in range(1, 8):
        want = {frozenset(renamed[i] for i in pair) for pair in _pairs(schedule, number)}
        assert _pairs(comp, number) == want
    assert comp.rounds.count() == 7


def test_a_list_that_runs_dry_joins_the_round_another_worker_paired_ahead():
    """Round 1's last match still plays and another worker paired round 2 ahead (it sent
    round 2's message): this worker plays round 2 from its middle instead of waiting
    for that message, but not a match given back after a fault (it waits for its retry)."""
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    execution.match_claim(match_id=ids[0], claimed_by="another worker")
    for match_id in ids[1:]:
        execution.match_execute(match_id=match_id, claimed_by="w", send=None)
    first = comp.rounds.get()
    second = [m.pk for m in services.round_pair_ahead(round_id=first.pk, send=lambda ids: None)]
    assert len(second) == 4
    execution.match_claim(match_id=second[1], claimed_by="another worker")
    execution.match_release(
        match_id=second[1], claimed_by="another worker", error="sandbox gone", retry_in_s=60
    )
    sent: list[list[int]] = []

    drained = lists.matches_execute(
        match_ids=ids,
        start=0,
        claimed_by="w",
        on_fault=lambda match_id, fault: None,
        budget_s=60,
        send=lambda ids: sent.append(list(ids)),
    )

    assert list(drained.outcomes) == [second[2], second[3], second[0]]
    assert set(drained.outcomes.values()) == {"recorded"}
    assert sent == []  # round 2 went out with its pairing; round 3 waits for round 1
    assert comp.matches.get(pk=second[1]).status == Match.Status.QUEUED
    assert comp.rounds.count() == 2


def test_a_list_in_an_outer_transaction_ends_when_its_round_paired_ahead_waits_to_commit():
    from django.db import transaction

    comp = make_competition(entries=6, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    execution.match_claim(match_id=ids[0], claimed_by="another worker")
    sent: list[list[int]] = []
    with transaction.atomic():
        drained = lists.matches_execute(
            match_ids=ids,
            start=1,
            claimed_by="w",
            on_fault=lambda match_id, fault: None,
            budget_s=60,
            send=lambda ids: sent.append(list(ids)),
        )
        assert sent == [] and comp.rounds.count() == 2  # paired, sent once it commits
    assert set(drained.outcomes) == set(ids[1:]) and drained.left == []
    assert sent == [list(comp.matches.filter(round__number=2).values_list("pk", flat=True))]


def test_a_round_is_paired_ahead_only_in_a_round_robin_and_only_once_none_waits():
    comp = make_competition(
        entries=6,
        games=1,
        format="swiss",
        rounds_planned=3,
        variant="money-jordan",
        duplicate=False,
    )
    ids = _first_round(comp)
    execution.match_claim(match_id=ids[0], claimed_by="w")
    for match_id in ids[1:]:
        execution.match_execute(match_id=match_id, claimed_by="w", send=None)
    first = comp.rounds.get()
    assert services.round_pair_ahead(round_id=first.pk, send=None) == []  # Swiss pairs on results
    robin = make_competition(entries=6, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(robin)
    execution.match_claim(match_id=ids[0], claimed_by="w")
    first = robin.rounds.get()
    assert services.round_pair_ahead(round_id=first.pk, send=None) == []  # two matches still wait
    for match_id in ids[1:]:
        execution.match_execute(match_id=match_id, claimed_by="w", send=None)
    paired = services.round_pair_ahead(round_id=first.pk, send=None)
    assert len(paired) == 3 and robin.rounds.count() == 2
    assert services.round_pair_ahead(round_id=first.pk, send=None) == []  # once
    second = robin.rounds.get(number=2)
    assert services.round_pair_ahead(round_id=second.pk, send=None) == []  # round 1 still plays


def test_a_list_task_past_its_budget_sends_the_rest_again(settings, monkeypatch):
    sent: list[int] = []
    monkeypatch.setattr(queue, "send_match_tasks", sent.extend)
    monkeypatch.setattr(tasks.matches_run, "apply_async", lambda args, **options: None)
    settings.CARDROOM_TASK_BUDGET_S = 0
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)

    outcomes = tasks.matches_run.apply(args=[ids, 1]).get()

    assert outcomes == {str(ids[1]): "recorded"}  # one match, however small the budget
    assert sent == [ids[2], ids[3], ids[0]]
    assert list(comp.matches.filter(status=Match.Status.QUEUED).values_list("pk", flat=True)
                .order_by("pk")) == sorted(sent)  # fmt: skip


def test_a_list_plays_on_when_the_broker_refuses_its_extra_task(monkeypatch, caplog):
    from kombu.exceptions import OperationalError

    def broker_down(*args, **options):
        raise OperationalError("connection refused")

    monkeypatch.setattr(tasks.matches_run, "apply_async", broker_down)
    monkeypatch.setattr(queue, "send_match_tasks", lambda ids: None)
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)

    outcomes = tasks.matches_run.apply(args=[ids, 0]).get()

    assert [outcomes[str(i)] for i in ids] == ["recorded"] * 4
    assert "broker unavailable" in caplog.text


def test_a_fault_in_a_list_retries_that_match_alone_and_plays_the_others(monkeypatch):
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    ids = _first_round(comp)
    broken = ids[1]
    play = services.match_play

    def flaky_play(*, match, **watching):
        if match.pk == broken:
            raise OSError("the sandbox's disk is full")
        return play(match=match, **watching)

    retried: list[tuple] = []
    monkeypatch.setattr(services, "match_play", flaky_play)
    monkeypatch.setattr(tasks.matches_run, "apply_async", lambda args, **options: None)
    monkeypatch.setattr(
        tasks.match_run, "apply_async", lambda args, **options: retried.append((args, options))
    )

    outcomes = tasks.matches_run.apply(args=[ids, 0]).get()

    assert outcomes[str(broken)] == "fault"
    assert [outcomes[str(i)] for i in ids if i != broken] == ["recorded"] * 3
    (args, options), = retried  # fmt: skip
    assert args == [broken] and options["retries"] == 1 and options["countdown"] > 0
    match = Match.objects.get(pk=broken)
    assert match.status == Match.Status.QUEUED and "disk is full" in match.error
    assert not match.game_records.exists() and not match.rating_events.exists()


@pytest.mark.slow
def test_two_workers_share_the_lists_of_a_competition_of_short_matches(workers):
    """Rounds 2 to 7 go out as list tasks, sent by the workers themselves."""
    env = {"CARDROOM_TASK_LOG_LEVEL": "INFO"}
    a, b = workers(concurrency=1, env=env), workers(concurrency=1, env=env)
    comp = make_competition(entries=8, games=1, variant="money-jordan", duplicate=False)
    services.competition_start(competition=comp, send=a.send)
    wait_for(lambda: finished(comp), 60, "the competition to finish")
    assert_recorded_exactly_once(comp)  # 7 rounds of 4
    assert_ratings_equal_a_recompute(comp)
    # Received and succeeded, for each of rounds 2 to 7 (the last "succeeded" is written
    # after the result that finished the competition: waited for, not raced).
    wait_for(
        lambda: (a.log.read_text() + b.log.read_text()).count("Task tournaments.matches_run[")
        >= 2 * 6,
        30,
        "the list tasks' log lines",
    )
    players = set(comp.matches.values_list("claimed_by", flat=True))
    assert len({p.split("/")[1] for p in players}) == 2  # both workers played
    # Each round's list brings the other worker in: both play in most rounds.
    both = [
        r for r in comp.rounds.all()
        if len({m.claimed_by.split("/")[1] for m in r.matches.all()}) == 2
    ]  # fmt: skip
    assert len(both) >= 4, [[m.claimed_by for m in r.matches.all()] for r in comp.rounds.all()]
