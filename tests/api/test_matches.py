"""Rounds, matches, game records, standings, ratings and head-to-head: public results,
never the hidden information of a game still being played."""

from __future__ import annotations

import pytest

from tests.api.conftest import results
from tests.factories import make_bot, make_competition, make_match, played_record
from tournaments.models import Competition, Entry, RatingEvent

pytestmark = pytest.mark.django_db


def test_game_records_are_only_those_of_done_matches(league, anon):
    done, running = league["done"], league["running"]

    listed = results(anon.get(f"/api/games/?competition={league['competition'].pk}"))

    assert {g["match"] for g in listed} == {done.pk}
    assert [g["index"] for g in listed] == [0, 1]
    assert "record" not in listed[0]
    assert results(anon.get(f"/api/games/?match={running.pk}")) == []


def test_a_game_record_shows_every_hand_only_by_the_full_view_rule(league, anon, as_staff):
    game = league["done"].game_records.get(index=1)
    url = f"/api/games/{game.pk}/"

    public = anon.get(url).json()
    assert public["full"] is False and public["scores"] == game.scores
    assert public["record"] == {
        k: v for k, v in played_record(1).items() if k not in ("seed", "decks")
    }
    assert as_staff.get(url).json()["record"] == played_record(1)  # staff: at any time

    Competition.objects.filter(pk=league["competition"].pk).update(status="finished")
    assert "decks" not in anon.get(url).json()["record"]  # ended, full replays not allowed
    Competition.objects.filter(pk=league["competition"].pk).update(full_replays_after_end=True)
    assert anon.get(url).json()["full"] is True
    assert anon.get(url).json()["record"] == played_record(1)


def test_no_record_of_an_unfinished_match_even_by_id(league, anon, as_staff):
    from tournaments.models import GameRecord

    game = GameRecord.objects.create(
        match=league["running"],
        index=0,
        scores=[0, 0, 0],
        ranking=[1, 1, 1],
        data=GameRecord.pack(played_record(5)),
    )

    assert anon.get(f"/api/games/{game.pk}/").status_code == 404
    assert as_staff.get(f"/api/games/{game.pk}/").status_code == 404


def test_a_running_match_shows_no_seed_results_or_logs(league, anon, as_alice):
    running = anon.get(f"/api/matches/{league['running'].pk}/").json()
    mine = as_alice.get(f"/api/matches/{league['running'].pk}/").json()

    assert running["status"] == "running" and running["seed"] is None
    assert all(seat["score"] is None and seat["log"] is None for seat in running["seats"])
    assert all(seat["log"] is None for seat in mine["seats"])


def test_a_done_match_shows_each_owner_their_own_log_and_staff_its_seed(
    league, anon, as_alice, as_staff
):
    url = f"/api/matches/{league['done'].pk}/"

    public = anon.get(url).json()
    alices = as_alice.get(url).json()

    assert public["seed"] is None  # every deck follows from it: the full-view rule
    assert [s["rank"] for s in public["seats"]] == [1, 2, 3]
    assert all(seat["log"] is None for seat in public["seats"])
    assert [s["log"] for s in alices["seats"]] == ["log of seat 0", None, None]
    assert alices["seats"][0]["bot"] == "alice/alpha"
    assert as_staff.get(url).json()["seed"] == league["done"].seed


def test_matches_filter_by_competition_status_round_and_entry(league, anon):
    competition, entries = league["competition"], league["entries"]

    by_status = results(anon.get(f"/api/matches/?competition={competition.pk}&status=done"))
    by_round = results(anon.get(f"/api/matches/?round=1&competition={competition.pk}"))
    by_entry = results(anon.get(f"/api/matches/?entry={entries[1].pk}"))

    assert [m["id"] for m in by_status] == [league["done"].pk]
    assert len(by_round) == 2 and all(m["round"] == 1 for m in by_round)
    assert len(by_entry) == 2
    assert anon.get("/api/matches/?status=exploded").status_code == 400


def test_rounds_are_listed_per_competition(league, anon):
    rounds = results(anon.get(f"/api/rounds/?competition={league['competition'].pk}"))

    assert [(r["number"], r["competition"]) for r in rounds] == [(1, league["competition"].pk)]


def test_everything_of_a_private_competition_is_hidden(organiser, alice, as_alice, as_organiser):
    competition = make_competition(organiser, is_public=False, games=6)
    Competition.objects.filter(pk=competition.pk).update(status="running")

    entries = [
        Entry.objects.create(competition=competition, bot=make_bot(alice, f"p{i}"))
        for i in range(3)
    ]
    match = make_match(competition, entries, done=True)
    game = match.game_records.first()

    for url in (
        f"/api/matches/{match.pk}/",
        f"/api/games/{game.pk}/",
        f"/api/entries/{entries[0].pk}/",
        f"/api/entries/{entries[0].pk}/ratings/",
        f"/api/rounds/{match.round_id}/",
        f"/api/competitions/{competition.pk}/head-to-head/",
    ):
        assert as_alice.get(url).status_code == 404, url
        assert as_organiser.get(url).status_code == 200, url
    assert results(as_alice.get("/api/matches/")) == []
    assert results(as_alice.get("/api/games/")) == []


def test_standings_are_public_and_ranked(league, anon):
    first, second, third = league["entries"]
    Entry.objects.filter(pk=second.pk).update(points=4)
    Entry.objects.filter(pk=first.pk).update(points=2)

    response = anon.get(f"/api/competitions/{league['competition'].pk}/standings/")

    assert response.status_code == 200
    rows = response.json()
    assert [r["entry"] for r in rows] == [second.pk, first.pk, third.pk]
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert rows[0]["name"] == "bob/bravo" and rows[0]["points"] == 4


def test_head_to_head_lists_pairs_that_met(league, anon):
    response = anon.get(f"/api/competitions/{league['competition'].pk}/head-to-head/")

    assert response.status_code == 200
    assert isinstance(response.json(), list)
    for row in response.json():
        assert row["matches"] == row["ahead"] + row["behind"] + row["level"]


def test_rating_history_of_an_entry_is_paged(league, anon):
    entry, match = league["entries"][0], league["done"]
    RatingEvent.objects.create(
        entry=entry,
        match=match,
        sequence=1,
        mu_before=25,
        sigma_before=8.3,
        mu_after=27,
        sigma_after=7,
    )

    response = anon.get(f"/api/entries/{entry.pk}/ratings/")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    assert body["results"][0]["mu"] == 27 and body["results"][0]["rating"] == 27 - 21
    assert body["results"][0]["match"] == match.pk


def test_entries_list_filters_and_orders(league, anon):
    competition = league["competition"]
    Entry.objects.filter(pk=league["entries"][2].pk).update(mu=40)

    ordered = results(anon.get(f"/api/entries/?competition={competition.pk}&ordering=-mu"))
    withdrawn = results(anon.get(f"/api/entries/?competition={competition.pk}&withdrawn=true"))

    assert ordered[0]["id"] == league["entries"][2].pk
    assert withdrawn == []
