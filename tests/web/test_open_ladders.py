"""The installation's standing open ladders: one per game family, made by
``manage.py ladders ensure`` (and ``make demo``), entered by any signed-in author."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from tests.factories import PASSWORD, logged_in, make_user, passed
from tests.web.conftest import once_value
from tournaments import ladders
from tournaments.management.commands.demo import DEMO_ENTRIES
from tournaments.management.commands.demo import Command as Demo
from tournaments.models import Competition

pytestmark = pytest.mark.django_db


def ensure() -> str:
    out = io.StringIO()
    call_command("ladders", "ensure", "--pending", stdout=out)
    return out.getvalue()


def money_bot(owner, name: str = "dinar") -> Bot:
    """A bot whose one ready version passed validation in money-jordan only."""
    bot = Bot.objects.create(owner=owner, name=name)
    version = BotVersion.objects.create(
        bot=bot, number=1, sha256="1" * 64, runtime="python", status="ready"
    )
    passed(version, "money-jordan")
    return bot


def test_ladders_ensure_makes_one_running_ladder_per_family_and_is_idempotent():
    first = ensure()
    made = ladders.standing_ladders()
    second = ensure()

    assert [(c.standing, c.variant, c.status) for c in made] == [
        ("manni", "manni-basic", "running"),
        ("maniglia", "maniglia-4-partners", "running"),
        ("money", "money-jordan", "running"),
    ]
    assert all(c.created_by is None and c.is_public for c in made)  # the platform's
    assert first.count("created:") == 3 and second.count("kept:") == 3
    assert "created:" not in second
    assert ladders.standing_ladders() == made
    assert Competition.objects.exclude(standing="").count() == 3
    assert all(c.entries.count() == c.seats_per_table for c in made)  # house bots only


def test_an_ended_ladder_is_replaced_by_a_new_one():
    ensure()
    money = Competition.objects.get(standing="money")
    money.status = Competition.Status.CANCELLED
    money.save(update_fields=["status"])

    ensure()

    assert ladders.standing_ladders()[2].pk != money.pk
    assert Competition.objects.filter(standing="money").count() == 2


def test_a_plain_user_enters_a_money_bot_into_the_money_ladder_through_the_api():
    ensure()
    api = APIClient()
    token = api.post(
        "/api/auth/register/", {"username": "newbie", "password": PASSWORD}, format="json"
    ).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    bot = money_bot(get_user_model().objects.get(username="newbie"))
    money, manni = (Competition.objects.get(standing=f) for f in ("money", "manni"))

    entered = api.post("/api/entries/", {"competition": money.pk, "bot": bot.pk}, format="json")
    refused = api.post("/api/entries/", {"competition": manni.pk, "bot": bot.pk}, format="json")

    assert entered.status_code == 201, entered.content
    assert money.entries.filter(bot=bot).exists()
    assert refused.status_code == 400 and "manni-basic" in refused.content.decode()


def test_a_plain_user_finds_the_ladders_on_the_home_page_and_enters_from_the_bot_page():
    ensure()
    newbie = make_user("newbie")
    bot = money_bot(newbie)
    money = Competition.objects.get(standing="money")
    browser = logged_in(newbie)

    home = browser.get(reverse("site:home")).content.decode()
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    answer = browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": money.pk, "once": once_value(page, "enter-form")},
    )

    assert "Somewhere to play every game" in home
    for family in ("Manni", "Maniglia", "Money"):
        assert f"Open {family} ladder" in home
    assert reverse("dashboard:competition-detail", args=[money.pk]) in home
    assert answer.status_code == 302
    assert money.entries.filter(bot=bot, withdrawn=False).exists()


def test_the_demo_starts_the_three_open_ladders():
    admin = make_user("admin")
    demo = Demo()

    competitions = demo._demo_competitions(demo._bots(DEMO_ENTRIES), admin)

    standing = [c for c in competitions if c.standing]
    assert [c.variant for c in standing] == ["manni-basic", "maniglia-4-partners", "money-jordan"]
    assert all(c.status == Competition.Status.RUNNING for c in standing)
