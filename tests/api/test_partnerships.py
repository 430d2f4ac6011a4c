"""Partnerships through the API: fixed teams or rotating partners, chosen per competition."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.api.conftest import results
from tests.factories import make_bot
from tournaments import services
from tournaments.models import Competition, Match

pytestmark = pytest.mark.django_db

PARTNERS = {
    "name": "Partners' league",
    "kind": "league-season",
    "variant": "maniglia-4-partners",
    "format": "round-robin",
    "games_per_match": 4,
}


def test_an_organiser_chooses_fixed_teams_or_rotating_partners(as_organiser):
    fixed = as_organiser.post(
        "/api/competitions/", {**PARTNERS, "partnerships": "fixed"}, format="json"
    )
    assert fixed.status_code == 201, fixed.content
    assert fixed.json()["partnerships"] == "fixed"
    rotating = as_organiser.post("/api/competitions/", PARTNERS, format="json")
    assert rotating.status_code == 201 and rotating.json()["partnerships"] == "rotating"
    alone = {**PARTNERS, "variant": "manni-basic", "games_per_match": 3}
    assert (
        as_organiser.post("/api/competitions/", alone, format="json").json()["partnerships"] == ""
    )


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"variant": "manni-basic", "games_per_match": 3}, "manni-basic has no partnerships"),
        ({"kind": "tournament", "format": "single-elimination"}, "fixed teams play round robins"),
        ({"partnerships": "pairs"}, "not a valid choice"),
    ],
)
def test_a_team_choice_the_competition_cannot_take_is_a_400_naming_it(as_organiser, change, words):
    response = as_organiser.post(
        "/api/competitions/", {**PARTNERS, "partnerships": "fixed", **change}, format="json"
    )
    assert response.status_code == 400, response.content
    assert words in response.json()["partnerships"][0]
    assert not Competition.objects.exists()


@pytest.fixture
def fixed(organiser):
    return services.competition_create(
        created_by=organiser, partnerships="fixed", seed=3, **PARTNERS
    )


def test_an_author_enters_a_team_of_two_bots_or_one_bot_at_both_seats(fixed, as_alice, alice):
    a, b, c = make_bot(alice, "ace"), make_bot(alice, "king"), make_bot(alice, "queen")

    team = as_alice.post(
        "/api/entries/", {"competition": fixed.pk, "bot": a.pk, "partner": b.pk}, format="json"
    )
    alone = as_alice.post("/api/entries/", {"competition": fixed.pk, "bot": c.pk}, format="json")

    assert team.status_code == 201, team.content
    assert team.json()["partner"]["name"] == "king"
    assert team.json()["name"] == "alice/ace & alice/king"
    assert alone.status_code == 201 and alone.json()["name"] == "alice/queen & alice/queen"
    listed = results(as_alice.get(f"/api/entries/?competition={fixed.pk}"))
    assert sorted(e["name"] for e in listed) == [
        "alice/ace & alice/king",
        "alice/queen & alice/queen",
    ]


def test_bad_partners_are_a_400_naming_the_partner(organiser, fixed, as_alice, alice, bob):
    a, b = make_bot(alice, "ace"), make_bot(alice, "king")
    mine, theirs = make_bot(alice, "jack"), make_bot(bob, "bobs")
    assert (
        as_alice.post(
            "/api/entries/", {"competition": fixed.pk, "bot": a.pk, "partner": b.pk}, format="json"
        ).status_code
        == 201
    )

    twice = as_alice.post(
        "/api/entries/", {"competition": fixed.pk, "bot": mine.pk, "partner": b.pk}, format="json"
    )
    assert twice.status_code == 400
    assert twice.json()["partner"] == [
        "alice/king is already entered (in the team alice/ace & alice/king)"
    ]
    other = as_alice.post(
        "/api/entries/",
        {"competition": fixed.pk, "bot": mine.pk, "partner": theirs.pk},
        format="json",
    )
    # Another member's bot is invited (its owner accepts or declines: test_teams.py).
    assert other.status_code == 201 and other.json()["partner_status"] == "pending"
    rotating = services.competition_create(created_by=organiser, **PARTNERS)
    refused = as_alice.post(
        "/api/entries/",
        {"competition": rotating.pk, "bot": mine.pk, "partner": a.pk},
        format="json",
    )
    assert refused.status_code == 400
    assert "does not play fixed teams" in refused.json()["partner"][0]
    assert fixed.entries.count() == 2 and not rotating.entries.exists()


def test_matches_name_the_bot_at_each_seat_and_standings_rank_teams(organiser, fixed, anon):
    bots = [Bot.objects.create(name=n, builtin=k) for n, k in [("g1", "greedy"), ("g2", "greedy")]]
    bots += [Bot.objects.create(name="r1", builtin="random")]
    first = services.entry_create(competition=fixed, bot=bots[0], partner=bots[1])
    second = services.entry_create(competition=fixed, bot=bots[2])
    services.competition_start(competition=fixed, by=organiser)
    (match,) = fixed.matches.all()
    assert services.match_record(match=match, played=services.match_play(match=match))

    (shown,) = results(anon.get(f"/api/matches/?competition={fixed.pk}"))
    assert shown["status"] == Match.Status.DONE
    seats = {first.pk: ["g1", "g2"], second.pk: ["r1", "r1"]}  # (first seat, second seat)
    a, b = shown["seats"][0]["entry"], shown["seats"][1]["entry"]
    assert {a, b} == set(seats)
    assert [(s["seat"], s["entry"], s["bot"]) for s in shown["seats"]] == [
        (0, a, seats[a][0]),
        (1, b, seats[b][0]),
        (2, a, seats[a][1]),
        (3, b, seats[b][1]),
    ]
    standings = anon.get(f"/api/competitions/{fixed.pk}/standings/").json()
    rows = standings["results"] if isinstance(standings, dict) else standings
    assert [r["name"] for r in rows] in (["g1 & g2", "r1 & r1"], ["r1 & r1", "g1 & g2"])
    (winner,) = {s["entry"] for s in shown["seats"] if s["rank"] == 1}  # (seeded deals)
    assert rows[0]["entry"] == winner and rows[0]["points"] == 1 and rows[1]["points"] == 0
