"""A league's first divisions on the organise pages: a division of three fixed teams,
the seeding chosen on the form (by rating, by hand with the ▲/▼ of the draft's page, at
random from a recorded seed), and closing a season early, which asks whether promotion
and relegation apply and names the entries that played no game."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from bots.models import Bot
from tests.factories import logged_in, make_user, play_one
from tests.web.conftest import add_entry, error_next_to, new_competition_form, once_value
from tournaments.formats.league import league_shuffle
from tournaments.models import Competition, Entry

pytestmark = pytest.mark.django_db

LEAGUE_FORM = {
    "name": "Club league",
    "kind": "league-season",
    "variant": "money-jordan",
    "format": "round-robin",
    "games_per_match": "2",
    "division_size": "2",
    "promote": "1",
    "seed": "9",
}
NAMES = ["house-1", "house-2", "club-1", "club-2"]


@pytest.fixture
def olga():
    return logged_in(make_user("olga", organiser=True))


def create(browser, **fields) -> Competition:
    response = browser.post(
        reverse("organise:competition-new"),
        new_competition_form(browser, **{**LEAGUE_FORM, **fields}),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    return Competition.objects.get(name=fields.get("name", LEAGUE_FORM["name"]))


def enter(browser, competition: Competition, names=NAMES) -> list[Entry]:
    for name in names:
        bot = Bot.objects.create(name=name, builtin="random")
        assert add_entry(browser, competition, bot).status_code == 302
    return list(competition.entries.order_by("seed_order"))


def start(browser, competition: Competition):
    page = browser.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    return browser.post(
        reverse("organise:competition-action", args=[competition.pk, "start"]),
        {"once": once_value(page)},
    )


def division_one(competition: Competition) -> set[str]:
    return set(competition.entries.filter(division=0).values_list("bot__name", flat=True))


def test_a_division_of_three_fixed_teams_is_accepted(olga):
    teams = {"variant": "maniglia-4-partners", "games_per_match": "4", "promote": "0"}
    refused = olga.post(
        reverse("organise:competition-new"),
        new_competition_form(
            olga, **{**LEAGUE_FORM, **teams, "partnerships": "fixed", "division_size": "1"}
        ),
    )
    league = create(olga, **teams, partnerships="fixed", division_size="3")
    enter(olga, league, ["t1", "t2", "t3"])

    assert refused.status_code == 400
    assert "2 teams (two fixed teams make a table) or more, got 1" in error_next_to(
        refused.content.decode(), "division_size"
    )
    assert league.division_size == 3
    assert start(olga, league).status_code == 302
    assert sorted(league.entries.values_list("division", flat=True)) == [0, 0, 0]


def test_seeded_by_rating_the_strongest_fill_division_one(olga):
    league = create(olga, seeding="rating")
    entries = enter(olga, league)
    Entry.objects.filter(pk__in=[e.pk for e in entries[2:]]).update(mu=40.0)
    page = olga.get(reverse("organise:competition", args=[league.pk])).content.decode()

    assert start(olga, league).status_code == 302

    assert re.search(r'id="seeding">by rating', page)
    assert division_one(league) == {"club-1", "club-2"}


def test_seeded_by_hand_the_organiser_moves_an_entry_into_division_one(olga):
    league = create(olga, seeding="manual")
    entries = enter(olga, league)  # the built-in "house" bots were entered first
    last = entries[-1]
    page = olga.get(reverse("organise:competition", args=[league.pk])).content.decode()

    for _ in range(3):  # ▲ three times: club-2 to the top
        page = olga.get(reverse("organise:competition", args=[league.pk])).content.decode()
        moved = olga.post(
            reverse("organise:entry-seed", args=[league.pk, last.pk]),
            {"direction": "up", "once": once_value(page)},
        )
        assert moved.status_code == 302
    order = list(league.entries.order_by("seed_order").values_list("bot__name", flat=True))

    assert "by hand" in page[page.index('id="seeding"') :][:200]
    assert f'id="seed-up-{last.pk}"' in page and f'id="seed-down-{entries[0].pk}"' in page
    assert order == ["club-2", "house-1", "house-2", "club-1"]
    assert start(olga, league).status_code == 302
    assert division_one(league) == {"club-2", "house-1"}


def test_seeded_at_random_the_page_records_the_seed_of_the_divisions(olga):
    league = create(olga, seeding="random", seeding_seed="77")
    entries = enter(olga, league)

    assert start(olga, league).status_code == 302

    page = olga.get(reverse("organise:competition", args=[league.pk])).content.decode()
    assert re.search(r'id="seeding">at random, seed <code id="seeding-seed">77</code>', page)
    first = league_shuffle([e.pk for e in entries], 77)[:2]
    assert division_one(league) == set(
        Entry.objects.filter(pk__in=first).values_list("bot__name", flat=True)
    )


def test_closing_a_season_early_asks_about_promotion_and_names_who_played_nothing(olga):
    league = create(olga)
    entries = enter(olga, league)
    assert start(olga, league).status_code == 302
    played = {seat.entry_id for seat in play_one(league).seats.all()}
    idle = [e.bot.name for e in entries if e.pk not in played]
    url = reverse("organise:competition", args=[league.pk])
    close = reverse("organise:competition-action", args=[league.pk, "close"])

    page = olga.get(url).content.decode()
    unanswered = olga.post(close, {"confirm": "yes", "once": once_value(page)})
    page_again = olga.get(url).content.decode()
    closed = olga.post(
        close, {"confirm": "yes", "apply_promotion": "no", "once": once_value(page_again)}
    )

    question = page[page.index('id="close-promotion"') :]
    assert "apply promotion and relegation" in question
    assert f"No game played yet by {', '.join(idle)}" in question
    assert len(idle) == 2
    assert unanswered.status_code == 400
    assert "Club league has not finished" in unanswered.content.decode()
    assert f"no game played yet by {', '.join(idle)}" in unanswered.content.decode()
    assert closed.status_code == 302
    league.refresh_from_db()
    assert league.status == Competition.Status.FINISHED and league.promotion_applies is False
    finished = olga.get(url).content.decode()
    assert "not applied: the season was closed early" in finished
    before = dict(league.entries.values_list("bot__name", "division"))
    made = olga.post(
        reverse("organise:next-season", args=[league.pk]),
        {"name": "", "once": once_value(finished, "next-season-form")},
    )
    assert made.status_code == 302
    season = Competition.objects.get(previous_season=league)
    assert dict(season.entries.values_list("bot__name", "division")) == before
