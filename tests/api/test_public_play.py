"""Public play waits for an account that costs something: entering a public ladder, or
challenging another author's bot, needs an account ``CARDROOM_PUBLIC_PLAY_MIN_AGE_H``
hours old whose e-mail address is confirmed; the built-ins and one's own bots may be
challenged at once. Refusals are a 403 saying why and from when."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from bots.models import AccountConfirmation, Bot
from tests.api.conftest import client_for
from tests.factories import builtin_version, make_bot, make_user
from tournaments.models import Competition, Entry
from tournaments.services import ladders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("challenge_world")]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rules(settings):
    settings.CARDROOM_PUBLIC_PLAY_MIN_AGE_H = 24
    settings.CARDROOM_SIGNUP_CONFIRMATION = "email"
    return settings


@pytest.fixture
def money_ladder(rules) -> Competition:
    ladders.standing_ladders_ensure(send=None)
    return Competition.objects.get(standing="money-jordan")


@pytest.fixture
def rival(bob, money_ladder) -> Bot:
    """Bob's bot, in the open Money ladder since his account was old enough."""
    bob.date_joined = timezone.now() - timedelta(days=30)
    bob.save(update_fields=["date_joined"])
    bot = Bot.objects.create(owner=bob, name="rival", builtin="greedy")
    builtin_version(bot, 1, "greedy")
    Entry.objects.create(competition=money_ladder, bot=bot)
    return bot


@pytest.fixture
def newcomer():
    """An account signed up an hour ago (no confirmation to wait for)."""
    user = make_user("newcomer")
    user.date_joined = timezone.now() - timedelta(hours=1)
    user.save(update_fields=["date_joined"])
    return user


def own_bot(user, name: str = "learner") -> Bot:
    bot = Bot.objects.create(owner=user, name=name, builtin="random")
    builtin_version(bot, 1, "random")
    return bot


def enter(user, bot: Bot, competition: Competition):
    return client_for(user).post(
        "/api/entries/", {"competition": competition.pk, "bot": bot.pk}, format="json"
    )


def challenge(user, bot: Bot, opponent: str):
    body = {"bot": bot.pk, "opponents": [opponent], "variant": "money-jordan", "games": 2}
    return client_for(user).post("/api/challenges/", body, format="json")


def test_an_account_too_new_cannot_enter_the_open_ladder_and_is_told_when_it_may(
    newcomer, money_ladder
):
    bot = make_bot(newcomer, "eager")

    refused = enter(newcomer, bot, money_ladder)

    assert refused.status_code == 403, refused.content
    body = refused.json()
    assert body["reason"] == "too-new"
    assert "Your account is too new" in body["detail"] and "24 hours old" in body["detail"]
    assert parse_datetime(body["allowed_at"]) == newcomer.date_joined + timedelta(hours=24)
    assert f"{newcomer.date_joined + timedelta(hours=24):%Y-%m-%d %H:%M} UTC" in body["detail"]
    assert not money_ladder.entries.filter(bot=bot).exists()

    newcomer.date_joined -= timedelta(hours=24)  # a day later
    newcomer.save(update_fields=["date_joined"])
    assert enter(newcomer, bot, money_ladder).status_code == 201


def test_a_new_account_challenges_built_ins_and_its_own_bots_but_not_anothers(
    newcomer, rival, rules
):
    mine, spare = own_bot(newcomer), own_bot(newcomer, "spare")

    refused = challenge(newcomer, mine, f"bot:{rival.pk}")
    builtin = challenge(newcomer, mine, "builtin:greedy")
    own = challenge(newcomer, mine, f"bot:{spare.pk}")

    assert refused.status_code == 403, refused.content
    assert refused.json()["reason"] == "too-new"
    assert "challenges other authors' bots once it is 24 hours old" in refused.json()["detail"]
    assert builtin.status_code == 201, builtin.content
    assert own.status_code == 201, own.content
    rules.CARDROOM_PUBLIC_PLAY_MIN_AGE_H = 0  # an installation that does not wait
    assert challenge(newcomer, mine, f"bot:{rival.pk}").status_code == 201


def test_an_unconfirmed_account_can_neither_enter_the_open_ladder_nor_challenge_anothers_bot(
    newcomer, rival, money_ladder
):
    AccountConfirmation.objects.create(user=newcomer, email="new@example.org")
    newcomer.date_joined -= timedelta(days=3)  # old enough: only the address is missing
    newcomer.save(update_fields=["date_joined"])
    mine = own_bot(newcomer)

    entering = enter(newcomer, mine, money_ladder)
    challenging = challenge(newcomer, mine, f"bot:{rival.pk}")

    for refused in (entering, challenging):
        assert refused.status_code == 403, refused.content
        assert refused.json()["reason"] == "unconfirmed"
        assert "Confirm your e-mail address first" in refused.json()["detail"]
        assert "new@example.org" in refused.json()["detail"]
    assert not money_ladder.entries.filter(bot=mine).exists()


def test_an_installation_confirms_and_waits_a_day_by_default():
    """Outside the demo and the suite's baseline (tests/xdist_env.py), what
    config.settings makes of an environment that names none of the settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "CARDROOM_SIGNUP_CONFIRMATION",
            "CARDROOM_PUBLIC_PLAY_MIN_AGE_H",
            "CARDROOM_THROTTLE_SIGNUP",
        )
    }
    code = (
        "from config import settings as s; print(s.CARDROOM_SIGNUP_CONFIRMATION, "
        "s.CARDROOM_PUBLIC_PLAY_MIN_AGE_H, s.CARDROOM_THROTTLE_RATES['signup'])"
    )

    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )

    assert out.stdout.split() == ["email", "24", "3/day"], out.stderr
