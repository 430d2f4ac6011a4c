"""Dashboard pages through the Django test client: visibility, live data, the replay."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.dashboard.conftest import make_competition, make_user, play_one

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_list_shows_what_each_user_may_watch(organiser, outsider):
    make_competition(organiser, name="Open night")
    make_competition(organiser, name="Closed night", is_public=False)

    anonymous = Client().get("/dashboard/").content.decode()
    outsiders = logged_in(outsider).get("/dashboard/").content.decode()
    organisers = logged_in(organiser).get("/dashboard/").content.decode()

    assert "Open night" in anonymous and "Closed night" not in anonymous
    assert "Closed night" not in outsiders
    assert "Open night" in organisers and "Closed night" in organisers
    assert "0 / 1" in anonymous  # matches done / total


def test_a_private_competition_is_hidden_from_others(organiser, outsider):
    competition = make_competition(organiser, is_public=False)
    url = f"/dashboard/competitions/{competition.pk}/"

    assert Client().get(url).status_code == 404
    assert logged_in(outsider).get(url).status_code == 404
    assert logged_in(organiser).get(url).status_code == 200
    assert logged_in(make_user("root", is_staff=True)).get(url).status_code == 200


def test_the_competition_page_renders_standings_matches_and_its_snapshot(organiser):
    competition = make_competition(organiser)
    match = play_one(competition)

    response = Client().get(f"/dashboard/competitions/{competition.pk}/")

    page = response.content.decode()
    assert response.status_code == 200
    for entry in competition.entries.select_related("bot"):
        assert entry.bot.name in page
    assert f"#{match.pk}" in page and "replay" in page
    assert 'id="failed"' not in page  # organisers only
    start = page.index('<script id="snapshot" type="application/json">')
    snapshot = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert snapshot["type"] == "snapshot" and len(snapshot["standings"]) == 3
    assert snapshot["matches"]["recent"][0]["id"] == match.pk
    assert (
        'id="failed"'
        in logged_in(organiser).get(f"/dashboard/competitions/{competition.pk}/").content.decode()
    )


def test_the_problem_bots_count_non_ok_statuses(organiser):
    competition = make_competition(organiser)
    match = play_one(competition)
    seat = match.seats.order_by("seat").first()
    seat.statuses = {"ok": 1, "timeout": 2}
    seat.save(update_fields=["statuses"])

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    assert f"{seat.entry.bot.name}: timeout \u00d7 2" in page


def test_the_replay_steps_through_a_finished_game(organiser):
    competition = make_competition(organiser)
    match = play_one(competition)
    game = match.game_records.order_by("index").first()

    response = Client().get(f"/dashboard/games/{game.pk}/")

    page = response.content.decode()
    assert response.status_code == 200
    start = page.index('<script id="steps" type="application/json">')
    steps = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert len(steps) == len(game.record()["actions"]) + 1
    assert steps[1]["action"] == game.record()["actions"][0]
    assert all("hand" not in step["view"] for step in steps)  # spectators see no hands


def test_the_replay_is_only_for_finished_matches_one_may_watch(organiser, outsider):
    competition = make_competition(organiser, is_public=False)
    game = play_one(competition).game_records.first()

    assert Client().get(f"/dashboard/games/{game.pk}/").status_code == 404
    assert logged_in(outsider).get(f"/dashboard/games/{game.pk}/").status_code == 404
    assert logged_in(organiser).get(f"/dashboard/games/{game.pk}/").status_code == 200
    game.match.status = "running"
    game.match.save(update_fields=["status"])
    assert logged_in(organiser).get(f"/dashboard/games/{game.pk}/").status_code == 404


def test_the_page_script_is_served():
    response = Client().get("/dashboard/live.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript"
    assert b"new WebSocket" in b"".join(response.streaming_content)
