"""A failed match holds up its round until an organiser plays it again; then the
competition goes on to its end (service, API and the organisers' page)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from tests.api.conftest import client_for
from tests.factories import make_user, process_metric
from tournaments import services
from tournaments.models import Competition, Match, Round
from tournaments.worker import execution
from web.once import FIELD

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return make_user("olga")


def cup(organiser) -> Competition:
    """A started round robin of four built-in bots at two seats: 3 rounds of 2 matches."""
    comp = services.competition_create(
        created_by=organiser, name="Cup", kind="tournament", variant="money-jordan",
        format="round-robin", games_per_match=2,
    )  # fmt: skip
    for i in range(4):
        services.entry_create(
            competition=comp, bot=Bot.objects.create(name=f"r{i}", builtin="random")
        )
    services.competition_start(competition=comp, send=None)
    return comp


def fail_one_and_play_the_rest(comp: Competition) -> Match:
    failed, *rest = comp.matches.order_by("id")
    assert execution.match_claim(match_id=failed.pk, claimed_by="w")
    assert execution.match_fail(match_id=failed.pk, claimed_by="w", error="a bot had no version")
    for match in rest:
        execution.match_execute(match_id=match.pk, claimed_by="w", send=None)
    return failed


def play_everything(comp: Competition) -> None:
    while waiting := list(comp.matches.filter(status__in=["pending", "queued"])):
        for match in waiting:
            execution.match_execute(match_id=match.pk, claimed_by="w", send=None)


def test_a_failed_match_holds_its_round_until_it_is_played_again_then_the_cup_ends(organiser):
    comp = cup(organiser)
    failed = fail_one_and_play_the_rest(comp)
    assert comp.rounds.get(number=1).status == Round.Status.RUNNING
    assert not comp.rounds.filter(number=2).exists()  # held up

    services.match_retry(match=failed, by=organiser, send=None)
    failed.refresh_from_db()
    assert (failed.status, failed.attempts, failed.error) == ("pending", 0, "")
    play_everything(comp)

    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    assert comp.matches.filter(status=Match.Status.DONE).count() == 6  # every pairing once


def test_only_an_organiser_retries_and_only_a_failed_match(organiser):
    comp = cup(organiser)
    failed = fail_one_and_play_the_rest(comp)
    with pytest.raises(PermissionDenied):
        services.match_retry(match=failed, by=make_user("ada"))
    done = comp.matches.filter(status=Match.Status.DONE).first()
    with pytest.raises(ValidationError, match="only a failed match can be played again"):
        services.match_retry(match=done, by=organiser)
    services.competition_close(competition=comp, by=organiser)
    with pytest.raises(ValidationError, match="the competition is finished"):
        services.match_retry(match=failed, by=organiser)


def test_the_api_retries_a_failed_match_for_its_organisers(organiser):
    comp = cup(organiser)
    failed = fail_one_and_play_the_rest(comp)
    url = f"/api/matches/{failed.pk}/retry/"

    assert client_for(make_user("ada")).post(url).status_code == 403
    response = client_for(organiser).post(url)

    assert response.status_code == 200, response.content
    assert response.json()["status"] == "queued"  # sent to the workers at once
    assert client_for(organiser).post(url).status_code == 400  # not failed any more


def test_the_organisers_page_lists_failed_matches_with_a_button_to_play_them_again(organiser):
    comp = cup(organiser)
    failed = fail_one_and_play_the_rest(comp)
    browser = Client()
    browser.force_login(organiser)
    page = browser.get(reverse("organise:competition", args=[comp.pk])).content.decode()
    assert "a bot had no version" in page and f'id="retry-{failed.pk}"' in page

    once = page.split(f'name="{FIELD}" value="', 1)[1].split('"', 1)[0]
    url = reverse("organise:match-retry", args=[comp.pk, failed.pk])
    response = browser.post(url, {FIELD: once})

    assert response.status_code == 302
    failed.refresh_from_db()
    assert failed.status == Match.Status.QUEUED


def failed_count(cause: str) -> float:
    return process_metric("cardroom_matches_failed_total", kind="competition", cause=cause)


@pytest.mark.parametrize(
    ("error", "cause"),
    [(ValueError("a result that does not fit"), "invalid"), (KeyError("ours"), "unexpected")],
)
def test_a_failed_match_is_counted_by_its_cause(organiser, monkeypatch, error, cause):
    comp = cup(organiser)
    match = comp.matches.order_by("id").first()

    def broken(**kwargs):
        raise error

    monkeypatch.setattr(services, "match_play", broken)
    before = {c: failed_count(c) for c in ("invalid", "unexpected")}

    assert execution.match_execute(match_id=match.pk, claimed_by="w", send=None) == "failed"

    match.refresh_from_db()
    assert match.status == Match.Status.FAILED
    after = {c: failed_count(c) for c in ("invalid", "unexpected")}
    assert {c: after[c] - before[c] for c in after} == {
        c: 1.0 if c == cause else 0.0 for c in after
    }
