"""The write path notifies after commit; the web tier builds the live events from that.

A dead channel layer never breaks recording or claiming.
"""

from __future__ import annotations

import asyncio
import random
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import make_competition, play_all, play_one
from tournaments import services
from tournaments.live import events, relay
from tournaments.models import Match, MatchSeat, RatingEvent
from tournaments.watching import stream as dashboard
from tournaments.worker import execution

pytestmark = pytest.mark.django_db(transaction=True)


class DeadLayer:
    async def group_send(self, group, message):
        raise ConnectionError("channel layer down")


@pytest.fixture
def sent(monkeypatch) -> list[dict]:
    """Every notification (or event) broadcast, in order."""
    out: list[dict] = []
    monkeypatch.setattr(events, "broadcast", lambda cid, event: out.append(event))
    monkeypatch.setattr(dashboard, "celery_backlog", lambda: 7)
    return out


def built(competition, sent: list[dict]) -> list[dict]:
    """What the web tier builds from the notifications ``sent`` so far (then cleared)."""
    changes = events.Changes()
    for note in sent:
        assert note["type"] == events.CHANGED and note["competition"] == competition.pk
        changes.add(note)
    sent.clear()
    return dashboard.live_events(competition_id=competition.pk, changes=changes)


def of_type(items: list[dict], kind: str) -> list[dict]:
    return [e for e in items if e["type"] == kind]


def test_recording_goes_on_when_the_channel_layer_is_down(organiser, monkeypatch, caplog):
    competition = make_competition(organiser, start=True, entries=3)
    monkeypatch.setattr(events, "get_channel_layer", lambda: DeadLayer())

    match = play_one(competition)

    assert match.status == Match.Status.DONE
    assert events.notifications_flush()
    assert "could not broadcast competition.changed" in caplog.text


def test_a_result_is_notified_after_commit_as_what_changed(organiser, sent):
    competition = make_competition(organiser, start=True, entries=3)  # 3 bots, one table
    assert [(n["changes"], n["round"]) for n in sent] == [
        (["round.started"], 1),
        (["competition.started"], None),
    ]
    sent.clear()

    match = play_one(competition)

    note = {"type": "competition.changed", "competition": competition.pk}
    assert sent == [
        {**note, "match": match.pk, "changes": ["match.finished"], "round": None},
        # The round is closed once the result has committed, in a transaction of its own.
        {**note, "match": None, "changes": ["round.finished", "competition.finished"], "round": 1},
    ]


def test_the_web_tier_builds_the_events_of_a_result_in_the_documented_order(organiser, sent):
    competition = make_competition(organiser, start=True, entries=3)
    sent.clear()
    play_one(competition)

    assert [e["type"] for e in built(competition, sent)] == [
        "match.finished",
        "standings.updated",
        "round.finished",
        "competition.finished",
        "problems.updated",
        "queue.status",
        "head_to_head.updated",
        "crosstable.updated",
    ]


def test_a_round_event_carries_the_results_of_its_rounds_only(organiser, sent):
    """A round robin of eight (two tables a round): when round 2 ends and round 3 is
    paired, the round events hold the results of rounds 2 and 3, not of every round (the
    page keeps the others); the snapshot has them all."""
    competition = make_competition(organiser, start=True, entries=8)
    play_one(competition)
    play_one(competition)
    built(competition, sent)  # round 1 over, round 2 paired
    second = {play_one(competition).pk, play_one(competition).pk}

    items = built(competition, sent)

    assert [e["round"]["number"] for e in of_type(items, "round.finished")] == [2]
    [started] = of_type(items, "round.started")
    assert started["round"]["number"] == 3
    view = started["rounds"]
    assert view["results_of"] == [2, 3] and [r["number"] for r in view["results"]] == [2, 3]
    done, waiting = view["results"]
    assert {m["match"] for m in done["matches"] if m["status"] == "done"} == second
    assert len(waiting["matches"]) == 2 and all(m["status"] != "done" for m in waiting["matches"])
    snapshot = dashboard.rounds_view(competition=competition)
    assert "results_of" not in snapshot
    assert [r["number"] for r in snapshot["results"]] == [1, 2, 3]


def test_pause_resume_and_close_reach_an_open_dashboard_as_its_status(organiser, sent):
    competition = make_competition(organiser, start=True, entries=3)
    sent.clear()

    def shown() -> str:
        updates = of_type(built(competition, sent), "standings.updated")
        return updates[-1]["progress"]["competition"] if updates else "(no update)"

    services.competition_pause(competition=competition, by=organiser)
    assert shown() == "paused"
    services.competition_resume(competition=competition, by=organiser)
    assert shown() == "running"
    services.competition_close(competition=competition, by=organiser)
    finished = of_type(built(competition, sent), "competition.finished")
    assert [e["status"] for e in finished] == ["finished"]


def test_unknown_event_types_and_changes_are_programming_errors():
    with pytest.raises(ValueError, match="unknown event type 'match.exploded'"):
        events.event("match.exploded", 1)
    with pytest.raises(ValueError, match="match.exploded"):
        events.notification(1, ["match.exploded"])
    assert events.notify(competition_id=1, changes=["match.exploded"]) is False


def test_a_claimed_match_is_announced_as_started(organiser, sent):
    competition = make_competition(organiser, start=True, entries=3)
    match = competition.matches.first()
    sent.clear()

    assert execution.match_claim(match_id=match.pk, claimed_by="test-worker") is not None

    assert [n["changes"] for n in sent] == [["match.started"]]
    items = built(competition, sent)
    assert [e["type"] for e in items] == ["match.started", "queue.status"]
    assert items[0]["match"]["id"] == match.pk and items[0]["match"]["status"] == "running"


def test_a_finished_match_carries_the_rating_changes_of_its_seats(organiser, sent):
    competition = make_competition(organiser, start=True, entries=3)

    match = play_one(competition)

    items = built(competition, sent)
    (finished,) = of_type(items, "match.finished")
    expected = [
        {
            "entry": e.entry_id,
            "sequence": e.sequence,
            "before": pytest.approx(e.mu_before - 3 * e.sigma_before),
            "after": pytest.approx(e.mu_after - 3 * e.sigma_after),
        }
        for e in RatingEvent.objects.filter(match=match).order_by("entry_id")
    ]
    assert finished["ratings"] == expected and len(expected) == 3
    assert finished["match"]["node"] == ""
    (standings,) = of_type(items, "standings.updated")
    assert all("trend" in row for row in standings["standings"])


def test_round_events_carry_the_rounds_view(organiser, sent):
    competition = make_competition(organiser, entries=8, start=True)  # two tables a round
    (started,) = of_type(built(competition, sent), "round.started")
    assert started["round"] == {"number": 1, "status": "running", "matches": 2, "done": 0}
    assert started["rounds"]["current"]["number"] == 1
    assert len(started["rounds"]["current"]["tables"]) == 2

    play_one(competition)
    play_one(competition)

    items = built(competition, sent)  # both results in one build
    assert len(of_type(items, "match.finished")) == 2
    (finished,) = of_type(items, "round.finished")
    assert finished["round"] == {"number": 1, "status": "finished", "matches": 2, "done": 2}
    assert finished["rounds"]["rounds"][0]["done"] == 2
    (following,) = of_type(items, "round.started")
    assert following["round"]["number"] == 2
    assert following["rounds"] == finished["rounds"]
    assert following["rounds"]["current"]["number"] == 2


def test_bracket_rounds_carry_the_bracket(organiser, sent):
    competition = make_competition(
        organiser,
        variant="money-jordan",
        format="single-elimination",
        entries=4,
        games=2,
        start=True,
    )
    play_all(competition)

    items = built(competition, sent)
    last = of_type(items, "round.finished")[-1]
    (section,) = last["rounds"]["bracket"]["sections"]
    assert [c["label"] for c in section["columns"]] == ["Round 1", "Final"]
    assert all(box["status"] == "done" for c in section["columns"] for box in c["nodes"])
    assert {e["match"]["node"] for e in of_type(items, "match.finished")} == {
        "R1-0",
        "R1-1",
        "R2-0",
    }


def test_the_problem_bots_panel_updates_with_each_result(organiser, sent):
    competition = make_competition(organiser, entries=8, start=True)
    match = play_one(competition)
    seat = match.seats.order_by("seat").first()
    MatchSeat.objects.filter(pk=seat.pk).update(statuses={"ok": 1, "timeout": 2})

    (problems,) = of_type(built(competition, sent), "problems.updated")

    assert problems["problems"] == [
        {"name": str(seat.entry.bot), "statuses": {"timeout": 2}, "total": 2}
    ]


def test_the_queue_status_tells_counts_and_lease_holders(organiser, sent):
    competition = make_competition(organiser, entries=8, start=True)
    match = competition.matches.order_by("id").first()
    sent.clear()

    execution.match_claim(match_id=match.pk, claimed_by="host-a/4242/task-1")

    (status,) = of_type(built(competition, sent), "queue.status")
    assert status["competition"] == competition.pk
    body = status["queue"]
    assert (body["running"], body["pending"], body["done"], body["total"]) == (1, 1, 0, 2)
    assert body["backlog"] == 7 and body["results_per_minute"] == 0
    assert [(w["worker"], w["match"]) for w in body["workers"]] == [("host-a/4242", match.pk)]
    assert body["at"] and body["workers"][0]["since"]


def test_results_failures_and_releases_notify_and_rebuild_the_queue_status(organiser, sent):
    competition = make_competition(organiser, entries=9, start=True)
    first, second, third = competition.matches.order_by("id")
    sent.clear()
    statuses = []

    def status_now():
        (status,) = of_type(built(competition, sent), "queue.status")
        statuses.append(status["queue"])

    assert execution.match_execute(match_id=first.pk, claimed_by="w/1/a", send=None) == "recorded"
    status_now()
    execution.match_claim(match_id=second.pk, claimed_by="w/2/b")
    status_now()
    assert execution.match_fail(match_id=second.pk, claimed_by="w/2/b", error="broken")
    assert sent and sent[-1]["changes"] == ["queue.changed"]
    status_now()
    execution.match_claim(match_id=third.pk, claimed_by="w/3/c")
    status_now()
    assert execution.match_release(
        match_id=third.pk, claimed_by="w/3/c", error="sandbox down", retry_in_s=5
    )
    status_now()

    assert [(s["done"], s["running"], s["failed"], s["queued"]) for s in statuses] == [
        (1, 0, 0, 0),  # claimed and recorded
        (1, 1, 0, 0),  # claimed
        (1, 0, 1, 0),  # failed
        (1, 1, 1, 0),  # claimed
        (1, 0, 1, 1),  # released to the queue
    ]
    assert statuses[0]["results_per_minute"] == 1


def test_the_reaper_notifies_the_competitions_it_touched(organiser, sent):
    competition = make_competition(organiser, entries=8, start=True)
    match = competition.matches.order_by("id").first()
    execution.match_claim(match_id=match.pk, claimed_by="w/1/gone")
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    sent.clear()

    reaped = execution.matches_reap(send=lambda ids: None)

    assert match.pk in reaped.requeued
    assert {n["competition"] for n in sent} == {competition.pk}
    (status,) = of_type(built(competition, sent), "queue.status")
    assert status["queue"]["running"] == 0 and status["queue"]["workers"] == []


def test_claiming_goes_on_when_the_channel_layer_is_down(organiser, monkeypatch, caplog):
    competition = make_competition(organiser, start=True, entries=3)
    monkeypatch.setattr(events, "get_channel_layer", lambda: DeadLayer())
    match = competition.matches.first()

    assert execution.match_claim(match_id=match.pk, claimed_by="w/1/a") is not None

    assert events.notifications_flush()
    assert "could not broadcast competition.changed" in caplog.text


class SlowLayer:
    """A channel layer whose sends take a random while (as a Redis round trip may)."""

    def __init__(self):
        self.received: list[int] = []
        self.messages: list[tuple[str, dict]] = []

    async def group_send(self, group, message):
        await asyncio.sleep(random.uniform(0, 0.003))
        self.messages.append((group, message))
        if message["event_type"] == events.CHANGED:
            self.received += [note["match"] for note in events.notifications_in(message["text"])]


@pytest.fixture
def layer(monkeypatch) -> SlowLayer:
    """A :class:`SlowLayer` that the notifications go to."""
    slow = SlowLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: slow)
    return slow


def test_notifications_leave_in_order_without_the_writer_waiting_for_them(layer):
    for match_id in range(60):
        assert events.notify(competition_id=1, changes=["match.finished"], match_id=match_id)

    assert events.notifications_flush()
    assert layer.received == list(range(60))


def test_a_burst_of_notifications_to_one_competition_leaves_as_few_messages(layer):
    """What a busy worker hands over between two ticks of the sender goes as one message
    per competition, every notification in it, in order; another competition's
    notifications and other events are never folded into them."""
    for match_id in range(50):
        events.notify(competition_id=1, changes=["match.finished"], match_id=match_id)
    events.notify(competition_id=2, changes=["match.started"], match_id=900)
    events.broadcast(1, events.event(events.MATCH_FINISHED, 1, match={"id": 901}))
    events.notify(competition_id=1, changes=["match.finished"], match_id=50)

    assert events.notifications_flush()
    assert layer.received == [*range(50), 900, 50]
    assert len(layer.messages) <= 10  # 53 messages one by one (a tick takes ~25 at once)
    groups = [group for group, _ in layer.messages]
    assert groups.index("competition.2") < len(groups) - 2  # order across groups kept
    assert [m for _, m in layer.messages if m["event_type"] != events.CHANGED] == [
        events.relay_message(events.event(events.MATCH_FINISHED, 1, match={"id": 901}))
    ]
    for group, message in layer.messages:
        notes = events.notifications_in(message["text"])
        assert {note["competition"] for note in notes} == {int(group.split(".")[1])}


def test_a_batch_of_notifications_folds_into_the_changes_like_each_one():
    one_by_one, batched = events.Changes(), events.Changes()
    messages = [
        events.relay_message(events.notification(1, ["match.started"], match_id=4)),
        events.relay_message(events.notification(1, ["match.finished"], match_id=3)),
        events.relay_message(events.notification(1, ["round.finished"], round_number=2)),
    ]
    for message in messages:
        for note in events.notifications_in(message["text"]):
            one_by_one.add(note)
    batch = events.relay_batch(messages)
    assert batch["event_type"] == events.CHANGED
    for note in events.notifications_in(batch["text"]):
        batched.add(note)

    assert batched == one_by_one
    assert (batched.started, batched.finished, batched.rounds_finished) == ([4], [3], [2])
    with pytest.raises(ValueError):
        events.notifications_in("not json")


def test_a_full_send_backlog_makes_the_writer_wait_for_the_oldest(monkeypatch, layer):
    monkeypatch.setattr(relay, "SEND_BACKLOG_MAX", 3)  # the sender's (re-exported by events)

    for match_id in range(10):
        events.notify(competition_id=1, changes=["match.finished"], match_id=match_id)
        assert relay._sender().pending <= 3

    assert events.notifications_flush()
    assert layer.received == list(range(10))


def test_an_idle_sender_parks_and_wakes_for_the_next_notification(monkeypatch, layer):
    monkeypatch.setattr(relay, "SEND_IDLE_TICKS", 2)
    events.notify(competition_id=1, changes=["match.finished"], match_id=1)
    assert events.notifications_flush()
    sender = relay._sender()
    deadline = time.monotonic() + 2
    while not sender.parked and time.monotonic() < deadline:
        time.sleep(events.SEND_TICK_S)
    assert sender.parked  # no more ticks while nothing comes

    for match_id in (2, 3):
        events.notify(competition_id=1, changes=["match.finished"], match_id=match_id)
    assert events.notifications_flush(timeout=1.0)
    assert layer.received == [1, 2, 3]


def test_a_notification_handed_over_while_the_sender_parks_is_not_stranded(monkeypatch, layer):
    """Writers racing the sender as it parks: every notification still leaves."""
    monkeypatch.setattr(relay, "SEND_IDLE_TICKS", 1)
    for match_id in range(40):
        events.notify(competition_id=1, changes=["match.finished"], match_id=match_id)
        time.sleep(random.uniform(0, 2.5 * events.SEND_TICK_S))
    assert events.notifications_flush(timeout=1.0)
    assert layer.received == list(range(40))


def test_an_unknown_competition_builds_nothing():
    changes = events.Changes()
    changes.add(events.notification(10**9, ["match.finished"], match_id=1))
    assert dashboard.live_events(competition_id=10**9, changes=changes) == []
