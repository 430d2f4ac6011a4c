"""A club secretary's two-division league season, finished, as its page and its downloads
give it: a champion named per division, each division's standings and crosstable to
download (from the page and from the API) with that division's entries only, and files
that count divisions, tables and seats from 1 and round ratings as the page shows them."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.utils.html import escape

from bots.models import Bot
from tests.factories import play_one, snapshot_of
from tests.leagues import league_season
from tournaments import selectors, services
from tournaments.models import MatchSeat

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def downloads_unlimited(settings):
    """Many downloads of every match result from one address: not what these tests are
    about (test_downloads.py tests the limit)."""
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "download": "1000/min"}


@pytest.fixture
def league(organiser):
    """Ten bots in two divisions of five (a round robin each), played to the end; the
    page's standings (its snapshot) come with it."""
    season = league_season(
        organiser, entries=10, division_size=5, builtin=lambda i: "greedy" if i % 3 else "random"
    )
    call_command("run_competition", str(season.pk), "--inline")
    season.refresh_from_db()
    assert season.status == "finished"
    page = Client().get(f"/dashboard/competitions/{season.pk}/").content.decode()
    season.page = page
    season.rows = snapshot_of(page)["standings"]
    return season


def csv_of(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def division(rows: list[dict], number: int) -> list[dict]:
    """The page's standings rows of Division ``number`` (as the page counts)."""
    return [r for r in rows if r["division"] == number - 1]


def met(a: int, b: int) -> float | None:
    """A's points against B, counted from the stored match seats: per match they shared,
    1 if A finished ahead, ½ level, 0 behind; None if they never met."""
    total, meetings = 0.0, 0
    for seat in MatchSeat.objects.filter(entry_id=a, match__status="done"):
        other = MatchSeat.objects.filter(match_id=seat.match_id, entry_id=b).first()
        if other is not None:
            meetings += 1
            total += 1.0 if seat.rank < other.rank else 0.5 if seat.rank == other.rank else 0.0
    return total if meetings else None


def test_each_division_has_its_own_champion_named_as_such(league):
    second = division(league.rows, 2)
    first = division(league.rows, 1)

    found = dict(
        re.findall(r'class="champion"[^>]*>(Division \d) champion: <b>([^<]+)</b>', league.page)
    )

    assert found == {"Division 1": first[0]["name"], "Division 2": second[0]["name"]}
    assert second[0]["rank"] == 1 and second[0]["points"] == max(r["points"] for r in second)
    assert "Champion:" not in league.page  # no one champion for both divisions


def test_the_page_links_each_divisions_standings_and_crosstable(league):
    for number in (1, 2):
        for table in ("standings", "crosstable"):
            for kind in ("csv", "json"):
                url = f"/dashboard/competitions/{league.pk}/{table}.{kind}?division_number={number}"
                assert f'href="{url}"' in league.page, url


def test_the_division_1_crosstable_holds_division_1_alone_with_each_result(league):
    first = division(league.rows, 1)
    names = [r["name"] for r in first]
    url = f"/dashboard/competitions/{league.pk}/crosstable.csv?division_number=1"

    response = Client().get(url)
    rows = csv_of(response)
    api = Client().get(f"/api/competitions/{league.pk}/crosstable/?division_number=1&format=csv")
    as_json = Client().get(f"/api/competitions/{league.pk}/crosstable/?division_number=1").json()

    assert "division-1-crosstable.csv" in response["Content-Disposition"]
    assert [int(r["entry"]) for r in rows] == [r["entry"] for r in first]
    opponents = [c.removeprefix("vs ") for c in rows[0] if c.startswith("vs ")]
    assert opponents == names  # five columns: Division 1's entries, none of Division 2
    assert {r["division_number"] for r in rows} == {"1"}
    top, last = first[0]["entry"], first[-1]["entry"]
    top_row = next(r for r in rows if int(r["entry"]) == top)
    expected = met(top, last)
    assert expected is not None and float(top_row[f"vs {first[-1]['name']}"]) == expected
    assert top_row[f"vs {first[0]['name']}"] == "x"  # itself
    assert api.content == response.content  # the API's file is the site's
    assert [e["entry"] for e in as_json["entries"]] == [r["entry"] for r in first]
    assert all(len(row["cells"]) == 5 for row in as_json["rows"])


def test_the_division_2_standings_files_hold_division_2_in_the_pages_order(league):
    second = division(league.rows, 2)
    site = f"/dashboard/competitions/{league.pk}/standings"

    rows = csv_of(Client().get(f"{site}.csv?division_number=2"))
    body = Client().get(f"{site}.json?division_number=2").json()
    api = Client().get(f"/api/competitions/{league.pk}/standings/?division_number=2").json()
    by_old_name = Client().get(f"/api/competitions/{league.pk}/standings/?division=1").json()

    assert [int(r["entry"]) for r in rows] == [r["entry"] for r in second]
    assert {r["division_number"] for r in rows} == {"2"} and rows[0]["rank"] == "1"
    assert (body["division_number"], body["division"]) == (2, 1)
    assert [r["entry"] for r in body["standings"]] == [r["entry"] for r in second]
    assert {r["division"] for r in body["standings"]} == {1}  # the JSON's field, kept
    assert (
        [r["entry"] for r in api]
        == [r["entry"] for r in second]
        == [r["entry"] for r in by_old_name]
    )
    assert {r["division_number"] for r in api} == {2}
    # Division 2's matches: only its entries sat at them.
    matches = Client().get(f"/api/competitions/{league.pk}/results/?division_number=2").json()
    seated = {seat["entry"] for match in matches for seat in match["seats"]}
    assert len(matches) == 10 and seated == {r["entry"] for r in second}


def test_the_files_count_from_1_and_round_ratings_as_the_page(league):
    site = f"/dashboard/competitions/{league.pk}"

    standings = csv_of(Client().get(f"{site}/standings.csv"))
    matches = csv_of(Client().get(f"{site}/matches.csv"))

    assert [r["division_number"] for r in standings] == ["1"] * 5 + ["2"] * 5
    # The first table of a round is 1, and the seats of a two-seat table are 1 and 2.
    assert min(int(r["table_number"]) for r in matches) == 1
    assert {r["seat_number"] for r in matches} == {"1", "2"}
    assert min(int(r["round"]) for r in matches) == 1
    # The API's JSON keeps its fields from 0 and gives the same numbers from 1 beside them.
    results = Client().get(f"/api/competitions/{league.pk}/results/").json()
    assert all(m["table_number"] == m["table"] + 1 for m in results)
    assert all(s["seat_number"] == s["seat"] + 1 for m in results for s in m["seats"])
    assert all(s["game_points"] == s["points"] for m in results for s in m["seats"])
    for row, shown in zip(standings, league.rows, strict=True):
        # The page draws the rating with two decimals (live.js: toFixed(2)).
        assert row["rating"] == f"{shown['rating']:.2f}"
        assert row["sigma"] == f"{shown['sigma']:.2f}"
    assert all(len(r["mu"].split(".")[1]) == 2 for r in standings)


def test_points_mean_one_thing_in_every_file(league):
    site = f"/dashboard/competitions/{league.pk}"
    standings = csv_of(Client().get(f"{site}/standings.csv"))
    matches = csv_of(Client().get(f"{site}/matches.csv"))
    crosstable = csv_of(Client().get(f"{site}/crosstable.csv?division_number=1"))

    # "points" are the standings' league points wherever a file has them; a match's game
    # points are "game_points".
    assert "points" not in matches[0] and "game_points" in matches[0]
    league_points = {r["entry"]: r["points"] for r in standings}
    assert all(r["points"] == league_points[r["entry"]] for r in crosstable)
    seat = MatchSeat.objects.get(match_id=int(matches[0]["match"]), entry_id=matches[0]["entry"])
    assert float(matches[0]["game_points"]) == seat.points
    # Every column of every file the secretary downloaded is on the help page, with what
    # it means (the opponents' columns of the crosstable as "vs <name>").
    help_page = Client().get("/help/").content.decode()
    columns = [*standings[0], *matches[0], *crosstable[0]]
    for column in {("vs <name>" if c.startswith("vs ") else c) for c in columns}:
        meaning = escape(selectors.COLUMN_MEANINGS[column])
        said = f"<td><code>{escape(column)}</code></td><td>{meaning}</td>"
        assert said in help_page, column


def test_a_division_the_season_does_not_have_is_refused_by_name(league, organiser):
    site = f"/dashboard/competitions/{league.pk}/standings.csv?division_number=3"
    api = f"/api/competitions/{league.pk}/crosstable/?division_number=0"
    tournament = services.competition_create(
        created_by=organiser,
        name="Cup",
        kind="tournament",
        variant="money-jordan",
        format="round-robin",
        games_per_match=2,
    )

    refused = Client().get(site)
    refused_api = Client().get(api)
    not_a_league = Client().get(f"/api/competitions/{tournament.pk}/standings/?division_number=1")

    assert refused.status_code == 400
    assert "division_number must be 1 to 2 (1 is the top one), got '3'" in refused.content.decode()
    assert refused_api.status_code == 400
    assert "division_number must be 1 to 2" in str(refused_api.json()["division_number"])
    assert not_a_league.status_code == 400
    assert "only a league season has divisions" in str(not_a_league.json()["division_number"])


def test_a_season_closed_early_names_each_divisions_leader_not_a_champion(organiser):
    season = services.competition_create(
        created_by=organiser,
        name="Short league",
        kind="league-season",
        variant="money-jordan",
        format="round-robin",
        games_per_match=2,
        division_size=2,
    )
    for i in range(4):
        bot = Bot.objects.create(name=f"early-{i}", builtin="greedy" if i % 2 else "random")
        services.entry_create(competition=season, bot=bot)
    services.competition_start(competition=season, by=organiser, send=None)
    play_one(season)
    with transaction.atomic():
        services.competition_close(competition=season, by=organiser, apply_promotion=False)

    page = Client().get(f"/dashboard/competitions/{season.pk}/").content.decode()
    rows = snapshot_of(page)["standings"]

    said = re.findall(r'class="champion"[^>]*>([^<]+): <b>([^<]+)</b>', page)
    # Each division's first place (shared by those level: a division that has not
    # played yet has its entries level).
    leaders = [
        ", ".join(r["name"] for r in rows if r["rank"] == 1 and r["division"] == d) for d in (0, 1)
    ]
    assert [label for label, _ in said] == [
        "Division 1 leader when it closed",
        "Division 2 leader when it closed",
    ]
    assert [name for _, name in said] == leaders
