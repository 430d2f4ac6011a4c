"""Services announce after commit; a dead channel layer never breaks recording."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import make_competition, play_one
from tournaments import events
from tournaments.models import Match

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


def test_a_claimed_match_is_announced_as_started(organiser, monkeypatch):
    from tournaments import execution

    sent = []
    monkeypatch.setattr(events, "broadcast", lambda cid, event: sent.append(event))
    competition = make_competition(organiser)
    match = competition.matches.first()
    sent.clear()

    assert execution.match_claim(match_id=match.pk, claimed_by="test-worker") is not None

    assert [e["type"] for e in sent] == ["match.started"]
    assert sent[0]["match"]["id"] == match.pk
