"""Dashboard pages through the Django test client: visibility, live data, the replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import (
    json_block,
    logged_in,
    make_competition,
    make_user,
    play_one,
    snapshot_of,
)
from tests.static_files import JAVASCRIPT, link_targets, script_sources, static_get
from tournaments.live.events import worker_label
from tournaments.models import RatingEvent
from tournaments.selectors import standings_for_competition
from tournaments.worker import execution

pytestmark = pytest.mark.django_db

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"


def test_the_list_shows_what_each_user_may_watch(organiser, outsider):
    make_competition(organiser, name="Open night", start=True, entries=3)
    make_competition(organiser, name="Closed night", is_public=False, start=True, entries=3)

    anonymous = Client().get("/dashboard/").content.decode()
    outsiders = logged_in(outsider).get("/dashboard/").content.decode()
    organisers = logged_in(organiser).get("/dashboard/").content.decode()

    assert "Open night" in anonymous and "Closed night" not in anonymous
    assert "Closed night" not in outsiders
    assert "Open night" in organisers and "Closed night" in organisers
    assert "0 / 1" in anonymous  # matches done / total
    assert 'class="progress"' in anonymous and 'style="width: 0%"' in anonymous


def test_the_list_draws_a_progress_bar_per_competition(organiser):
    # Eight entries at three seats: 16 tables in all, two of them in round one.
    competition = make_competition(organiser, entries=8, start=True)
    play_one(competition)

    page = Client().get("/dashboard/").content.decode()

    assert 'aria-valuenow="6"' in page and 'style="width: 6%"' in page  # 1 of 16
    assert "1 / 16" in page


def test_a_private_competition_is_hidden_from_others(organiser, outsider):
    competition = make_competition(organiser, is_public=False, start=True, entries=3)
    url = f"/dashboard/competitions/{competition.pk}/"

    assert Client().get(url).status_code == 404
    assert logged_in(outsider).get(url).status_code == 404
    assert logged_in(organiser).get(url).status_code == 200
    assert logged_in(make_user("root", is_staff=True)).get(url).status_code == 200


def test_the_competition_page_renders_standings_matches_and_its_snapshot(organiser):
    competition = make_competition(organiser, start=True, entries=3)
    match = play_one(competition)

    response = Client().get(f"/dashboard/competitions/{competition.pk}/")

    page = response.content.decode()
    assert response.status_code == 200
    entries = page[
        page.index('<table id="entries">') : page.index(
            "</table>", page.index('<table id="entries">')
        )
    ]
    for entry in competition.entries.select_related("bot"):
        assert entry.bot.name in entries
    assert 'id="failed"' not in page  # organisers only
    start = page.index('<script id="snapshot" type="application/json">')
    snapshot = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert snapshot["type"] == "snapshot" and len(snapshot["standings"]) == 3
    assert snapshot["matches"]["recent"][0]["id"] == match.pk
    assert (
        'id="failed"'
        in logged_in(organiser).get(f"/dashboard/competitions/{competition.pk}/").content.decode()
    )


def test_the_standings_carry_each_rating_trend_for_the_page_script(organiser):
    competition = make_competition(organiser, entries=4, start=True)
    play_one(competition)

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    rows = standings_for_competition(competition=competition)
    drawn = snapshot_of(page)["standings"]
    assert [r["entry"] for r in drawn] == [r["entry"] for r in rows]
    assert [r["trend"] for r in drawn] == pytest.approx([r["trend"] for r in rows])
    assert sum(row["trend"] is None for row in drawn) == 1  # one of four sat out
    assert any(r["trend"] and r["trend"] > 0 for r in drawn)
    assert any(r["trend"] and r["trend"] < 0 for r in drawn)
    # One renderer: the panel is empty in the HTML, drawn by live.js from the snapshot.
    assert '<table id="standings"></table>' in page


def test_the_competition_page_snapshot_holds_rounds_pairings_and_the_queue(organiser):
    competition = make_competition(organiser, entries=8, start=True)
    match = play_one(competition)
    running = competition.matches.exclude(pk=match.pk).get()
    execution.match_claim(match_id=running.pk, claimed_by="host-c/99/task-1")

    # As its organiser: the workers and queue panel is theirs (and staff's).
    page = logged_in(organiser).get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    snapshot = snapshot_of(page)
    assert snapshot["rounds"]["rounds"] == [
        {"number": 1, "status": "running", "matches": 2, "done": 1}
    ]
    tables = {t["id"]: t["status"] for t in snapshot["rounds"]["current"]["tables"]}
    assert tables == {match.pk: "done", running.pk: "running"}
    queue = snapshot["queue"]
    assert (queue["running"], queue["done"]) == (1, 1)
    assert snapshot["progress"]["running"] == 1 and snapshot["progress"]["done"] == 1
    assert queue["workers"][0]["match"] == running.pk
    assert "host-c/99" not in page  # worker processes are named to staff only
    assert queue["workers"][0]["worker"] == worker_label("host-c/99")


def test_an_elimination_page_carries_its_bracket(organiser):
    competition = make_competition(
        organiser,
        variant="money-jordan",
        format="double-elimination",
        entries=4,
        games=2,
        start=True,
    )
    match = play_one(competition)

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    bracket = snapshot_of(page)["rounds"]["bracket"]
    names = [section["name"] for section in bracket["sections"]]
    assert names == ["Winners bracket", "Losers bracket", "Grand final"]
    boxes = {
        box["node"]: box
        for section in bracket["sections"]
        for column in section["columns"]
        for box in column["nodes"]
    }
    assert boxes[match.node]["match"] == match.pk and boxes[match.node]["status"] == "done"
    assert boxes["GF"]["status"] == "waiting"
    winner = match.seats.get(rank=1).entry.bot.name
    assert [s["name"] for s in boxes[match.node]["seats"] if s["winner"]] == [winner]


def test_the_problem_bots_count_non_ok_statuses_in_words(organiser):
    competition = make_competition(organiser, start=True, entries=3)
    match = play_one(competition)
    seat = match.seats.order_by("seat").first()
    seat.statuses = {"ok": 1, "timeout": 2}
    seat.save(update_fields=["statuses"])

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    problems = snapshot_of(page)["problems"]
    assert problems == [{"name": seat.entry.bot.name, "statuses": {"timeout": 2}, "total": 2}]
    words = json_block(page, "words")
    assert words["game"]["timeout"] == "ran out of time"


def test_the_replay_steps_through_a_finished_game(organiser):
    competition = make_competition(organiser, start=True, entries=3)
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
    competition = make_competition(organiser, is_public=False, start=True, entries=3)
    game = play_one(competition).game_records.first()

    assert Client().get(f"/dashboard/games/{game.pk}/").status_code == 404
    assert logged_in(outsider).get(f"/dashboard/games/{game.pk}/").status_code == 404
    assert logged_in(organiser).get(f"/dashboard/games/{game.pk}/").status_code == 200
    game.match.status = "running"
    game.match.save(update_fields=["status"])
    assert logged_in(organiser).get(f"/dashboard/games/{game.pk}/").status_code == 404


def test_each_dashboard_page_loads_its_own_script_and_the_styles_as_static_files(organiser):
    competition = make_competition(organiser, start=True, entries=3)
    match = play_one(competition)
    game = match.game_records.order_by("index").first()
    pages = {"dashboard/live.js": f"/dashboard/competitions/{competition.pk}/"}
    pages["dashboard/replay.js"] = f"/dashboard/games/{game.pk}/"
    html = {script: Client().get(url).content.decode() for script, url in pages.items()}
    match.status = "running"
    match.save(update_fields=["status"])
    html["dashboard/match.js"] = Client().get(f"/dashboard/matches/{match.pk}/").content.decode()

    for script, page in html.items():
        (src,) = script_sources(page)
        served = static_get(src)
        assert served.status == 200 and served.content_type in JAVASCRIPT, src
        assert served.body == (STATIC / script).read_bytes(), src
        styles = link_targets(page, "stylesheet")
        assert [s.rsplit("/", 1)[-1] for s in styles] == ["pico.min.css", "site.css"]
        for href in styles:
            served = static_get(href)
            assert served.status == 200 and served.content_type == "text/css", href
            assert served.body == (STATIC / "cardroom" / href.rsplit("/", 1)[-1]).read_bytes()


def test_the_old_script_addresses_are_gone_and_no_source_file_is_served():
    for old in ("/dashboard/live.js", "/dashboard/favicon.svg", "/dashboard/views.py"):
        assert Client().get(old).status_code == 404, old
    for name in ("web/dashboard/views.py", "..%2Fdashboard%2Fviews.py", "..%2Furls.py"):
        served = static_get(f"{settings.STATIC_URL}{name}")
        assert served.status in (404, 500) and b"import" not in served.body, name


def replay_steps_of(page: str) -> list[dict]:
    start = page.index('<script id="steps" type="application/json">')
    return json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])


def test_the_competition_page_charts_the_top_ratings_over_time(organiser):
    competition = make_competition(organiser, entries=4, start=True)
    url = f"/dashboard/competitions/{competition.pk}/"

    before = snapshot_of(Client().get(url).content.decode())
    play_one(competition)
    play_one(competition)
    page = Client().get(url).content.decode()

    assert before["chart"]["series"] == []
    assert "<svg" not in page  # laid out once, by the page script
    series = snapshot_of(page)["chart"]["series"]
    rated = set(
        RatingEvent.objects.filter(entry__competition=competition).values_list("entry", flat=True)
    )
    assert len(rated) == 4  # two 3-seat matches among 4 entries rate everyone
    assert {line["entry"] for line in series} == rated
    for line in series:
        history = RatingEvent.objects.filter(entry=line["entry"])
        assert len(line["points"]) == history.count() + 1  # the start, then one per match


def test_the_rating_chart_holds_at_most_the_top_ten(organiser):
    competition = make_competition(organiser, entries=12, start=True)
    for _ in range(9):  # three rounds of three tables: every entry rated
        play_one(competition)

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    rated = RatingEvent.objects.filter(entry__competition=competition)
    assert rated.values("entry").distinct().count() > 10
    series = snapshot_of(page)["chart"]["series"]
    top = [row["entry"] for row in snapshot_of(page)["standings"][:10]]
    assert [line["entry"] for line in series] == top


def test_the_full_replay_shows_every_hand_to_staff_and_to_organisers_once_it_ended(
    organiser, staff
):
    competition = make_competition(organiser, start=True, entries=3)
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
    competition = make_competition(organiser, start=True, entries=3)
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


def test_why_a_match_failed_is_shown_to_its_organisers_and_bot_owners_only(organiser, outsider):
    competition = make_competition(organiser, start=True, entries=3)
    match = competition.matches.first()
    owner = make_user("ada")
    seat = match.seats.select_related("entry__bot").first()
    type(seat.entry.bot).objects.filter(pk=seat.entry.bot_id).update(owner=owner)
    execution.match_claim(match_id=match.pk, claimed_by="w")
    execution.match_fail(match_id=match.pk, claimed_by="w", error="ada/bot has no ready version")
    url = f"/dashboard/matches/{match.pk}/"

    for user in (organiser, owner):
        page = logged_in(user).get(url).content.decode()
        assert "gave up on this match: ada/bot has no ready version." in page
    for client in (logged_in(outsider), Client()):
        page = client.get(url).content.decode()
        assert "gave up on this match" in page and "no ready version" not in page
