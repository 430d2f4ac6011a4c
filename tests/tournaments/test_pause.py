"""Pausing a running competition: nothing is queued or claimed until it is resumed."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from bots.models import Bot
from tests.factories import make_user
from tournaments import services
from tournaments.models import Competition, Match
from tournaments.services import competition_pause, competition_resume
from tournaments.worker import execution

pytestmark = pytest.mark.django_db


def running_tournament(organiser) -> Competition:
    competition = services.competition_create(
        created_by=organiser,
        name="Pausable",
        kind="tournament",
        variant="money-jordan",
        format="round-robin",
        games_per_match=2,
    )
    for i in range(4):
        bot = Bot.objects.create(name=f"random-{i}", builtin="random")
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=lambda ids: None)
    return competition


def test_a_paused_competitions_sent_match_is_not_played_until_it_resumes():
    olga = make_user("olga", organiser=True)
    competition = running_tournament(olga)
    match = competition.matches.order_by("id").first()
    assert match.status == Match.Status.QUEUED  # its task is already with the broker

    competition_pause(competition=competition, by=olga)
    outcome = execution.match_execute(match_id=match.pk, claimed_by="w/1/t", send=None)

    match.refresh_from_db()
    assert outcome == execution.SKIPPED and match.status == Match.Status.PENDING
    assert match.attempts == 0
    assert execution.matches_reap(send=lambda ids: None).enqueued == []

    competition_resume(competition=competition, by=olga)
    assert execution.match_execute(match_id=match.pk, claimed_by="w/1/t", send=None) == ("recorded")
    match.refresh_from_db()
    assert match.status == Match.Status.DONE


def test_only_a_running_competition_pauses_and_only_its_organisers_pause_it():
    olga, ada = make_user("olga", organiser=True), make_user("ada")
    competition = running_tournament(olga)

    with pytest.raises(PermissionDenied):
        competition_pause(competition=competition, by=ada)
    with pytest.raises(ValidationError, match="only a paused competition can be resumed"):
        competition_resume(competition=competition, by=olga)
    competition_pause(competition=competition, by=olga)
    with pytest.raises(ValidationError, match="only a running competition can be paused"):
        competition_pause(competition=competition, by=olga)

    competition.refresh_from_db()
    assert competition.status == Competition.Status.PAUSED


def test_a_round_that_ends_while_paused_is_followed_by_the_next_on_resume(
    django_capture_on_commit_callbacks,
):
    """The round's last result came in while paused: resuming pairs the next round."""
    olga = make_user("olga", organiser=True)
    competition = running_tournament(olga)
    first, second = competition.matches.order_by("id")
    execution.match_execute(match_id=first.pk, claimed_by="w/1/t", send=None)
    held = execution.match_claim(match_id=second.pk, claimed_by="w/1/t")
    competition_pause(competition=competition, by=olga)
    result = services.match_play(match=held)  # a match being played finishes and counts
    assert services.match_record(match=held, played=result, claimed_by="w/1/t", send=None)
    assert competition.rounds.get().status == "finished"
    assert competition.rounds.count() == 1  # paused: nothing paired

    sent: list[int] = []
    with django_capture_on_commit_callbacks(execute=True):
        competition_resume(competition=competition, by=olga, send=sent.extend)

    assert competition.rounds.count() == 2
    assert sorted(sent) == sorted(
        competition.matches.filter(round__number=2).values_list("pk", flat=True)
    )
    while pending := list(competition.matches.exclude(status="done").order_by("id")):
        for match in pending:
            execution.match_execute(match_id=match.pk, claimed_by="w/1/t", send=None)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    assert competition.rounds.count() == 3  # 4 entries: three rounds of two tables
