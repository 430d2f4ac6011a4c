"""Results out: a competition's standings and every match result, as CSV and JSON, from
its page and from the API; the rows are the page's, in its order; a private
competition's downloads are for those who may see it."""

from __future__ import annotations

import csv
import io
import random

import pytest
from django.test import Client

from tests.factories import logged_in, make_competition, make_user, play_all, snapshot_of
from tournaments.models import Match
from tournaments.selectors import MATCH_COLUMNS, STANDINGS_COLUMNS

pytestmark = pytest.mark.django_db

DOWNLOADS = (
    "standings.csv",
    "standings.json",
    "matches.csv",
    "matches.json",
    "crosstable.csv",
    "crosstable.json",
)


@pytest.fixture(autouse=True)
def downloads_unlimited(settings):
    """The anonymous downloads of these tests are not what the rate limit is about (one
    test below sets its own): other tests of the same address share its window."""
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "download": "1000/min"}


def an_address() -> str:
    """A client address of this test alone (rate limits count per address and minute)."""
    return "10." + ".".join(str(random.randrange(1, 255)) for _ in range(3))


def csv_rows(response) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(response.content.decode()))
    return list(reader.fieldnames or []), list(reader)


@pytest.fixture
def played(organiser):
    """A round robin of four two-seat bots, played to the end (six matches)."""
    competition = make_competition(
        organiser, entries=4, variant="money-jordan", games=2, start=True
    )
    play_all(competition)
    competition.refresh_from_db()
    assert competition.status == "finished"
    return competition


def test_the_page_links_every_download(played):
    page = Client().get(f"/dashboard/competitions/{played.pk}/").content.decode()
    for name in DOWNLOADS:
        assert f'href="/dashboard/competitions/{played.pk}/{name}"' in page
    assert "final standings" in page


def test_the_standings_csv_is_the_page_table_winner_first(played):
    page = Client().get(f"/dashboard/competitions/{played.pk}/").content.decode()
    table = snapshot_of(page)["standings"]

    response = Client().get(f"/dashboard/competitions/{played.pk}/standings.csv")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    header, rows = csv_rows(response)
    assert header == list(STANDINGS_COLUMNS)
    assert header[:6] == ["rank", "bot", "owner", "points", "games", "rating"]
    assert [r["entry"] for r in rows] == [str(row["entry"]) for row in table]  # page order
    winner = rows[0]
    assert winner["rank"] == "1" and table[0]["name"].endswith(winner["bot"])
    assert float(winner["points"]) == table[0]["points"] == max(r["points"] for r in table)
    for row, shown in zip(rows, table, strict=True):
        assert float(row["points"]) == shown["points"]
        assert int(row["games"]) == shown["games"]
        assert row["rating"] == f"{shown['rating']:.2f}"  # as the page draws it
        assert row["owner"] == "built-in" and row["status"] == "in"


def test_the_standings_json_holds_the_same_rows(played):
    csv_header, csv_body = csv_rows(
        Client().get(f"/dashboard/competitions/{played.pk}/standings.csv")
    )
    body = Client().get(f"/dashboard/competitions/{played.pk}/standings.json").json()

    assert body["competition"] == played.pk and body["name"] == played.name
    assert [row["bot"] for row in body["standings"]] == [row["bot"] for row in csv_body]
    # Every CSV column, in its order, then the fields kept for programs (docs: help page).
    assert list(body["standings"][0])[: len(csv_header)] == csv_header
    assert list(body["standings"][0])[len(csv_header) :] == ["division"]
    assert body["standings"][0]["rank"] == 1


def test_the_match_results_hold_every_seat_of_every_match(played):
    done = played.matches.filter(status=Match.Status.DONE)
    assert done.count() == 6

    header, rows = csv_rows(Client().get(f"/dashboard/competitions/{played.pk}/matches.csv"))
    body = Client().get(f"/dashboard/competitions/{played.pk}/matches.json").json()

    assert header == list(MATCH_COLUMNS)
    assert len(rows) == 12  # six matches of two seats
    assert [m["match"] for m in body["matches"]] == sorted(
        {int(r["match"]) for r in rows}, key=[int(r["match"]) for r in rows].index
    )
    for match in done.prefetch_related("seats"):
        stored = {s.seat: s for s in match.seats.all()}
        mine = [r for r in rows if r["match"] == str(match.pk)]
        # Seats are counted from 1 in the file, as the pages count them.
        assert {int(r["seat_number"]): int(r["place"]) for r in mine} == {
            seat + 1: s.rank for seat, s in stored.items()
        }
        assert {int(r["seat_number"]): float(r["game_points"]) for r in mine} == {
            seat + 1: s.points for seat, s in stored.items()
        }
    # The standings' points add up from the downloaded results: per match, 1 for each
    # opponent finished ahead of, a half for each level with it.
    standings = Client().get(f"/dashboard/competitions/{played.pk}/standings.json").json()
    earned: dict[int, float] = {}
    for match in body["matches"]:
        for seat in match["seats"]:
            others = [o["rank"] for o in match["seats"] if o is not seat]
            won = sum(1.0 if seat["rank"] < r else 0.5 if seat["rank"] == r else 0 for r in others)
            earned[seat["entry"]] = earned.get(seat["entry"], 0) + won
    assert {row["entry"]: row["points"] for row in standings["standings"]} == earned


def test_the_api_gives_the_same_downloads(played):
    api = Client().get(f"/api/competitions/{played.pk}/standings/")
    assert api.status_code == 200 and isinstance(api.json(), list)
    assert {"rank", "entry", "name", "rating", "points"} <= set(api.json()[0])  # unchanged

    as_csv = Client().get(f"/api/competitions/{played.pk}/standings/?format=csv")
    site_csv = Client().get(f"/dashboard/competitions/{played.pk}/standings.csv")
    assert as_csv.status_code == 200 and as_csv["Content-Type"].startswith("text/csv")
    assert as_csv.content == site_csv.content

    results = Client().get(f"/api/competitions/{played.pk}/results/").json()
    site = Client().get(f"/dashboard/competitions/{played.pk}/matches.json").json()
    assert results == site["matches"]
    results_csv = Client().get(f"/api/competitions/{played.pk}/results/?format=csv")
    assert (
        results_csv.content
        == Client().get(f"/dashboard/competitions/{played.pk}/matches.csv").content
    )


def test_a_private_competitions_downloads_are_its_organisers(organiser):
    hidden = make_competition(
        organiser, is_public=False, variant="money-jordan", games=2, start=True, entries=3
    )
    outsider = make_user("otto")
    urls = [f"/dashboard/competitions/{hidden.pk}/{name}" for name in DOWNLOADS] + [
        f"/api/competitions/{hidden.pk}/standings/?format=csv",
        f"/api/competitions/{hidden.pk}/results/",
        f"/api/competitions/{hidden.pk}/crosstable/?format=csv",
    ]
    for url in urls:
        assert Client().get(url).status_code == 404, url
        assert logged_in(outsider).get(url).status_code == 404, url
        assert logged_in(organiser).get(url).status_code == 200, url


def test_an_anonymous_address_has_only_so_many_downloads_of_every_match_a_minute(
    settings, played, organiser, one_rate_window
):
    """Every match result of a competition is a heavy read (an open ladder's grows with each
    match): an anonymous address has so many a minute, site and API together; the
    standings, signed-in users and other addresses are not limited."""
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "download": "2/min"}
    address = an_address()
    visitor = Client(REMOTE_ADDR=address)
    site = f"/dashboard/competitions/{played.pk}"
    api = f"/api/competitions/{played.pk}/results/"
    hidden = make_competition(
        organiser, is_public=False, variant="money-jordan", games=2, start=True, entries=3
    )

    seen = [visitor.get(f"{site}/matches.csv").status_code, visitor.get(api).status_code]
    refused = visitor.get(f"{site}/matches.json")
    refused_api = visitor.get(api + "?format=csv")
    signed_in = Client(REMOTE_ADDR=address)
    signed_in.force_login(make_user("reader"))

    assert seen == [200, 200]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many downloads of every match result" in refused.content.decode()
    assert "sign in" in refused.content.decode()
    assert refused_api.status_code == 429 and int(refused_api["Retry-After"]) > 0
    assert visitor.get(f"{site}/standings.csv").status_code == 200  # not limited
    assert visitor.get(f"/dashboard/competitions/{hidden.pk}/matches.csv").status_code == 404
    assert signed_in.get(f"{site}/matches.json").status_code == 200
    assert Client(REMOTE_ADDR=an_address()).get(api).status_code == 200


def test_the_crosstable_file_is_the_pages_table_and_only_round_robins_have_one(played, organiser):
    """A round robin of four: a row per entry in standings order and a column per
    opponent, the cell of A against B A's result against B; a Swiss has no crosstable."""
    standings = Client().get(f"/dashboard/competitions/{played.pk}/standings.json").json()
    order = [row["entry"] for row in standings["standings"]]
    header, rows = csv_rows(Client().get(f"/dashboard/competitions/{played.pk}/crosstable.csv"))
    body = Client().get(f"/dashboard/competitions/{played.pk}/crosstable.json").json()
    api = Client().get(f"/api/competitions/{played.pk}/crosstable/?format=csv")
    swiss = make_competition(
        organiser,
        format="swiss",
        rounds_planned=2,
        variant="money-jordan",
        games=2,
        start=True,
        entries=4,
    )

    assert [int(r["entry"]) for r in rows] == order
    assert [c for c in header if c.startswith("vs ")] == [
        f"vs {e['name']}" for e in body["crosstable"]["entries"]
    ]
    results = Client().get(f"/dashboard/competitions/{played.pk}/matches.json").json()
    for match in results["matches"]:
        a, b = match["seats"]
        row = next(r for r in rows if int(r["entry"]) == a["entry"])
        name = next(e["name"] for e in body["crosstable"]["entries"] if e["entry"] == b["entry"])
        ahead = 1 if a["place"] < b["place"] else 0.5 if a["place"] == b["place"] else 0
        assert float(row[f"vs {name}"]) == ahead  # they met once
    site = Client().get(f"/dashboard/competitions/{played.pk}/crosstable.csv")
    assert api.content == site.content
    assert Client().get(f"/dashboard/competitions/{swiss.pk}/crosstable.csv").status_code == 404
