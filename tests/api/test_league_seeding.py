"""A league's first divisions through the API: the smallest division a table allows
(two fixed teams), the seeding that orders the cut (by rating, by hand, at random from a
recorded seed), and closing a season early, which must say whether promotion and
relegation apply and names the entries that played no game."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.factories import play_one
from tournaments.formats.league import league_shuffle
from tournaments.models import Competition, Entry

pytestmark = pytest.mark.django_db

LEAGUE = {
    "name": "Club league",
    "kind": "league-season",
    "variant": "money-jordan",
    "format": "round-robin",
    "games_per_match": 2,
    "division_size": 4,
    "promote": 1,
    "seed": 9,
}
TEAMS = {
    **LEAGUE,
    "variant": "maniglia-4-partners",
    "games_per_match": 4,
    "partnerships": "fixed",
    "promote": 0,
}


def create(client, **change) -> dict:
    response = client.post("/api/competitions/", {**LEAGUE, **change}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def enter(client, competition_id: int, names: list[str]) -> list[int]:
    """Enter a built-in random player per name (in that order); their entry ids."""
    ids = []
    for name in names:
        bot = Bot.objects.create(name=name, builtin="random")
        response = client.post(
            "/api/entries/", {"competition": competition_id, "bot": bot.pk}, format="json"
        )
        assert response.status_code == 201, response.content
        ids.append(response.json()["id"])
    return ids


def division_one(competition_id: int) -> set[str]:
    entries = Entry.objects.filter(competition_id=competition_id, division=0)
    return set(entries.values_list("bot__name", flat=True))


NAMES = ["house-1", "house-2", "house-3", "house-4", "club-1", "club-2", "club-3", "club-4"]


def test_a_division_of_three_fixed_teams_is_accepted_and_plays(as_organiser):
    created = as_organiser.post("/api/competitions/", {**TEAMS, "division_size": 3}, format="json")
    assert created.status_code == 201, created.content
    league = created.json()
    enter(as_organiser, league["id"], ["t1", "t2", "t3", "t4", "t5", "t6"])

    started = as_organiser.post(f"/api/competitions/{league['id']}/start/")

    assert started.status_code == 200, started.content
    sizes = sorted(
        Entry.objects.filter(competition_id=league["id"]).values_list("division", flat=True)
    )
    assert sizes == [0, 0, 0, 1, 1, 1]  # two divisions of three teams
    for match in Competition.objects.get(pk=league["id"]).matches.prefetch_related("seats__entry"):
        assert len({seat.entry.division for seat in match.seats.all()}) == 1


def test_the_smallest_division_is_one_table_two_fixed_teams_or_four_rotating_bots(
    as_organiser,
):
    teams = as_organiser.post("/api/competitions/", {**TEAMS, "division_size": 1}, format="json")
    rotating = as_organiser.post(
        "/api/competitions/",
        {**TEAMS, "partnerships": "rotating", "division_size": 3},
        format="json",
    )
    two_teams = as_organiser.post(
        "/api/competitions/", {**TEAMS, "name": "Pairs", "division_size": 2}, format="json"
    )

    assert teams.status_code == 400 and rotating.status_code == 400
    assert teams.json()["division_size"] == [
        "a division needs at least one table: 2 teams (two fixed teams make a table) or more, "
        "got 1"
    ]
    assert rotating.json()["division_size"] == [
        "a division needs at least one table: 4 entries or more, got 3"
    ]
    assert two_teams.status_code == 201 and two_teams.json()["division_size"] == 2


def test_teams_that_leave_a_division_without_a_table_do_not_start(as_organiser):
    league = as_organiser.post(
        "/api/competitions/", {**TEAMS, "division_size": 2}, format="json"
    ).json()
    enter(as_organiser, league["id"], ["t1", "t2", "t3", "t4", "t5"])

    refused = as_organiser.post(f"/api/competitions/{league['id']}/start/")

    assert refused.status_code == 400
    assert refused.json()["division_size"] == [
        "divisions of at most 2 do not fit 5 teams: they make 3 divisions of 2, 2, 1, and a "
        "division needs at least 2 teams to make a table"
    ]


def test_seeded_by_rating_the_strongest_fill_division_one(as_organiser):
    league = create(as_organiser, seeding="rating")
    ids = enter(as_organiser, league["id"], NAMES)
    Entry.objects.filter(pk__in=ids[4:]).update(mu=40.0)  # the club's bots are stronger

    as_organiser.post(f"/api/competitions/{league['id']}/start/")

    assert league["seeding"] == "rating"
    assert division_one(league["id"]) == {"club-1", "club-2", "club-3", "club-4"}


def test_seeded_by_hand_division_one_is_the_organisers_first_four(as_organiser, as_alice):
    league = create(as_organiser, seeding="manual")
    ids = enter(as_organiser, league["id"], NAMES)  # the built-ins were entered first
    order = [ids[4], ids[0], ids[5], ids[1], ids[6], ids[2], ids[7], ids[3]]
    url = f"/api/competitions/{league['id']}/seeding/"

    left_out = as_organiser.post(url, {"order": order[:-1]}, format="json")
    twice = as_organiser.post(url, {"order": [*order[:-1], order[0]]}, format="json")
    stranger = as_alice.post(url, {"order": order}, format="json")
    ordered = as_organiser.post(url, {"order": order}, format="json")
    started = as_organiser.post(f"/api/competitions/{league['id']}/start/")
    after = as_organiser.post(url, {"order": order}, format="json")

    assert league["seeding"] == "manual"
    assert left_out.status_code == 400
    assert f"left out: {ids[3]} (house-4)" in left_out.json()["order"][0]
    assert twice.status_code == 400 and f"named twice: {order[0]}" in twice.json()["order"][0]
    assert stranger.status_code == 403
    assert ordered.status_code == 200, ordered.content
    assert [e["bot"]["name"] for e in ordered.json()][:4] == [
        "club-1",
        "house-1",
        "club-2",
        "house-2",
    ]
    assert started.status_code == 200
    assert division_one(league["id"]) == {"club-1", "house-1", "club-2", "house-2"}
    assert after.status_code == 400 and "fixed once the season has started" in str(after.json())


def test_an_order_by_hand_is_refused_for_a_league_seeded_by_rating(as_organiser):
    league = create(as_organiser)
    ids = enter(as_organiser, league["id"], NAMES)

    response = as_organiser.post(
        f"/api/competitions/{league['id']}/seeding/", {"order": ids[::-1]}, format="json"
    )

    assert league["seeding"] == "rating"  # the default
    assert response.status_code == 400
    assert "seeded by rating" in response.json()["order"][0]


def test_seeded_at_random_the_recorded_seed_gives_the_same_divisions(as_organiser):
    given = create(as_organiser, seeding="random", seeding_seed=2024)
    again = create(as_organiser, name="Club league again", seeding="random", seeding_seed=2024)
    drawn = create(as_organiser, name="Club league drawn", seeding="random")
    for league in (given, again, drawn):
        ids = enter(as_organiser, league["id"], [f"{n}-{league['id']}" for n in NAMES])
        assert as_organiser.post(f"/api/competitions/{league['id']}/start/").status_code == 200
        league["ids"] = ids

    shown = {
        lg["id"]: as_organiser.get(f"/api/competitions/{lg['id']}/").json()
        for lg in (given, again, drawn)
    }

    assert shown[given["id"]]["seeding_seed"] == 2024
    seed = shown[drawn["id"]]["seeding_seed"]
    assert seed is not None  # drawn at the start, and recorded
    for league, used in ((given, 2024), (drawn, seed)):
        expected = league_shuffle(league["ids"], used)[:4]  # the shuffle the seed makes
        assert set(Entry.objects.filter(pk__in=expected).values_list("division", flat=True)) == {0}
    names = [{n.rsplit("-", 1)[0] for n in division_one(lg["id"])} for lg in (given, again)]
    assert names[0] == names[1]  # the same entries and seed: the same Division 1
    assert names[0] != {"house-1", "house-2", "house-3", "house-4"}  # not the entry order


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seeding": "alphabetical"}, "seeding"),
        ({"seeding": "manual", "seeding_seed": 3}, "seeding_seed"),
        (
            {"kind": "tournament", "division_size": None, "promote": 0, "seeding": "random"},
            "seeding",
        ),
    ],
)
def test_a_seeding_the_competition_cannot_take_is_a_400_naming_it(as_organiser, change, field):
    response = as_organiser.post("/api/competitions/", {**LEAGUE, **change}, format="json")

    assert response.status_code == 400 and field in response.json()
    assert not Competition.objects.exists()


def started_league(client) -> tuple[dict, list[int]]:
    """Two divisions of four, started, with one match of Division 1 played."""
    league = create(client)
    enter(client, league["id"], NAMES)
    assert client.post(f"/api/competitions/{league['id']}/start/").status_code == 200
    played = play_one(Competition.objects.get(pk=league["id"]))
    return league, [seat.entry_id for seat in played.seats.all()]


def test_closing_a_season_early_needs_the_promotion_flag_and_names_who_played_nothing(
    as_organiser,
):
    league, played = started_league(as_organiser)
    idle = sorted(
        Entry.objects.filter(competition_id=league["id"]).exclude(pk__in=played),
        key=lambda e: e.seed_order,
    )
    url = f"/api/competitions/{league['id']}/close/"

    missing = as_organiser.post(url, {}, format="json")
    missing_form = as_organiser.post(url, {})  # a form without the field: not "false"
    closed = as_organiser.post(url, {"apply_promotion": False}, format="json")

    assert missing.status_code == 400 and missing_form.status_code == 400
    message = missing.json()["apply_promotion"][0]
    assert "Club league has not finished" in message
    assert message.endswith(f"no game played yet by {', '.join(e.bot.name for e in idle)}")
    assert len(idle) == 6  # one match of two seats was played
    assert closed.status_code == 200, closed.content
    assert closed.json()["unplayed"] == [e.bot.name for e in idle]
    assert closed.json()["status"] == "finished" and closed.json()["closed_early"] is True
    assert closed.json()["promotion_applies"] is False
    standings = as_organiser.get(f"/api/competitions/{league['id']}/standings/").json()
    assert [r["move"] for r in standings] == [None] * 8
    before = dict(
        Entry.objects.filter(competition_id=league["id"]).values_list("bot__name", "division")
    )
    season = as_organiser.post(f"/api/competitions/{league['id']}/next-season/").json()
    after = dict(
        Entry.objects.filter(competition_id=season["id"]).values_list("bot__name", "division")
    )
    assert after == before  # nobody moved


def test_closing_a_season_early_with_promotion_moves_one_up_and_one_down(as_organiser):
    league, _ = started_league(as_organiser)

    closed = as_organiser.post(
        f"/api/competitions/{league['id']}/close/", {"apply_promotion": True}, format="json"
    )

    assert closed.status_code == 200 and closed.json()["promotion_applies"] is True
    standings = as_organiser.get(f"/api/competitions/{league['id']}/standings/").json()
    moves = [(r["division"], r["move"]) for r in standings if r["move"]]
    assert moves == [(0, "down"), (1, "up")]
    up = next(r["name"] for r in standings if r["move"] == "up")
    season = as_organiser.post(f"/api/competitions/{league['id']}/next-season/").json()
    assert up in division_one(season["id"])


def test_the_promotion_flag_is_for_league_seasons_only(as_organiser):
    cup = create(as_organiser, kind="tournament", division_size=None, promote=0)
    enter(as_organiser, cup["id"], ["a", "b", "c", "d"])
    as_organiser.post(f"/api/competitions/{cup['id']}/start/")
    url = f"/api/competitions/{cup['id']}/close/"

    flagged = as_organiser.post(url, {"apply_promotion": True}, format="json")
    plain = as_organiser.post(url)

    assert (
        flagged.status_code == 400 and "for league seasons" in flagged.json()["apply_promotion"][0]
    )
    assert plain.status_code == 200 and plain.json()["status"] == "finished"


def test_the_random_seeding_seed_is_shown_to_entrants_only_once_the_season_has_started(
    as_organiser, anon
):
    league = create(as_organiser, seeding="random", seeding_seed=2024)
    enter(as_organiser, league["id"], NAMES)
    url = f"/api/competitions/{league['id']}/"

    before = anon.get(url).json()["seeding_seed"]
    listed = anon.get("/api/competitions/").json()["results"][0]["seeding_seed"]
    as_organiser.post(f"/api/competitions/{league['id']}/start/")
    after = anon.get(url).json()["seeding_seed"]

    assert league["seeding_seed"] == 2024  # its organisers see it from the creation
    assert before is None and listed is None  # an entrant could aim an entry with it
    assert after == 2024
