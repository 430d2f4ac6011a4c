"""Round robins, Swiss and the ladder end to end: created, entered and started through the
REST API, played by ``run_competition --inline`` with built-in bots. What an organiser
would check by hand: who met whom, how often everyone played, that the stronger bots
finish on top, and that the API, the dashboard and the command print the same table.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from django.core.management import call_command

from tests.factories import cli_rows, enter_copies
from tournaments.models import Competition, Match
from tournaments.watching.panels import competition_snapshot

pytestmark = pytest.mark.django_db


def create(client, **settings) -> int:
    body = {"name": "Club night", "kind": "tournament", "variant": "manni-basic"}
    body |= {"games_per_match": 3, "duplicate": True} | settings
    response = client.post("/api/competitions/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def tables(competition_id: int) -> list[tuple[str, ...]]:
    """The bots at each played table, by name."""
    return [
        tuple(sorted(s.entry.bot.name for s in match.seats.select_related("entry__bot")))
        for match in Match.objects.filter(competition_id=competition_id, status="done")
    ]


def three_views_agree(client, competition_id: int, out: str) -> list[dict]:
    standings = client.get(f"/api/competitions/{competition_id}/standings/").json()
    snapshot = competition_snapshot(competition=Competition.objects.get(pk=competition_id))
    api = [(row["rank"], row["name"]) for row in standings]
    assert api == [(row["rank"], row["name"]) for row in snapshot["standings"]]
    assert api == cli_rows(out)
    return standings


def test_four_entries_at_three_seats_play_all_four_triples(as_organiser, capsys):
    competition_id = create(as_organiser, format="round-robin", kind="league-season")
    enter_copies(as_organiser, competition_id, greedy=2, random=2)

    call_command("run_competition", str(competition_id), "--inline")
    out = capsys.readouterr().out

    played = tables(competition_id)
    names = sorted({name for table in played for name in table})
    assert sorted(played) == sorted(combinations(names, 3))  # each triple once: 4 tables
    assert set(Counter(n for t in played for n in t).values()) == {3}  # 3 tables each
    pairs = Counter(pair for t in played for pair in combinations(t, 2))
    assert set(pairs.values()) == {2}  # every pair meets twice
    three_views_agree(as_organiser, competition_id, out)


def test_a_double_round_robin_plays_every_triple_twice(as_organiser, capsys):
    competition_id = create(as_organiser, format="double-round-robin", kind="league-season")
    enter_copies(as_organiser, competition_id, greedy=2, random=2)

    call_command("run_competition", str(competition_id), "--inline")
    out = capsys.readouterr().out

    played = tables(competition_id)
    names = sorted({name for table in played for name in table})
    assert Counter(played) == dict.fromkeys(combinations(names, 3), 2)  # 8 tables
    pairs = Counter(pair for t in played for pair in combinations(t, 2))
    assert set(pairs.values()) == {4}
    three_views_agree(as_organiser, competition_id, out)


def test_seven_entries_at_three_seats_meet_every_pair_exactly_once(as_organiser, capsys):
    competition_id = create(as_organiser, format="round-robin", games_per_match=3)
    enter_copies(as_organiser, competition_id, greedy=3, random=4)

    call_command("run_competition", str(competition_id), "--inline")
    out = capsys.readouterr().out

    played = tables(competition_id)
    assert len(played) == 7  # the Fano plane
    pairs = Counter(pair for t in played for pair in combinations(t, 2))
    assert len(pairs) == 21 and set(pairs.values()) == {1}
    assert set(Counter(n for t in played for n in t).values()) == {3}
    standings = three_views_agree(as_organiser, competition_id, out)
    assert all(row["duplicate"] for row in standings)


def test_a_swiss_never_repeats_a_table_and_ranks_by_its_points(as_organiser, capsys):
    competition_id = create(as_organiser, format="swiss", rounds_planned=3)
    enter_copies(as_organiser, competition_id, greedy=3, random=3)

    call_command("run_competition", str(competition_id), "--inline")
    out = capsys.readouterr().out

    played = tables(competition_id)
    assert len(played) == len(set(played)) == 6  # 2 tables a round, none twice
    assert set(Counter(n for t in played for n in t).values()) == {3}  # one table a round
    standings = three_views_agree(as_organiser, competition_id, out)
    points = [row["points"] for row in standings]
    assert points == sorted(points, reverse=True)


def test_a_ladder_mixes_and_puts_the_greedy_copies_on_top(as_organiser, capsys):
    competition_id = create(as_organiser, format="ladder", kind="ladder", seed=7)
    enter_copies(as_organiser, competition_id, greedy=3, random=3)

    call_command("run_competition", str(competition_id), "--inline", "--max-matches", "30")
    out = capsys.readouterr().out

    played = tables(competition_id)
    assert len(played) >= 30
    met = {pair for t in played for pair in combinations(t, 2)}
    assert any("greedy" in a and "random" in b for a, b in met)  # the ladder mixes
    standings = three_views_agree(as_organiser, competition_id, out)
    ratings = [row["rating"] for row in standings]
    assert ratings == sorted(ratings, reverse=True)  # ordered by the rating, not points
    assert {row["name"].split("-")[0] for row in standings[:3]} == {"greedy"}
