"""The help page: every feature a bot author or an organiser is told about, with this
installation's variants, built-ins, tie-break chains and the reader's own allowances."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

import games
from bots import builtin
from bots.models import UserAllowance
from tests.factories import logged_in, make_user
from tournaments.services import challenge_requests as challenges

pytestmark = pytest.mark.django_db

SECTIONS = (
    "write", "upload", "versions", "version-tests", "challenges", "ladders", "why",
    "allowances", "organise", "leagues", "teams", "tie-breaks", "results", "fair-play",
)  # fmt: skip


def limit_of(page: str, name: str) -> int:
    return int(re.search(rf'data-allowance="{name}"><td>[^<]*</td><td>(\d+)<', page).group(1))


def test_anyone_reads_the_help_reached_from_every_page_with_this_installations_figures(settings):
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 123
    visitor = Client()

    home = visitor.get("/").content.decode()
    page = visitor.get(reverse("site:help")).content.decode()

    assert f'href="{reverse("site:help")}"' in home  # in the navigation of every page
    for section in SECTIONS:
        assert f'<section id="{section}">' in page and f'href="#{section}"' in page
    variants = re.findall(r"<tr><td><code>([\w-]+)</code></td><td>(\d)", page)
    assert [(v, int(n)) for v, n in variants] == [
        (v, games.variant_info(v).players) for v in games.variants()
    ]
    for name in builtin.names() + builtin.strengths():
        assert f"<code>builtin:{name}</code>" in page
    assert limit_of(page, "challenge_games_per_day") == 123  # the setting, for a visitor
    assert "<strong>Round robin</strong>: points, then head-to-head, then Sonneborn-Berger" in page


def test_a_signed_in_author_reads_their_own_allowances(settings):
    settings.CARDROOM_ALLOWANCE_OPEN_CHALLENGES = 3
    ada = make_user("ada")
    UserAllowance.objects.create(user=ada, allowance="open_challenges", value=9)

    page = logged_in(ada).get(reverse("site:help")).content.decode()

    assert limit_of(page, "open_challenges") == 9  # staff raised it for her
    assert "(yours; staff may change them)" in page


def test_the_help_says_how_to_seed_close_early_and_team_up_with_another_member():
    page = Client().get(reverse("site:help")).content.decode()

    leagues = page[page.index('<section id="leagues">') : page.index('<section id="teams">')]
    teams = page[page.index('<section id="teams">') :]
    assert all(
        f"<strong>{way}</strong>" in leagues for way in ("by rating", "by hand", "at random")
    )
    assert "asks whether its standings so far apply promotion and" in leagues
    assert "names the entries that have played no game yet" in leagues
    assert "two teams when partners are fixed teams" in leagues
    assert "<em>Team invitation</em>" in teams and "accepts or declines it" in teams


def test_the_help_says_a_challenges_cap_and_where_an_entry_stands():
    page = re.sub(r"\s+", " ", Client().get(reverse("site:help")).content.decode())

    assert f"A challenge plays from 1 to {challenges.GAMES_MAX:,} games" in page
    assert "every figure of a seat counts games" in page
    assert "waits for its version's validation and starts playing once it passes" in page
    assert "a version is never tested against itself" in page
    assert "rejected and plays no variant at all" in page
