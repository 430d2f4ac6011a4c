"""The replay page links the transcripts its viewer may download, and the links work."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from bots.models import Bot
from bots.referee.transcript import parse_transcript
from tests.factories import make_competition, make_user, play_one
from tournaments.models import Competition

pytestmark = pytest.mark.django_db

LINK = re.compile(r'href="(/api/games/\d+/transcript/\?seat=(\d))" download')


def page_links(user, game) -> list[tuple[str, str]]:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(f"/dashboard/games/{game.pk}/")
    assert response.status_code == 200
    return LINK.findall(response.content.decode())


@pytest.fixture
def played(organiser):
    """A finished match of three built-ins, the one at match seat 1 owned by ada."""
    ada = make_user("ada")
    competition = make_competition(organiser, name="Links", start=True, entries=3)
    match = play_one(competition)
    Bot.objects.filter(pk=match.seats.get(seat=1).entry.bot_id).update(owner=ada)
    return {"ada": ada, "competition": competition, "game": match.game_records.first()}


def test_the_owner_sees_a_link_to_their_seat_and_it_downloads_the_transcript(played):
    ada, game = played["ada"], played["game"]

    links = page_links(ada, game)

    assert [seat for _, seat in links] == ["1"]
    client = Client()
    client.force_login(ada)
    response = client.get(links[0][0])
    assert response.status_code == 200
    transcript = parse_transcript(response.content)
    assert transcript.header["seat"] == 1 and transcript.decisions()


def test_others_see_no_link_until_the_end_and_staff_see_every_seat(
    played, outsider, staff, organiser
):
    game, competition = played["game"], played["competition"]
    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.RUNNING)

    assert page_links(outsider, game) == [] and page_links(None, game) == []
    assert [seat for _, seat in page_links(staff, game)] == ["0", "1", "2"]
    assert page_links(organiser, game) == []  # the full view: once it has ended
    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.FINISHED)
    assert [seat for _, seat in page_links(organiser, game)] == ["0", "1", "2"]
