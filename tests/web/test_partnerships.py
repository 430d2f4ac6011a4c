"""An organiser chooses fixed teams or rotating partners on the site, and enters teams."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from tests.factories import logged_in, make_user
from tests.web.conftest import error_next_to, new_competition_form, once_value, post_action
from tournaments import services
from tournaments.models import Competition

pytestmark = pytest.mark.django_db

PARTNERS = {
    "variant": "maniglia-4-partners",
    "kind": "league-season",
    "format": "round-robin",
    "games_per_match": "4",
}


def test_the_new_competition_page_offers_the_choice_for_partnership_variants():
    browser = logged_in(make_user("olga", organiser=True))
    page = browser.get(reverse("organise:competition-new")).content.decode()
    assert 'data-variants="maniglia-4-partners"' in page
    assert '<select name="partnerships"' in page
    assert '<option value="fixed">Fixed teams' in page
    assert '<option value="rotating">Rotating partners' in page


def test_an_organiser_runs_a_league_of_fixed_teams_from_the_site():
    olga = make_user("olga", organiser=True)
    browser = logged_in(olga)
    form = new_competition_form(browser, name="Partners", partnerships="fixed", **PARTNERS)
    assert browser.post(reverse("organise:competition-new"), form).status_code == 302
    competition = Competition.objects.get(name="Partners")
    assert competition.fixed_teams
    here = reverse("organise:competition", args=[competition.pk])
    bots = [Bot.objects.create(name=n, builtin="random") for n in ("north", "south", "east")]

    page = browser.get(here).content.decode()
    assert "fixed teams: an entry is a team of two bots" in page
    assert 'name="partner"' in page and "(the same bot at both seats)" in page
    for bot, partner in ((bots[0], bots[1]), (bots[2], None)):
        page = browser.get(here).content.decode()
        data = {"bot": bot.pk, "once": once_value(page, "entry-form")}
        if partner is not None:
            data["partner"] = partner.pk
        added = browser.post(reverse("organise:entry-add", args=[competition.pk]), data)
        assert added.status_code == 302, added.content.decode()

    teams = {(e.bot.name, e.partner.name) for e in competition.entries.all()}
    assert teams == {("north", "south"), ("east", "east")}
    page = browser.get(here).content.decode()
    assert ">north</a> &amp; <a" in page and ">south</a>" in page
    assert post_action(browser, competition, "start").status_code == 302
    (match,) = competition.matches.all()
    seated = list(match.seats.order_by("seat").values_list("entry_id", flat=True))
    assert seated[0] == seated[2] != seated[1] == seated[3]
    services.match_record(match=match, played=services.match_play(match=match))

    # Everyone sees teams in the standings, and the bot at each seat of the match.
    table = browser.get(
        reverse("dashboard:competition-download", args=[competition.pk, "standings", "csv"])
    ).content.decode()
    assert {line.split(",")[1] for line in table.splitlines()[1:]} == {
        "north & south",
        "east & east",
    }
    north = competition.entries.get(bot__name="north").pk
    seat_of = {seated[0]: (0, 2), seated[1]: (1, 3)}[north]
    public = Client().get(reverse("dashboard:competition-detail", args=[competition.pk]))
    assert "Fixed teams: an entry is a team of two bots" in public.content.decode()
    shown = browser.get(reverse("dashboard:match-detail", args=[match.pk])).content.decode()
    seats = shown.split('<table id="match-seats">')[1].split("</table>")[0]
    names = re.findall(r'<tr><td class="num">[^<]*</td>\s*<td>(?:<a [^>]*>)?([^<]+)<', seats)
    assert [names[s] for s in seat_of] == ["north", "south"]


def test_a_bot_already_in_a_team_is_refused_next_to_the_partner_field():
    browser = logged_in(make_user("olga", organiser=True))
    form = new_competition_form(browser, name="Partners", partnerships="fixed", **PARTNERS)
    browser.post(reverse("organise:competition-new"), form)
    competition = Competition.objects.get()
    here = reverse("organise:competition", args=[competition.pk])
    a, b, c = (Bot.objects.create(name=n, builtin="random") for n in ("a", "b", "c"))
    for bot, partner in ((a, b), (c, b)):
        page = browser.get(here).content.decode()
        response = browser.post(
            reverse("organise:entry-add", args=[competition.pk]),
            {"bot": bot.pk, "partner": partner.pk, "once": once_value(page, "entry-form")},
        )
    assert response.status_code == 400
    assert "b is already entered (in the team a &amp; b)" in error_next_to(
        response.content.decode(), "partner"
    )
    assert competition.entries.count() == 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"variant": "manni-basic", "games_per_match": "3"}, "manni-basic has no partnerships"),
        (
            {"kind": "tournament", "format": "single-elimination"},
            "fixed teams play round robins",
        ),
    ],
)
def test_a_team_choice_the_competition_cannot_take_is_shown_next_to_it(fields, message):
    browser = logged_in(make_user("olga", organiser=True))
    form = new_competition_form(browser, partnerships="fixed", **{**PARTNERS, **fields})
    response = browser.post(reverse("organise:competition-new"), form)
    assert response.status_code == 400
    assert message in error_next_to(response.content.decode(), "partnerships")
    assert not Competition.objects.exists()


def test_rotating_partners_stay_the_default_on_the_site():
    browser = logged_in(make_user("olga", organiser=True))
    browser.post(reverse("organise:competition-new"), new_competition_form(browser, **PARTNERS))
    competition = Competition.objects.get()
    assert competition.partnerships == Competition.Partnerships.ROTATING
    page = browser.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    assert "rotating partners: an entry is one bot" in page and 'name="partner"' not in page


def test_a_partners_bot_page_counts_its_team_matches_once_against_the_other_team():
    olga = make_user("olga", organiser=True)
    league = services.competition_create(
        created_by=olga, name="Pairs", partnerships="fixed", games_per_match=4, seed=5,
        **{k: v for k, v in PARTNERS.items() if k != "games_per_match"},
    )  # fmt: skip
    lead, partner, east, west = (
        Bot.objects.create(name=n, builtin="random") for n in ("lead", "partner", "east", "west")
    )
    services.entry_create(competition=league, bot=lead, partner=partner)
    services.entry_create(competition=league, bot=east, partner=west)
    services.competition_start(competition=league)
    (match,) = league.matches.all()
    services.match_record(match=match, played=services.match_play(match=match))

    html = Client().get(reverse("bots-web:bot-detail", args=[partner.pk])).content.decode()

    assert html.count(f">match {match.pk}<") == 1
    h2h = html[html.index('id="head-to-head"') :]
    assert ">east</a>" in h2h and ">west</a>" in h2h and ">lead</a>" not in h2h
    for name in ("east", "west"):  # met once each, as an opponent
        row = h2h[h2h.index(f">{name}</a>") :].split("</tr>")[0]
        assert row.split('class="num">')[1].split("<")[0] == "1"
