"""Progress counts the whole schedule: a round robin's, a Swiss's, a knockout's most
from the start, on the list, the home page, the organise page, the live page's snapshot
and the API; a ladder, which has no end, says "of at least"."""

from __future__ import annotations

import pytest
from django.test import Client

from bots.models import Bot
from tests.factories import logged_in, make_competition, open_ladder, play_all, snapshot_of
from tournaments import pairing, services
from tournaments.formats.round_robin import round_robin, scheduled_tables
from tournaments.models import Competition, Match
from tournaments.selectors import competition_progress

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("legs", [1, 2])
@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("entries", [4, 5, 6, 7, 8, 9])
def test_the_round_robin_count_is_the_tables_the_schedule_seats(entries, seats, legs):
    # The count is what the format's own schedule plays, round by round.
    rounds = round_robin(list(range(entries)), seats, legs=legs, seed=7)
    assert sum(len(r.tables) for r in rounds) == scheduled_tables(entries, seats, legs)


def test_a_round_robin_counts_its_whole_schedule_from_the_first_round(organiser):
    # Two seats, five entries: 10 pairs, two tables a round (one bye) over five rounds.
    competition = make_competition(
        organiser, entries=5, variant="money-jordan", games=2, start=True
    )
    assert competition.matches.count() == 2  # only round one is paired so far

    progress = competition_progress(competition=competition)["schedule"]

    assert progress == {"done": 0, "total": 10, "total_known": True}
    listing = Client().get("/dashboard/").content.decode()
    assert "0 / 10" in listing and "0 / 2" not in listing
    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()
    assert snapshot_of(page)["progress"]["schedule"]["total"] == 10
    organise = logged_in(organiser).get(f"/organise/{competition.pk}/").content.decode()
    assert "(of 10)" in organise
    api = Client().get(f"/api/competitions/{competition.pk}/").json()
    assert api["progress"] == {"done": 0, "total": 10, "total_known": True}
    assert (
        Client().get(f"/api/competitions/{competition.pk}/progress/").json()["schedule"]
        == (api["progress"])
    )


def test_the_count_is_met_exactly_once_the_round_robin_is_played(organiser):
    competition = make_competition(
        organiser, entries=4, variant="money-jordan", games=2, start=True
    )
    play_all(competition)

    progress = competition_progress(competition=competition)

    assert progress["competition"] == "finished"
    assert progress[Match.Status.DONE] == 6 == progress["schedule"]["total"]
    listing = Client().get("/dashboard/").content.decode()
    assert "6 / 6" in listing and 'aria-valuenow="100"' in listing


def test_a_double_round_robin_counts_both_legs(organiser):
    competition = make_competition(
        organiser,
        entries=4,
        variant="money-jordan",
        games=2,
        format="double-round-robin",
        start=True,
    )
    assert competition_progress(competition=competition)["schedule"]["total"] == 12


def test_a_swiss_counts_its_rounds_times_its_tables(organiser):
    # Seven entries at three seats: two tables a round, one bye; three rounds.
    competition = make_competition(
        organiser, entries=7, format="swiss", rounds_planned=3, start=True
    )
    assert competition_progress(competition=competition)["schedule"]["total"] == 6
    play_all(competition)
    assert competition.matches.filter(status=Match.Status.DONE).count() == 6


def test_a_single_elimination_counts_every_match_but_the_byes(organiser):
    # Five entries: three byes in round one, then 4 matches in all (each knocks one out).
    competition = make_competition(
        organiser,
        entries=5,
        variant="money-jordan",
        games=2,
        format="single-elimination",
        start=True,
    )
    assert competition.matches.count() < 4  # the rest wait for results
    assert competition_progress(competition=competition)["schedule"]["total"] == 4
    play_all(competition)
    assert competition.matches.filter(status=Match.Status.DONE).count() == 4


def test_a_double_elimination_counts_its_most_with_the_reset_final(organiser):
    # Each entry but the champion loses twice, and the champion at most once: 2n - 1.
    competition = make_competition(
        organiser,
        entries=4,
        variant="money-jordan",
        games=2,
        format="double-elimination",
        start=True,
    )
    assert pairing.planned_matches(competition) == 7
    play_all(competition)
    assert competition.matches.filter(status=Match.Status.DONE).count() in (6, 7)


def test_a_ladder_says_of_at_least(organiser):
    ladder = open_ladder(organiser)
    created = ladder.matches.count()

    progress = competition_progress(competition=ladder)["schedule"]

    assert progress == {"done": 1, "total": created, "total_known": False}
    organise = logged_in(organiser).get(f"/organise/{ladder.pk}/").content.decode()
    assert f"(of at least {created})" in organise
    assert Client().get(f"/api/competitions/{ladder.pk}/").json()["progress"]["total_known"] is (
        False
    )


def test_a_draft_counts_the_schedule_of_its_entries_so_far(organiser):
    draft = services.competition_create(
        created_by=organiser,
        name="Draft",
        kind="tournament",
        variant="money-jordan",
        format="round-robin",
        games_per_match=2,
    )
    assert competition_progress(competition=draft)["schedule"]["total"] == 0
    for i in range(3):
        services.entry_create(
            competition=draft, bot=Bot.objects.create(name=f"d{i}", builtin="random")
        )
    assert Competition.objects.get(pk=draft.pk).status == "draft"
    assert competition_progress(competition=draft)["schedule"]["total"] == 3
