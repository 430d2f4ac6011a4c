"""Pausing and resuming a competition through the API, beside start and close."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.api.conftest import client_for
from tests.factories import make_competition, make_user
from tournaments.models import Competition, Match
from tournaments.worker import execution

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """The match ids handed to the workers (the broker is not needed)."""
    from tournaments.worker import tasks

    ids: list[int] = []
    monkeypatch.setattr(
        tasks.match_run, "apply_async", lambda args, queue, **_: ids.append(args[0])
    )
    monkeypatch.setattr(  # short matches go out as lists
        tasks.matches_run, "apply_async", lambda args, queue, **_: ids.extend(args[0])
    )
    return ids


@pytest.fixture
def running(organiser, as_organiser, sent, django_capture_on_commit_callbacks) -> Competition:
    competition = make_competition(
        organiser, name="Pausable", kind="tournament", variant="money-jordan", games=2
    )
    for i in range(4):
        competition.entries.create(bot=Bot.objects.create(name=f"random-{i}", builtin="random"))
    with django_capture_on_commit_callbacks(execute=True):
        started = as_organiser.post(f"/api/competitions/{competition.pk}/start/")
    assert started.status_code == 200, started.content
    return competition


def statuses(competition: Competition) -> set[str]:
    return set(competition.matches.values_list("status", flat=True))


def test_organiser_pauses_queued_matches_go_back_and_nothing_is_claimed_until_resume(
    running, as_organiser, sent, django_capture_on_commit_callbacks
):
    assert statuses(running) == {"queued"}
    first_sent = list(sent)

    paused = as_organiser.post(f"/api/competitions/{running.pk}/pause/")

    assert paused.status_code == 200, paused.content
    assert paused.json()["status"] == "paused"
    assert statuses(running) == {"pending"}
    match = running.matches.order_by("id").first()
    # a task already with the broker reaches a worker: it claims nothing
    assert execution.match_execute(match_id=match.pk, claimed_by="w/1/t", send=None) == (
        execution.SKIPPED
    )
    assert execution.matches_reap(send=lambda ids: None).enqueued == []
    match.refresh_from_db()
    assert match.status == Match.Status.PENDING and match.attempts == 0

    with django_capture_on_commit_callbacks(execute=True):
        resumed = as_organiser.post(f"/api/competitions/{running.pk}/resume/")

    assert resumed.status_code == 200, resumed.content
    assert resumed.json()["status"] == "running"
    assert statuses(running) == {"queued"}
    assert sorted(sent[len(first_sent) :]) == sorted(first_sent)  # queued again, once each
    assert execution.match_execute(match_id=match.pk, claimed_by="w/1/t", send=None) == ("recorded")


def test_a_stranger_cannot_pause_or_resume_as_for_start(running, as_alice, anon, organiser):
    other_organiser = make_user("oscar")
    other_organiser.user_permissions.add(*organiser.user_permissions.all())

    for client in (as_alice, client_for(other_organiser)):
        assert client.post(f"/api/competitions/{running.pk}/pause/").status_code == 403
    assert anon.post(f"/api/competitions/{running.pk}/pause/").status_code in (401, 403)
    running.refresh_from_db()
    assert running.status == "running" and statuses(running) == {"queued"}

    running.status = Competition.Status.PAUSED
    running.save(update_fields=["status"])
    assert as_alice.post(f"/api/competitions/{running.pk}/resume/").status_code == 403
    running.refresh_from_db()
    assert running.status == "paused"


def test_a_private_competition_is_a_404_to_a_stranger(organiser, as_organiser, as_alice):
    hidden = make_competition(organiser, name="Hidden", is_public=False, games=6)

    assert as_alice.post(f"/api/competitions/{hidden.pk}/pause/").status_code == 404
    assert as_alice.post(f"/api/competitions/{hidden.pk}/resume/").status_code == 404


def test_resuming_a_competition_that_is_not_paused_is_a_clear_400(running, as_organiser):
    response = as_organiser.post(f"/api/competitions/{running.pk}/resume/")

    assert response.status_code == 400
    message = response.json()["non_field_errors"][0]
    assert "only a paused competition can be resumed" in message and "running" in message
    running.refresh_from_db()
    assert running.status == "running" and statuses(running) == {"queued"}


def test_pausing_a_draft_is_a_clear_400(organiser, as_organiser):
    draft = make_competition(organiser, name="Draft", games=6)

    response = as_organiser.post(f"/api/competitions/{draft.pk}/pause/")

    assert response.status_code == 400
    assert "only a running competition can be paused" in response.json()["non_field_errors"][0]
    draft.refresh_from_db()
    assert draft.status == "draft"
