"""The site says what the API says to an account too new for public play: the bot page's
entry and challenge forms answer with why and from when."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from bots.models import Bot
from tests.factories import builtin_version, logged_in, make_bot, make_user
from tests.web.conftest import once_value
from tournaments.models import Challenge, Competition, Entry
from tournaments.services import ladders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("challenge_world")]


@pytest.fixture
def newcomer(settings):
    settings.CARDROOM_PUBLIC_PLAY_MIN_AGE_H = 24
    user = make_user("newcomer")
    user.date_joined = timezone.now() - timedelta(hours=2)
    user.save(update_fields=["date_joined"])
    return user


def test_the_bot_page_tells_a_new_account_when_it_may_enter_the_open_ladder(newcomer):
    ladders.standing_ladders_ensure(send=None)
    money = Competition.objects.get(standing="money-jordan")
    bot = make_bot(newcomer, "eager")
    browser = logged_in(newcomer)
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()

    answer = browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": money.pk, "once": once_value(page, "enter-form")},
    )

    assert answer.status_code == 400
    when = f"{newcomer.date_joined + timedelta(hours=24):%Y-%m-%d %H:%M} UTC"
    assert "Your account is too new" in answer.content.decode()
    assert when in answer.content.decode()
    assert not money.entries.filter(bot=bot).exists()


def test_the_challenge_form_refuses_another_authors_bot_to_a_new_account(newcomer):
    veteran = make_user("veteran")
    rival = Bot.objects.create(owner=veteran, name="rival", builtin="greedy")
    builtin_version(rival, 1, "greedy")
    ladder = Competition.objects.create(
        name="Open", kind="ladder", format="ladder", variant="money-jordan", seats_per_table=2
    )
    Entry.objects.create(competition=ladder, bot=rival)
    mine = Bot.objects.create(owner=newcomer, name="learner", builtin="random")
    builtin_version(mine, 1, "random")
    browser = logged_in(newcomer)
    page = browser.get(reverse("bots-web:bot-detail", args=[mine.pk])).content.decode()

    answer = browser.post(
        reverse("bots-web:challenge-start", args=[mine.pk]),
        {
            "version": 1,
            "variant": "money-jordan",
            "games": 2,
            "duplicate": "on",
            "opponent_1": f"bot:{rival.pk}",
            "once": once_value(page, "challenge-form"),
        },
    )

    assert answer.status_code == 400
    assert "Your account is too new" in answer.content.decode()
    assert not Challenge.objects.exists()
