"""Knockouts end to end: created, entered and started through the REST API, played by
``run_competition --inline`` with built-in bots; the standings of the API, the dashboard
and the command agree, the final's winner is first and its loser second, and level
matches say how they were decided. Bad settings are a 400 that changes nothing.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bots.models import Bot
from tests.factories import cli_rows, enter_copies
from tournaments.models import Competition, Entry, Match
from tournaments.watching.panels import competition_snapshot

pytestmark = pytest.mark.django_db

KNOCKOUT = {
    "name": "Knockout night",
    "kind": "tournament",
    "variant": "money-jordan",
    "games_per_match": 2,
    "duplicate": True,
    "seed": 5,
    "playoff_games_cap": 2,
}


#: Entry order of the knockout tests: seeds 1 and 8 (both greedy) meet in the first
#: round (``elimination.layout(8)``: 1-8, 4-5, 2-7, 3-6), and two copies of the
#: deterministic greedy bot always tie a duplicate match, so one match is level
#: whatever the deals.
LEVEL_FIRST = ["greedy", "greedy", "random", "greedy", "random", "random", "random", "greedy"]


@pytest.mark.parametrize("format", ["single-elimination", "double-elimination"])
def test_a_knockout_ranks_the_final_winner_first_and_says_how_level_matches_went(
    as_organiser, capsys, format
):
    created = as_organiser.post("/api/competitions/", {**KNOCKOUT, "format": format}, format="json")
    assert created.status_code == 201, created.content
    competition_id = created.json()["id"]
    assert created.json()["playoff_games_cap"] == 2
    enter_copies(as_organiser, competition_id, kinds=LEVEL_FIRST)
    assert as_organiser.post(f"/api/competitions/{competition_id}/start/").status_code == 200

    call_command("run_competition", str(competition_id), "--inline")
    out = capsys.readouterr().out

    competition = Competition.objects.get(pk=competition_id)
    assert competition.status == Competition.Status.FINISHED
    standings = as_organiser.get(f"/api/competitions/{competition_id}/standings/").json()
    matches = as_organiser.get(f"/api/matches/?competition={competition_id}&page_size=100")
    by_node = {m["node"]: m for m in matches.json()["results"]}
    final = by_node.get("GF2") or by_node.get("GF") or max(by_node.values(), key=lambda m: m["id"])
    if final["node"] == "GF2" and final["status"] != "done":
        final = by_node["GF"]
    winner = next(s["bot"] for s in final["seats"] if s["rank"] == 1)
    loser = next(s["bot"] for s in final["seats"] if s["rank"] == 2)
    assert [standings[0]["name"], standings[1]["name"]] == [winner, loser]
    assert [standings[0]["rank"], standings[1]["rank"]] == [1, 2]
    assert all(row["order"] == "placement" and row["duplicate"] for row in standings)
    assert "by placement" in out and "matches duplicate" in out

    # Every knockout match has one winner and a recorded rule.
    for match in by_node.values():
        if match["status"] != "done":
            continue
        assert [s["rank"] for s in match["seats"]].count(1) == 1
        assert match["decided_by"]["rule"] in {"games", "score", "play-off", "lot"}
    level = [m for m in by_node.values() if m["decided_by"].get("rule") in ("play-off", "lot")]
    assert level, "two greedy copies tie in duplicate: some match goes past the score"
    # Play-off games are stored with the match, marked, on fresh deals.
    with_playoff = next(m for m in level if m["games"] > 2)
    games = as_organiser.get(f"/api/games/?match={with_playoff['id']}").json()["results"]
    assert sorted(g["playoff"] for g in games)[-1] >= 1 and len(games) == with_playoff["games"]

    # The bracket shows the tie-break of each level match.
    snapshot = competition_snapshot(competition=competition)
    boxes = {
        box["node"]: box
        for section in snapshot["rounds"]["bracket"]["sections"]
        for column in section["columns"]
        for box in column["nodes"]
    }
    for match in level:
        assert "decided by" in boxes[match["node"]]["tiebreak"]
    assert snapshot["rounds"]["bracket"]["champion"] == winner

    # The API, the dashboard and the command show the same table.
    api = [(row["rank"], row["name"]) for row in standings]
    dashboard = [(row["rank"], row["name"]) for row in snapshot["standings"]]
    assert api == dashboard == cli_rows(out)


def test_a_round_robin_of_duplicate_matches_says_so_everywhere(as_organiser, capsys):
    body = {**KNOCKOUT, "format": "round-robin", "variant": "manni-basic", "games_per_match": 3}
    competition_id = as_organiser.post("/api/competitions/", body, format="json").json()["id"]
    enter_copies(as_organiser, competition_id, greedy=2, random=2)

    call_command("run_competition", str(competition_id), "--inline")
    out = capsys.readouterr().out

    standings = as_organiser.get(f"/api/competitions/{competition_id}/standings/").json()
    assert all(row["order"] == "points" and row["duplicate"] for row in standings)
    snapshot = competition_snapshot(competition=Competition.objects.get(pk=competition_id))
    api = [(row["rank"], row["name"]) for row in standings]
    assert api == [(row["rank"], row["name"]) for row in snapshot["standings"]] == cli_rows(out)
    assert "matches duplicate" in out
    # Match ranks follow game points, then total score: never a contradiction.
    for match in Match.objects.filter(competition_id=competition_id):
        seats = sorted(match.seats.all(), key=lambda s: s.rank)
        keys = [(-s.points, -s.score) for s in seats]
        assert keys == sorted(keys)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"playoff_games_cap": -1}, "playoff_games_cap"),
        ({"playoff_games_cap": 41}, "playoff_games_cap"),
        ({"playoff_games_cap": "many"}, "playoff_games_cap"),
        ({"seats_per_table": 3}, "seats_per_table"),
        (
            {"variant": "manni-basic", "games_per_match": 3, "format": "double-elimination"},
            "format",
        ),
    ],
)
def test_bad_knockout_settings_are_a_400_naming_the_problem(as_organiser, change, field):
    body = {**KNOCKOUT, "format": "double-elimination", **change}

    response = as_organiser.post("/api/competitions/", body, format="json")

    assert response.status_code == 400, response.content
    assert field in str(response.json())
    assert not Competition.objects.exists()


def test_entries_a_bracket_cannot_fill_are_a_400_and_nothing_starts(as_organiser):
    body = {
        **KNOCKOUT,
        "variant": "maniglia-5",
        "games_per_match": 5,
        "format": "single-elimination",
    }
    competition_id = as_organiser.post("/api/competitions/", body, format="json").json()["id"]
    enter_copies(as_organiser, competition_id, greedy=3, random=3)  # 6 at five-seat tables

    response = as_organiser.post(f"/api/competitions/{competition_id}/start/")

    assert response.status_code == 400, response.content
    assert "cannot seat 6 entries" in str(response.json())
    competition = Competition.objects.get(pk=competition_id)
    assert competition.status == Competition.Status.DRAFT
    assert not competition.matches.exists() and not competition.rounds.exists()
    assert Entry.objects.filter(competition=competition).count() == 6


def test_run_competition_names_a_bracket_it_cannot_fill(organiser):
    from tournaments import services

    competition = services.competition_create(
        created_by=organiser,
        name="Too many",
        kind="tournament",
        variant="maniglia-5",
        format="single-elimination",
        games_per_match=5,
    )
    for i in range(6):
        bot = Bot.objects.create(name=f"r-{i}", builtin="random")
        services.entry_create(competition=competition, bot=bot)

    with pytest.raises(CommandError, match="cannot seat 6 entries"):
        call_command("run_competition", str(competition.pk), "--inline")
    competition.refresh_from_db()
    assert competition.status == Competition.Status.DRAFT and not competition.matches.exists()
