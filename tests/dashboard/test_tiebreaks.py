"""Tie-breaks a club understands, through the database: level on points, the winner of
their game is above "on head-to-head" on the page, in the API and in the downloads; a tie
nothing separates is shared; the crosstable cell of A against B is A's result against B;
every round's results are on the page and in the API."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client

from tests.factories import HEAD_TO_HEAD, make_competition, play_all, rig, snapshot_of
from tests.leagues import league_season
from tournaments import selectors, services
from tournaments.models import Competition, Entry, MatchSeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def four(organiser) -> Competition:
    """A finished round robin of four two-seat bots (six matches), played for real;
    duplicate (every deal once per seat rotation), the default."""
    competition = make_competition(
        organiser, entries=4, variant="money-jordan", games=2, start=True
    )
    play_all(competition)
    competition.refresh_from_db()
    assert competition.status == "finished" and competition.matches.count() == 6
    return competition


def test_level_on_points_the_winner_of_their_game_is_above_on_head_to_head(four):
    ids = rig(four, HEAD_TO_HEAD)
    # The losers of the two games rate higher: the rating is not what decides.
    Entry.objects.filter(pk__in=[ids["b"], ids["c"]]).update(mu=40.0, sigma=1.0)

    rows = selectors.standings_for_competition(competition=four)

    order = {row["entry"]: i for i, row in enumerate(rows)}
    assert [row["points"] for row in rows] == [2, 2, 1, 1]
    assert order[ids["a"]] == 0 and order[ids["b"]] == 1
    assert order[ids["d"]] == 2 and order[ids["c"]] == 3
    assert [(row["rank"], row["shared"]) for row in rows] == [(n, False) for n in (1, 2, 3, 4)]
    assert [row["separated_by"] for row in rows] == [None, "head_to_head", "points", "head_to_head"]
    assert rows[0]["tiebreaks"]["head_to_head"] == 1.0 and rows[1]["tiebreaks"]["head_to_head"] == 0


def test_the_api_and_the_downloads_say_what_separated_the_rows(four):
    ids = rig(four, HEAD_TO_HEAD)

    api = Client().get(f"/api/competitions/{four.pk}/standings/").json()
    detail = Client().get(f"/api/competitions/{four.pk}/").json()
    text = Client().get(f"/dashboard/competitions/{four.pk}/standings.csv").content.decode()

    assert [row["entry"] for row in api[:2]] == [ids["a"], ids["b"]]
    assert api[1]["separated_by"] == "head_to_head" and api[1]["shared"] is False
    assert detail["tiebreak_chain"] == ["points", "head_to_head", "score", "rating"]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [int(r["entry"]) for r in rows[:2]] == [ids["a"], ids["b"]]
    assert rows[1]["separated_by"] == "head_to_head" and rows[1]["rank"] == "2"
    assert rows[1]["shared"] == "False"


def test_the_page_says_the_chain_and_the_step(four):
    rig(four, HEAD_TO_HEAD)

    page = Client().get(f"/dashboard/competitions/{four.pk}/").content.decode()

    assert (
        "Ordered by points, then head-to-head among the tied, then duplicate score "
        "(total game score), then rating (mu - 3 sigma, to two decimals)"
    ) in page
    snapshot = snapshot_of(page)
    assert snapshot["chain"][0] == "points"
    assert [row["separated_by"] for row in snapshot["standings"]][1] == "head_to_head"


def test_a_tie_nothing_separates_is_shared(four):
    # Every match level, every rating equal: nothing tells the four apart.
    rig(four, dict.fromkeys(HEAD_TO_HEAD))
    four.entries.update(mu=25.0, sigma=5.0)

    rows = selectors.standings_for_competition(competition=four)
    api = Client().get(f"/api/competitions/{four.pk}/standings/").json()

    assert [(row["rank"], row["shared"], row["separated_by"]) for row in rows] == [
        (1, True, None)
    ] * 4
    assert all(row["rank"] == 1 and row["shared"] for row in api)
    page = Client().get(f"/dashboard/competitions/{four.pk}/").content.decode()
    champion = re.search(r'<p id="champion" class="champion">Champion: <b>([^<]+)</b>', page)
    assert champion and len(champion.group(1).split(", ")) == 4  # the first place is shared


def test_level_on_points_and_head_to_head_the_duplicate_score_decides(four):
    # Every match level on game points; a took 30 chips off b over their deals.
    ids = rig(four, dict.fromkeys(HEAD_TO_HEAD))
    four.entries.update(mu=25.0, sigma=5.0)
    their = four.matches.filter(seats__entry_id=ids["a"]).get(seats__entry_id=ids["b"])
    their.seats.filter(entry_id=ids["a"]).update(score=30.0)
    their.seats.filter(entry_id=ids["b"]).update(score=-30.0)

    rows = selectors.standings_for_competition(competition=four)

    assert rows[0]["entry"] == ids["a"] and rows[-1]["entry"] == ids["b"]
    assert [(row["rank"], row["shared"], row["separated_by"]) for row in rows] == [
        (1, False, None),
        (2, True, "score"),
        (2, True, None),
        (4, False, "score"),
    ]
    assert rows[0]["tiebreaks"]["score"] == 30.0


def test_a_round_robin_not_duplicate_falls_to_sonneborn_berger(organiser):
    competition = make_competition(
        organiser, entries=4, variant="money-jordan", games=2, start=True
    )
    Competition.objects.filter(pk=competition.pk).update(duplicate=False)
    competition.refresh_from_db()

    assert selectors.standings_chain(competition) == (
        "points",
        "head_to_head",
        "sonneborn_berger",
        "rating",
    )
    detail = Client().get(f"/api/competitions/{competition.pk}/").json()
    assert detail["tiebreak_chain"][2] == "sonneborn_berger"


def test_the_crosstable_cell_of_a_against_b_is_a_s_result_against_b(four):
    ids = rig(four, HEAD_TO_HEAD)

    body = Client().get(f"/api/competitions/{four.pk}/crosstable/").json()

    columns = [e["entry"] for e in body["entries"]]
    assert columns[:2] == [ids["a"], ids["b"]]  # standings order

    def cell(row: str, column: str) -> dict:
        line = next(r for r in body["rows"] if r["entry"] == ids[row])
        return line["cells"][columns.index(ids[column])]

    assert cell("a", "b")["score"] == 1 and cell("b", "a")["score"] == 0
    assert cell("a", "c")["results"] == [0.0] and cell("c", "a")["results"] == [1.0]
    assert cell("a", "a")["meetings"] == 0 and cell("a", "a")["score"] is None
    for row in body["rows"]:
        total = sum(c["score"] or 0 for c in row["cells"])
        assert total == next(e["points"] for e in body["entries"] if e["entry"] == row["entry"])


def test_only_round_robins_have_a_crosstable(organiser):
    swiss = make_competition(
        organiser,
        entries=4,
        variant="money-jordan",
        games=2,
        format="swiss",
        rounds_planned=2,
        start=True,
    )

    response = Client().get(f"/api/competitions/{swiss.pk}/crosstable/")

    assert response.status_code == 404
    assert "only round robins" in response.json()["detail"]


def test_every_round_s_results_are_in_the_api_and_on_the_page(four):
    rounds = Client().get(f"/api/competitions/{four.pk}/rounds/").json()
    page = Client().get(f"/dashboard/competitions/{four.pk}/").content.decode()

    assert [r["number"] for r in rounds] == [1, 2, 3]
    played = {m["match"] for r in rounds for m in r["matches"]}
    assert played == set(four.matches.values_list("pk", flat=True))
    for r in rounds:
        for m in r["matches"]:
            stored = {s.seat: s.rank for s in MatchSeat.objects.filter(match_id=m["match"])}
            assert {s["seat"]: s["rank"] for s in m["seats"]} == stored
            assert [s["seat"] for s in m["seats"]] == [0, 1]  # the protocol's indices
    shown = snapshot_of(page)["rounds"]["results"]
    assert [r["number"] for r in shown] == [1, 2, 3]
    assert sum(len(r["matches"]) for r in shown) == 6
    assert Client().get(f"/api/competitions/{four.pk}/rounds/?last=1").json()[0]["number"] == 3
    for value in ("none", "0", "99999999999999999999"):
        bad = Client().get(f"/api/competitions/{four.pk}/rounds/?last={value}")
        assert bad.status_code == 400 and "last" in bad.json()


def test_a_private_competition_s_tables_are_hidden(organiser):
    private = make_competition(
        organiser, entries=3, variant="money-jordan", games=2, is_public=False, start=True
    )

    for route in ("crosstable", "rounds"):
        assert Client().get(f"/api/competitions/{private.pk}/{route}/").status_code == 404


def test_a_league_season_breaks_ties_within_each_division(organiser):
    league = league_season(organiser, entries=8, division_size=4)
    services.competition_start(competition=league)
    play_all(league)
    # Every match level, every rating equal: each division is one shared place, though
    # the lower division has fewer points (a place is shared, and a row separated from
    # the one above, within a division only).
    MatchSeat.objects.filter(match__competition=league).update(rank=1, score=0.0, points=1.0)
    league.entries.update(points=1.5, mu=25.0, sigma=5.0)
    league.entries.filter(division=1).update(points=1.0)

    rows = selectors.standings_for_competition(competition=league)

    assert [(row["division"], row["rank"], row["shared"]) for row in rows] == [(0, 1, True)] * 4 + [
        (1, 1, True)
    ] * 4
    assert all(row["separated_by"] is None for row in rows)  # nothing between divisions
