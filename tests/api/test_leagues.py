"""League seasons through the REST API: divisions and promotion set at creation, the
season played, the next one made from its end, an entry's division history, and the
division settings a league cannot use refused with the field named."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from tests.factories import enter_copies
from tournaments.models import Competition

pytestmark = pytest.mark.django_db

LEAGUE = {
    "name": "Club league",
    "kind": "league-season",
    "variant": "money-jordan",
    "format": "round-robin",
    "games_per_match": 2,
    "division_size": 4,
    "promote": 1,
}


def create(client, **change) -> dict:
    response = client.post("/api/competitions/", {**LEAGUE, **change}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def by_division(rows: list[dict]) -> list[list[str]]:
    out: dict[int, list[str]] = {}
    for row in rows:
        out.setdefault(row["division"], []).append(row["name"])
    return [out[d] for d in sorted(out)]


def test_a_season_is_played_and_the_next_one_moves_one_up_and_one_down(as_organiser, anon):
    league = create(as_organiser)
    assert (league["division_size"], league["promote"], league["season"]) == (4, 1, 1)
    enter_copies(as_organiser, league["id"], greedy=4, random=4)
    detail = f"/api/competitions/{league['id']}/"
    planned = as_organiser.get(detail).json()["progress"]  # the draft: two divisions of 4
    assert as_organiser.post(f"/api/competitions/{league['id']}/start/").status_code == 200
    early = as_organiser.post(f"/api/competitions/{league['id']}/next-season/")
    call_command("run_competition", str(league["id"]), "--inline")
    played = as_organiser.get(detail).json()["progress"]
    assert planned["total"] == played["total"] == played["done"]  # right from the draft on

    standings = anon.get(f"/api/competitions/{league['id']}/standings/").json()
    top, bottom = by_division(standings)
    made = as_organiser.post(
        f"/api/competitions/{league['id']}/next-season/", {"name": "Autumn"}, format="json"
    )

    assert early.status_code == 400 and "has finished" in str(early.json())
    assert [r["division"] for r in standings] == [0] * 4 + [1] * 4
    assert standings[0]["rank"] == standings[4]["rank"] == 1  # ranked within the division
    assert {r["name"]: r["move"] for r in standings if r["move"]} == {
        bottom[0]: "up",
        top[-1]: "down",
    }
    assert made.status_code == 201, made.content
    season = made.json()
    assert (season["name"], season["season"], season["previous_season"]) == (
        "Autumn",
        2,
        league["id"],
    )
    assert season["status"] == "draft" and (season["division_size"], season["promote"]) == (4, 1)
    assert anon.get(f"/api/competitions/{league['id']}/").json()["next_season"] == season["id"]
    entries = anon.get(f"/api/entries/?competition={season['id']}&page_size=50").json()
    divisions = {e["bot"]["name"]: e["division"] for e in entries["results"]}
    assert divisions == {
        **{name: 0 for name in top[:-1]},
        bottom[0]: 0,
        top[-1]: 1,
        **{name: 1 for name in bottom[1:]},
    }
    again = as_organiser.post(f"/api/competitions/{league['id']}/next-season/")
    assert again.status_code == 400 and "already has its next season" in str(again.json())

    # The promoted bot's division history: first of division 2, then in division 1.
    promoted = next(e for e in entries["results"] if e["bot"]["name"] == bottom[0])
    history = anon.get(f"/api/entries/{promoted['id']}/seasons/").json()
    assert [(h["season"], h["division"], h["move"]) for h in history] == [
        (1, 1, "up"),
        (2, 0, None),
    ]
    assert history[0]["competition"] == league["id"] and history[0]["rank"] == 1
    assert history[1]["competition"] == season["id"]


def test_a_later_season_starts_with_the_divisions_it_was_given(as_organiser):
    league = create(as_organiser)
    enter_copies(as_organiser, league["id"], greedy=4, random=4)
    call_command("run_competition", str(league["id"]), "--inline")
    too_many = as_organiser.post(
        f"/api/competitions/{league['id']}/next-season/", {"promote": 5}, format="json"
    )
    season = as_organiser.post(f"/api/competitions/{league['id']}/next-season/").json()
    given = dict(Competition.objects.get(pk=season["id"]).entries.values_list("pk", "division"))

    started = as_organiser.post(f"/api/competitions/{season['id']}/start/")

    assert too_many.status_code == 400 and "fewer than the 5 moving" in str(too_many.json())
    assert started.status_code == 200, started.content
    assert season["name"] == "Club league (season 2)"
    competition = Competition.objects.get(pk=season["id"])
    assert dict(competition.entries.values_list("pk", "division")) == given
    for match in competition.matches.prefetch_related("seats__entry"):
        assert len({seat.entry.division for seat in match.seats.all()}) == 1


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"kind": "tournament"}, "division_size", "for league seasons"),
        ({"kind": "tournament", "division_size": None}, "promote", "for league seasons"),
        ({"division_size": 1}, "division_size", "at least one table"),
        ({"promote": 4}, "promote", "smaller than a division"),
        ({"division_size": None}, "promote", "need divisions"),
        ({"relegate": 2}, "relegate", "must equal promote"),
        ({"promote": -1}, "promote", "greater than or equal to 0"),
    ],
)
def test_division_settings_a_league_cannot_use_are_refused(as_organiser, change, field, words):
    response = as_organiser.post("/api/competitions/", {**LEAGUE, **change}, format="json")

    assert response.status_code == 400
    assert field in response.json() and words in str(response.json()[field])
    assert not Competition.objects.exists()


@pytest.mark.parametrize(
    ("change", "entries", "field", "words"),
    [
        ({"division_size": 2}, 5, "division_size", "divisions of at most 2 do not fit 5"),
        ({"division_size": 3, "promote": 2}, 9, "promote", "moves 4 of division 2"),
    ],
)
def test_a_league_whose_entries_do_not_fit_does_not_start(
    as_organiser, change, entries, field, words
):
    league = create(as_organiser, **change)
    enter_copies(as_organiser, league["id"], greedy=0, random=entries)

    response = as_organiser.post(f"/api/competitions/{league['id']}/start/")

    assert response.status_code == 400
    assert words in str(response.json()[field])
    assert Competition.objects.get(pk=league["id"]).status == Competition.Status.DRAFT


def test_only_league_seasons_have_a_next_season(as_organiser):
    cup = create(as_organiser, kind="tournament", division_size=None, promote=0)

    response = as_organiser.post(f"/api/competitions/{cup['id']}/next-season/")

    assert response.status_code == 400 and "only league seasons" in str(response.json())


def test_only_its_organisers_make_the_next_season(as_organiser, as_alice):
    league = create(as_organiser)
    Competition.objects.filter(pk=league["id"]).update(status=Competition.Status.FINISHED)

    response = as_alice.post(f"/api/competitions/{league['id']}/next-season/")

    assert response.status_code == 403
    assert not Competition.objects.filter(previous_season_id=league["id"]).exists()


def test_from_the_terminal_the_table_comes_by_division_and_next_season_makes_the_season(
    as_organiser, capsys
):
    league = create(as_organiser)
    enter_copies(as_organiser, league["id"], greedy=4, random=4)
    call_command("run_competition", str(league["id"]), "--inline")
    table = capsys.readouterr().out
    with pytest.raises(CommandError, match="has finished"):
        call_command("next_season", str(create(as_organiser, name="Other")["id"]))

    call_command("next_season", str(league["id"]), "--name", "Autumn")

    out = capsys.readouterr().out
    lines = table[table.index("rank  bot") :].splitlines()
    assert lines[1] == "division 1" and lines[6] == "division 2"
    assert lines[5].endswith("goes down") and lines[7].endswith("goes up")
    relegated, promoted = lines[5].split()[1], lines[7].split()[1]
    season = Competition.objects.get(previous_season_id=league["id"])
    assert out.splitlines()[0] == f"season 2: Autumn (id {season.pk}), a draft"
    assert f"  division 1  {promoted}" in out and f"  division 2  {relegated}" in out


def test_the_organisers_move_an_entry_of_a_later_seasons_draft_between_divisions(
    as_organiser, as_alice
):
    league = create(as_organiser)
    enter_copies(as_organiser, league["id"], greedy=4, random=4)
    assert as_organiser.post(f"/api/competitions/{league['id']}/start/").status_code == 200
    Competition.objects.filter(pk=league["id"]).update(status=Competition.Status.FINISHED)
    season = as_organiser.post(f"/api/competitions/{league['id']}/next-season/").json()
    enter_copies(as_organiser, season["id"], kinds=["greedy"] * 1)  # a ninth: a newcomer
    entries = entries_of(as_organiser, season["id"])
    newcomer = next(e for e in entries if e["seed_order"] == 8)
    first_season_entry = entries_of(as_organiser, league["id"])[0]

    moved = as_organiser.post(
        f"/api/entries/{newcomer['id']}/division/", {"division": 0}, format="json"
    )
    beyond = as_organiser.post(
        f"/api/entries/{newcomer['id']}/division/", {"division": 2}, format="json"
    )
    stranger = as_alice.post(
        f"/api/entries/{newcomer['id']}/division/", {"division": 1}, format="json"
    )
    first = as_organiser.post(
        f"/api/entries/{first_season_entry['id']}/division/", {"division": 1}, format="json"
    )
    as_organiser.post(f"/api/competitions/{season['id']}/start/")
    started = as_organiser.post(
        f"/api/entries/{newcomer['id']}/division/", {"division": 1}, format="json"
    )

    assert newcomer["division"] == 1  # a newcomer starts in the bottom division
    assert moved.status_code == 200 and moved.json()["division"] == 0
    assert beyond.status_code == 400 and "must be 0 to 1" in str(beyond.json()["division"])
    assert stranger.status_code == 403
    assert first.status_code == 400 and "cut at its start" in str(first.json()["division"])
    assert started.status_code == 400 and "has started" in str(started.json()["division"])
    assert Competition.objects.get(pk=season["id"]).entries.get(pk=newcomer["id"]).division == 0


def entries_of(client, competition_id: int) -> list[dict]:
    response = client.get(f"/api/entries/?competition={competition_id}&page_size=50")
    return response.json()["results"]
