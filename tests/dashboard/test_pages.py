"""Dashboard pages through the Django test client: visibility, live data, the replay."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.dashboard.conftest import make_competition, make_user, play_one
from tournaments import execution
from tournaments.events import worker_label
from tournaments.models import RatingEvent
from tournaments.selectors import standings_for_competition

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
    assert 'class="progress"' in anonymous and 'style="width: 0%"' in anonymous


def test_the_list_draws_a_progress_bar_per_competition(organiser):
    competition = make_competition(organiser, entries=8)  # two matches in round one
    play_one(competition)

    page = Client().get("/dashboard/").content.decode()

    assert 'aria-valuenow="50"' in page and 'style="width: 50%"' in page
    assert "1 / 2" in page


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


def snapshot_of(page: str) -> dict:
    start = page.index('<script id="snapshot" type="application/json">')
    return json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])


def test_the_standings_show_each_rating_trend(organiser):
    competition = make_competition(organiser, entries=4)
    play_one(competition)

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    assert ">Trend</th>" in page
    rows = standings_for_competition(competition=competition)
    cells = []
    for row in rows:
        if row["trend"] is None:
            cells.append('<td class="num trend">\N{EN DASH}</td>')
        elif row["trend"] > 0:
            cells.append(f'<td class="num trend up">▲ {row["trend"]:.2f}</td>')
        else:
            cells.append(f'<td class="num trend down">▼ {-row["trend"]:.2f}</td>')
    body = page[page.index('<table id="standings">') : page.index("</table>")]
    assert [body.index(cell) for cell in cells] == sorted(body.index(cell) for cell in cells)
    assert sum(row["trend"] is None for row in rows) == 1  # one of four sat out
    assert "trend up" in body and "trend down" in body


def test_the_competition_page_shows_rounds_pairings_and_the_queue(organiser):
    competition = make_competition(organiser, entries=8)
    match = play_one(competition)
    running = competition.matches.exclude(pk=match.pk).get()
    execution.match_claim(match_id=running.pk, claimed_by="host-c/99/task-1")

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    rounds = page[page.index('<section id="rounds-view">') :]
    assert '<li class="round running" data-round="1">' in rounds
    assert "1 / 2 done" in rounds and "Round 1 pairings" in rounds
    assert f'<tr data-match="{match.pk}">' in rounds
    assert f'<tr data-match="{running.pk}">' in rounds
    queue = page[page.index('<div id="queue"') : page.index("<h2>Running matches</h2>")]
    assert "<b>1</b> running" in queue and "<b>1</b> done" in queue
    assert "host-c/99" not in queue  # worker processes are named to staff only
    assert f"<td>{worker_label('host-c/99')}</td>" in queue and f"#{running.pk}" in queue
    snapshot = snapshot_of(page)
    assert snapshot["queue"]["workers"][0]["match"] == running.pk


def test_an_elimination_page_draws_its_bracket(organiser):
    competition = make_competition(
        organiser, variant="money-jordan", format="double-elimination", entries=4, games=2
    )
    match = play_one(competition)

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    bracket = page[
        page.index('<div id="bracket">') : page.index(
            "</section>", page.index('<div id="bracket">')
        )
    ]
    for title in ("Winners bracket", "Losers bracket", "Grand final", "Reset final"):
        assert f">{title}<" in bracket
    assert f'<div class="node done" data-node="{match.node}" data-match="{match.pk}">' in bracket
    assert '<div class="node waiting" data-node="GF">' in bracket
    winner = match.seats.get(rank=1).entry.bot.name
    assert f'<div class="seat winner">{winner}<span class="points" title="rank 1 · ' in bracket
    assert "pairings" not in bracket
    assert snapshot_of(page)["rounds"]["bracket"]["sections"][0]["name"] == "Winners bracket"


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
    assert all(len(step["table"]["seats"]) == 3 for step in steps)  # drawn as a card table
    assert steps[0]["table"]["seats"][0]["areas"][0]["parts"] == {"backs": 12}
    for seat in match.seats.select_related("entry__bot"):
        assert seat.entry.bot.name in page  # the seats carry the bots' names
    assert 'id="moves"' in page and 'id="replay-meta"' in page


def test_the_replay_is_only_for_finished_matches_one_may_watch(organiser, outsider):
    competition = make_competition(organiser, is_public=False)
    game = play_one(competition).game_records.first()

    assert Client().get(f"/dashboard/games/{game.pk}/").status_code == 404
    assert logged_in(outsider).get(f"/dashboard/games/{game.pk}/").status_code == 404
    assert logged_in(organiser).get(f"/dashboard/games/{game.pk}/").status_code == 200
    game.match.status = "running"
    game.match.save(update_fields=["status"])
    assert logged_in(organiser).get(f"/dashboard/games/{game.pk}/").status_code == 404


@pytest.mark.parametrize("name, marker", [("live.js", b"new WebSocket"), ("replay.js", b"steps")])
def test_the_page_scripts_are_served(name, marker):
    response = Client().get(f"/dashboard/{name}")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript"
    assert marker in b"".join(response.streaming_content)


def test_only_the_page_scripts_are_served():
    assert Client().get("/dashboard/views.py").status_code == 404
    assert Client().get("/dashboard/..%2Fviews.py").status_code == 404


def replay_steps_of(page: str) -> list[dict]:
    start = page.index('<script id="steps" type="application/json">')
    return json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])


def test_the_competition_page_charts_the_top_ratings_over_time(organiser):
    competition = make_competition(organiser, entries=4)
    url = f"/dashboard/competitions/{competition.pk}/"

    before = Client().get(url).content.decode()
    play_one(competition)
    play_one(competition)
    page = Client().get(url).content.decode()

    assert "<svg" not in before and "no rated matches yet" in before
    assert page.count("<svg") == 1
    svg = page[page.index("<svg") : page.index("</svg>")]
    rated = set(
        RatingEvent.objects.filter(entry__competition=competition).values_list("entry", flat=True)
    )
    assert len(rated) == 4  # two 3-seat matches among 4 entries rate everyone
    assert svg.count("<polyline") == len(rated)
    for entry in rated:
        assert f'<polyline data-entry="{entry}"' in svg
    first = RatingEvent.objects.filter(entry__competition=competition).order_by("sequence").first()
    history = RatingEvent.objects.filter(entry=first.entry)
    line = svg[svg.index(f'data-entry="{first.entry_id}"') :]
    points = line[line.index('points="') + 8 :].split('"')[0].split()
    assert len(points) == history.count() + 1  # the starting rating, then one per match


def test_the_rating_chart_draws_at_most_the_top_ten(organiser):
    competition = make_competition(organiser, entries=12)
    for _ in range(9):  # three rounds of three tables: every entry rated
        play_one(competition)

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    rated = RatingEvent.objects.filter(entry__competition=competition)
    assert rated.values("entry").distinct().count() > 10
    svg = page[page.index("<svg") : page.index("</svg>")]
    assert svg.count("<polyline") == 10


def test_the_full_replay_shows_every_hand_to_staff_and_to_organisers_once_it_ended(
    organiser, staff
):
    competition = make_competition(organiser)
    game = play_one(competition).game_records.order_by("index").first()
    url = f"/dashboard/games/{game.pk}/?view=full"
    competition.refresh_from_db()
    assert competition.status == "finished"  # its only match is played

    for user in (organiser, staff):
        response = logged_in(user).get(url)
        assert response.status_code == 200
        page = response.content.decode()
        assert 'id="full-view"' in page
        steps = replay_steps_of(page)
        assert len(steps) == len(game.record()["actions"]) + 1
        for seat in range(3):
            assert all(f"hand seat {seat}" in step["view"] for step in steps)
        dealt = sum(len(steps[0]["view"][f"hand seat {seat}"]) for seat in range(3))
        assert dealt > 0
        assert sum(len(steps[-1]["view"][f"hand seat {s}"]) for s in range(3)) < dealt

    public = logged_in(organiser).get(f"/dashboard/games/{game.pk}/").content.decode()
    assert all("hand seat 0" not in step["view"] for step in replay_steps_of(public))
    assert 'id="full-view"' not in public and "?view=full" in public

    competition.status = "running"  # while it runs, organisers see no hands; staff do
    competition.save(update_fields=["status"])
    assert logged_in(organiser).get(url).status_code == 403
    assert logged_in(staff).get(url).status_code == 200


def test_the_full_replay_is_forbidden_to_everyone_else(organiser, outsider):
    competition = make_competition(organiser)
    game = play_one(competition).game_records.order_by("index").first()
    url = f"/dashboard/games/{game.pk}/"

    refused = Client().get(url + "?view=full")
    assert refused.status_code == 403
    assert "organisers allow full replays" in refused.content.decode()  # says who may
    assert logged_in(outsider).get(url + "?view=full").status_code == 403
    response = logged_in(outsider).get(url)  # the default stays the public view
    assert response.status_code == 200
    page = response.content.decode()
    assert "?view=full" not in page
    assert all(
        not any(key.startswith("hand seat") for key in step["view"])
        for step in replay_steps_of(page)
    )
