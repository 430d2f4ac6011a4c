"""Services announce after commit; a dead channel layer never breaks recording."""

from __future__ import annotations

import os
import time
import uuid
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from tests.dashboard.conftest import make_competition, play_all, play_one
from tournaments import events, execution
from tournaments.models import Match, RatingEvent

pytestmark = pytest.mark.django_db(transaction=True)


class DeadLayer:
    async def group_send(self, group, message):
        raise ConnectionError("channel layer down")


def test_recording_goes_on_when_the_channel_layer_is_down(organiser, monkeypatch, caplog):
    competition = make_competition(organiser)
    monkeypatch.setattr(events, "get_channel_layer", lambda: DeadLayer())

    match = play_one(competition)

    assert match.status == Match.Status.DONE
    assert "could not broadcast match.finished" in caplog.text


def test_events_are_sent_after_commit_to_the_competition_group(organiser, monkeypatch):
    sent = []
    monkeypatch.setattr(events, "broadcast", lambda cid, event: sent.append((cid, event["type"])))
    competition = make_competition(organiser)
    assert sent == [(competition.pk, "round.started"), (competition.pk, "standings.updated")]

    play_one(competition)

    assert [kind for _, kind in sent[2:]] == [
        "match.finished",
        "standings.updated",
        "round.finished",
        "competition.finished",
    ]


def test_an_unknown_event_type_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown event type 'match.exploded'"):
        events.event("match.exploded", 1)


class Clock:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def queue(monkeypatch):
    """``queue.status`` throttled on a hand-moved clock; later sends are kept, not run."""
    clock, scheduled = Clock(), []

    def schedule(delay, function):
        scheduled.append((delay, function))
        return object()

    monkeypatch.setattr(events, "_queue_throttle", events.Throttle(1.0, clock=clock))
    monkeypatch.setattr(events, "_pending", {})
    monkeypatch.setattr(events, "_timers", {})
    monkeypatch.setattr(events, "_schedule", schedule)
    monkeypatch.setattr(events, "celery_backlog", lambda: 7)
    return SimpleNamespace(clock=clock, scheduled=scheduled)


@pytest.fixture
def sent(monkeypatch) -> list[dict]:
    """Every event broadcast, in order."""
    out: list[dict] = []
    monkeypatch.setattr(events, "broadcast", lambda cid, event: out.append(event))
    return out


def of_type(sent: list[dict], kind: str) -> list[dict]:
    return [e for e in sent if e["type"] == kind]


def test_a_claimed_match_is_announced_as_started(organiser, queue, sent):
    competition = make_competition(organiser)
    match = competition.matches.first()
    sent.clear()

    assert execution.match_claim(match_id=match.pk, claimed_by="test-worker") is not None

    assert [e["type"] for e in sent] == ["match.started", "queue.status"]
    assert sent[0]["match"]["id"] == match.pk


def test_a_finished_match_carries_the_rating_changes_of_its_seats(organiser, sent):
    competition = make_competition(organiser)

    match = play_one(competition)

    (finished,) = of_type(sent, "match.finished")
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
    (standings,) = of_type(sent, "standings.updated")[-1:]
    assert all("trend" in row for row in standings["standings"])


def test_round_events_carry_the_rounds_view(organiser, sent):
    competition = make_competition(organiser, entries=8)  # two tables a round
    (started,) = of_type(sent, "round.started")
    assert started["round"] == {"number": 1, "status": "running", "matches": 2, "done": 0}
    assert started["rounds"]["current"]["number"] == 1
    assert len(started["rounds"]["current"]["tables"]) == 2

    play_one(competition)
    play_one(competition)

    (finished,) = of_type(sent, "round.finished")
    assert finished["round"] == {"number": 1, "status": "finished", "matches": 2, "done": 2}
    assert finished["rounds"]["rounds"][0]["done"] == 2
    following = of_type(sent, "round.started")[-1]
    assert following["round"]["number"] == 2
    assert following["rounds"] == finished["rounds"]
    assert following["rounds"]["current"]["number"] == 2


def test_bracket_rounds_carry_the_bracket(organiser, sent):
    competition = make_competition(
        organiser, variant="money-jordan", format="single-elimination", entries=4, games=2
    )
    play_all(competition)

    last = of_type(sent, "round.finished")[-1]
    (section,) = last["rounds"]["bracket"]["sections"]
    assert [c["label"] for c in section["columns"]] == ["Round 1", "Final"]
    assert all(box["status"] == "done" for c in section["columns"] for box in c["nodes"])
    assert {e["match"]["node"] for e in of_type(sent, "match.finished")} == {"R1-0", "R1-1", "R2-0"}


def test_the_queue_status_tells_counts_and_lease_holders(organiser, queue, sent):
    competition = make_competition(organiser, entries=8)
    match = competition.matches.order_by("id").first()

    execution.match_claim(match_id=match.pk, claimed_by="host-a/4242/task-1")

    (status,) = of_type(sent, "queue.status")
    assert status["competition"] == competition.pk
    body = status["queue"]
    assert (body["running"], body["pending"], body["done"], body["total"]) == (1, 1, 0, 2)
    assert body["backlog"] == 7 and body["results_per_minute"] == 0
    assert [(w["worker"], w["match"]) for w in body["workers"]] == [("host-a/4242", match.pk)]
    assert body["at"] and body["workers"][0]["since"]


def test_queue_statuses_are_throttled_and_the_newest_is_sent_when_the_window_closes(
    organiser, queue, sent
):
    competition = make_competition(organiser, entries=9)  # three tables
    first, second, third = competition.matches.order_by("id")

    execution.match_claim(match_id=first.pk, claimed_by="w/1/a")
    execution.match_claim(match_id=second.pk, claimed_by="w/2/b")
    queue.clock.now += 0.5
    execution.match_claim(match_id=third.pk, claimed_by="w/3/c")

    statuses = of_type(sent, "queue.status")
    assert [s["queue"]["running"] for s in statuses] == [1]  # the burst waits
    assert len(queue.scheduled) == 1  # one send for the rest, when the window closes
    delay, send_later = queue.scheduled[0]
    assert delay == pytest.approx(1.0)

    queue.clock.now += 0.5
    send_later()

    statuses = of_type(sent, "queue.status")
    assert [s["queue"]["running"] for s in statuses] == [1, 3]  # the newest, once
    assert len(statuses[-1]["queue"]["workers"]) == 3
    send_later()  # nothing is left to send
    assert len(of_type(sent, "queue.status")) == 2


def test_a_send_that_comes_too_early_waits_again(organiser, queue, sent):
    competition = make_competition(organiser, entries=8)
    first, second = competition.matches.order_by("id")
    execution.match_claim(match_id=first.pk, claimed_by="w/1/a")
    execution.match_claim(match_id=second.pk, claimed_by="w/2/b")

    queue.clock.now += 0.25  # the timer fired early (or another process sent meanwhile)
    queue.scheduled[0][1]()

    assert len(of_type(sent, "queue.status")) == 1
    assert [round(delay, 2) for delay, _ in queue.scheduled] == [1.0, 0.75]


def test_results_failures_and_releases_announce_the_queue_status(organiser, queue, sent):
    competition = make_competition(organiser, entries=9)
    first, second, third = competition.matches.order_by("id")

    def settle():  # the window closes, the scheduled send runs, the next window closes
        queue.clock.now += 1
        for _, send_later in queue.scheduled:
            send_later()
        queue.scheduled.clear()
        queue.clock.now += 1

    assert execution.match_execute(match_id=first.pk, claimed_by="w/1/a", send=None) == "recorded"
    settle()
    execution.match_claim(match_id=second.pk, claimed_by="w/2/b")
    settle()
    assert execution.match_fail(match_id=second.pk, claimed_by="w/2/b", error="broken")
    settle()
    execution.match_claim(match_id=third.pk, claimed_by="w/3/c")
    settle()
    assert execution.match_release(
        match_id=third.pk, claimed_by="w/3/c", error="sandbox down", retry_in_s=5
    )
    settle()

    statuses = [s["queue"] for s in of_type(sent, "queue.status")]
    assert [(s["done"], s["running"], s["failed"], s["queued"]) for s in statuses] == [
        (0, 1, 0, 0),  # claimed
        (1, 0, 0, 0),  # recorded a moment later: sent when the window closed
        (1, 1, 0, 0),  # claimed
        (1, 0, 1, 0),  # failed
        (1, 1, 1, 0),  # claimed
        (1, 0, 1, 1),  # released to the queue
    ]
    assert statuses[1]["results_per_minute"] == 1


def test_the_reaper_announces_the_competitions_it_touched(organiser, queue, sent):
    competition = make_competition(organiser, entries=8)
    match = competition.matches.order_by("id").first()
    execution.match_claim(match_id=match.pk, claimed_by="w/1/gone")
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    queue.clock.now += 1
    sent.clear()

    reaped = execution.matches_reap(send=lambda ids: None)

    assert match.pk in reaped.requeued
    (status,) = of_type(sent, "queue.status")
    assert status["competition"] == competition.pk
    assert status["queue"]["running"] == 0 and status["queue"]["workers"] == []


def test_claiming_goes_on_when_the_channel_layer_is_down(organiser, queue, monkeypatch, caplog):
    competition = make_competition(organiser)
    monkeypatch.setattr(events, "get_channel_layer", lambda: DeadLayer())
    match = competition.matches.first()

    assert execution.match_claim(match_id=match.pk, claimed_by="w/1/a") is not None

    assert "could not broadcast queue.status" in caplog.text


def test_the_throttle_is_shared_by_processes_through_the_redis_layer(settings):
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.skip("REDIS_URL is not set")
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [redis_url], "prefix": f"cardroom-test-{uuid.uuid4().hex[:10]}"},
        }
    }
    worker_a, worker_b = events.Throttle(0.3), events.Throttle(0.3)  # two processes

    assert worker_a.wait("queue.status:1") == 0.0
    assert 0 < worker_b.wait("queue.status:1") <= 0.3
    assert worker_b.wait("queue.status:2") == 0.0  # per competition
    time.sleep(0.35)
    assert worker_b.wait("queue.status:1") == 0.0
