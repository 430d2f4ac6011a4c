"""A club league on the site: an organiser creates a two-division league of 8 bots, plays
it, starts season 2 from the finished season with promotion and relegation applied, and
the pages show both divisions, who went up and who went down."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from bots.models import Bot
from tests.factories import logged_in, make_user
from tests.web.conftest import (
    add_entry,
    error_next_to,
    new_competition_form,
    once_value,
    post_action,
)
from tournaments.models import Competition
from tournaments.selectors import standings_for_competition

pytestmark = pytest.mark.django_db

LEAGUE_FORM = {
    "name": "Club league",
    "kind": "league-season",
    "variant": "money-jordan",
    "format": "round-robin",
    "games_per_match": "2",
    "division_size": "4",
    "promote": "1",
}


def divisions_of(competition: Competition) -> dict[str, int]:
    """Bot name -> division (0 the top one) of each entry."""
    return dict(competition.entries.values_list("bot__name", "division"))


def divisions_in_order(competition: Competition) -> list[list[str]]:
    """The bot names of each division, in standing order, top division first."""
    out: dict[int, list[str]] = {}
    for row in standings_for_competition(competition=competition):
        out.setdefault(row["division"], []).append(row["name"])
    return [out[d] for d in sorted(out)]


def next_season(browser, competition: Competition, name: str = "", form_id="next-season-form"):
    page = browser.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    return browser.post(
        reverse("organise:next-season", args=[competition.pk]),
        {"name": name, "once": once_value(page, form_id) if form_id else ""},
    )


def test_a_two_division_league_is_played_and_its_next_season_moves_one_up_and_one_down():
    olga = make_user("olga", organiser=True)
    browser = logged_in(olga)
    created = browser.post(
        reverse("organise:competition-new"), new_competition_form(browser, **LEAGUE_FORM)
    )
    assert created.status_code == 302, created.content.decode()[:2000]
    first = Competition.objects.get(name="Club league")
    assert (first.division_size, first.promote, first.season) == (4, 1, 1)
    kinds = ["greedy", "random"] * 4
    for i, kind in enumerate(kinds):
        bot = Bot.objects.create(name=f"{kind}-{i}", builtin=kind)
        assert add_entry(browser, first, bot).status_code == 302

    assert post_action(browser, first, "start").status_code == 302
    first.refresh_from_db()
    # Cut at the start, strongest first (equal new ratings: in entry order), 4 and 4.
    assert divisions_of(first) == {f"{kind}-{i}": i // 4 for i, kind in enumerate(kinds)}
    call_command("run_competition", str(first.pk), "--inline")
    first.refresh_from_db()
    assert first.status == Competition.Status.FINISHED
    top, bottom = divisions_in_order(first)
    assert len(top) == len(bottom) == 4
    # Every match was played within a division.
    for match in first.matches.prefetch_related("seats__entry"):
        assert len({seat.entry.division for seat in match.seats.all()}) == 1

    made = next_season(browser, first)

    second = Competition.objects.get(previous_season=first)
    assert made.status_code == 302
    assert made["Location"] == reverse("organise:competition", args=[second.pk])
    assert (second.name, second.season, second.status) == ("Club league (season 2)", 2, "draft")
    promoted, relegated = bottom[0], top[-1]
    moved = divisions_of(second)
    assert moved[promoted] == 0 and moved[relegated] == 1
    assert {name for name, d in moved.items() if d == 0} == {*top[:-1], promoted}
    assert {name for name, d in moved.items() if d == 1} == {*bottom[1:], relegated}
    assert post_action(browser, second, "start").status_code == 302
    second.refresh_from_db()
    assert second.status == Competition.Status.RUNNING
    assert divisions_of(second) == moved  # a later season keeps the divisions it was given

    # The finished season's page: both divisions, who went up and who went down.
    page = browser.get(reverse("dashboard:competition-detail", args=[first.pk])).content.decode()
    assert 'id="seasons"' in page and "Season 1 of the league" in page
    assert reverse("dashboard:competition-detail", args=[second.pk]) in page
    snapshot = json.loads(re.search(r'id="snapshot"[^>]*>(.*?)</script>', page, re.S)[1])
    rows = snapshot["standings"]
    assert [r["division"] for r in rows] == [0] * 4 + [1] * 4
    assert rows[0]["rank"] == rows[4]["rank"] == 1  # ranked within each division
    assert {r["name"]: r["move"] for r in rows if r["move"]} == {
        promoted: "up",
        relegated: "down",
    }

    # The home page: the running season 2's divisions, a table each.
    home = browser.get("/").content.decode()
    assert "Divisions of" in home and second.name in home
    tables = re.findall(r'<table class="division" data-division="(\d)">', home)
    assert tables == ["0", "1"]
    assert "Division 1" in home and "Division 2" in home

    # The organise pages: the entries in their divisions; no second next season.
    organise = browser.get(reverse("organise:competition", args=[second.pk])).content.decode()
    assert organise.count('data-division="0"') == 4 and organise.count('data-division="1"') == 4
    assert re.search(r'id="season">2 · after <a href="[^"]+">Club league</a>', organise)

    # The promoted bot's page: its division in each season.
    bot = Bot.objects.get(name=promoted)
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    assert "season 1, division 2" in page and "season 2, division 1" in page
    again = next_season(browser, first, form_id=None)  # no form: sent anyway
    assert again.status_code == 400 and "already has its next season" in again.content.decode()


def test_the_league_form_names_the_division_setting_at_fault():
    browser = logged_in(make_user("olga", organiser=True))

    too_many = browser.post(
        reverse("organise:competition-new"),
        new_competition_form(browser, **{**LEAGUE_FORM, "promote": "4"}),
    )
    not_a_league = browser.post(
        reverse("organise:competition-new"),
        new_competition_form(browser, **{**LEAGUE_FORM, "kind": "tournament"}),
    )

    assert too_many.status_code == 400
    assert "smaller than a division" in error_next_to(too_many.content.decode(), "promote")
    assert not_a_league.status_code == 400
    assert "for league seasons" in error_next_to(not_a_league.content.decode(), "division_size")
    assert not Competition.objects.exists()


def test_a_league_whose_entries_do_not_fit_its_divisions_does_not_start():
    olga = make_user("olga", organiser=True)
    browser = logged_in(olga)
    browser.post(
        reverse("organise:competition-new"),
        new_competition_form(browser, **{**LEAGUE_FORM, "division_size": "2"}),
    )
    league = Competition.objects.get()
    for i in range(5):  # 5 entries in divisions of at most 2: three, one of them alone
        add_entry(browser, league, Bot.objects.create(name=f"r-{i}", builtin="random"))

    refused = post_action(browser, league, "start")
    unfinished = next_season(browser, league, form_id=None)

    assert refused.status_code == 400
    assert "divisions of at most 2 do not fit 5 entries" in refused.content.decode()
    league.refresh_from_db()
    assert league.status == Competition.Status.DRAFT
    assert unfinished.status_code == 400
    assert "its next season is made once it has finished" in unfinished.content.decode()
    assert not Competition.objects.filter(previous_season=league).exists()


def test_the_organiser_moves_a_newcomer_up_on_a_later_seasons_page():
    olga = make_user("olga", organiser=True)
    browser = logged_in(olga)
    form = new_competition_form(browser, **LEAGUE_FORM)
    browser.post(reverse("organise:competition-new"), form)
    first = Competition.objects.get()
    for i in range(8):
        add_entry(browser, first, Bot.objects.create(name=f"house-{i}", builtin="random"))
    post_action(browser, first, "start")
    Competition.objects.filter(pk=first.pk).update(status=Competition.Status.FINISHED)
    next_season(browser, first)
    second = Competition.objects.get(previous_season=first)
    add_entry(browser, second, Bot.objects.create(name="newcomer", builtin="greedy"))
    newcomer = second.entries.get(bot__name="newcomer")
    page = browser.get(reverse("organise:competition", args=[second.pk])).content.decode()
    assert newcomer.division == 1 and f'id="move-{newcomer.pk}"' in page

    moved = browser.post(
        reverse("organise:entry-division", args=[second.pk, newcomer.pk]),
        {"division": "0", "once": once_value(page, f"division-{newcomer.pk}")},
    )
    wrong = browser.post(
        reverse("organise:entry-division", args=[second.pk, newcomer.pk]), {"division": "7"}
    )

    assert moved.status_code == 302
    newcomer.refresh_from_db()
    assert newcomer.division == 0
    assert wrong.status_code == 400 and "division must be 0 to 1" in wrong.content.decode()
