"""A competition its organisers closed before its schedule ended says "closed early", not
"finished", on its page, the lists and the API; one played to the end says "finished";
a ladder's close is its end. Every page links the site's icon."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from tests.factories import logged_in, make_competition, open_ladder, play_all, play_one
from tests.static_files import link_targets, static_get
from tournaments import services
from tournaments.models import Competition

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def badge(html: str, element_id: str) -> str:
    found = re.search(rf'<span class="badge ([^"]*)" id="{element_id}"[^>]*>([^<]*)</span>', html)
    assert found, element_id
    return f"{found.group(1)}: {found.group(2)}"


def listed_status(html: str, name: str) -> str:
    row = html[html.index(name) :]
    return re.search(
        r'<span class="badge ([^"]*)">([^<]*)</span>', row[: row.index("</tr>")]
    ).group(2)


def test_a_tournament_closed_midway_is_closed_early_everywhere(organiser):
    competition = make_competition(organiser, name="Cut short", entries=4, start=True)
    play_one(competition)
    services.competition_close(competition=competition, by=organiser)
    competition.refresh_from_db()
    assert competition.status == "finished" and competition.closed_early

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()
    assert badge(page, "status") == "closed-early: closed early"
    assert '"closed_early": true' in page  # for the page script's redraws
    assert listed_status(Client().get("/dashboard/").content.decode(), "Cut short") == (
        "closed early"
    )
    assert listed_status(Client().get("/").content.decode(), "Cut short") == "closed early"
    organise = logged_in(organiser).get(f"/organise/{competition.pk}/").content.decode()
    assert "closed early" in organise
    api = Client().get(f"/api/competitions/{competition.pk}/").json()
    assert api["status"] == "finished" and api["closed_early"] is True  # the code stays


def test_a_tournament_played_to_the_end_is_finished(organiser):
    competition = make_competition(
        organiser, name="Full night", entries=3, variant="money-jordan", games=2, start=True
    )
    play_all(competition)
    competition.refresh_from_db()
    assert competition.status == "finished" and not competition.closed_early

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()
    assert badge(page, "status") == "finished: finished"
    assert listed_status(Client().get("/dashboard/").content.decode(), "Full night") == "finished"
    assert Client().get(f"/api/competitions/{competition.pk}/").json()["closed_early"] is False


def test_closing_a_ladder_ends_it_without_closed_early(organiser):
    ladder = open_ladder(organiser)
    services.competition_close(competition=ladder, by=organiser)
    assert not Competition.objects.get(pk=ladder.pk).closed_early


def test_a_closed_draft_is_cancelled_not_closed_early(organiser):
    draft = services.competition_create(
        created_by=organiser,
        name="Never",
        kind="tournament",
        variant="money-jordan",
        format="round-robin",
    )
    services.competition_close(competition=draft, by=organiser)
    draft.refresh_from_db()
    assert draft.status == "cancelled" and draft.shown_status == "cancelled"


@pytest.mark.parametrize("path", ["/", "/dashboard/", "/accounts/login/"])
def test_every_page_links_the_icon(path):
    page = Client().get(path).content.decode()
    (href,) = link_targets(page, "icon")
    icon = static_get(href)
    assert icon.status == 200 and icon.content_type == "image/svg+xml"
    assert icon.body == (ROOT / "web" / "static" / "cardroom" / "favicon.svg").read_bytes()
