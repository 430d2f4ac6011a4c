"""Where a bot's entry stands, as its author meets it: the version that plays (the one its
owner pinned), an entry waiting for its version's validation, an entry that cannot play,
a rejected version's page, and the refusal of an entry that could never play; on the
competition page, the bot page and through the API alike."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from bots import services as bot_services
from bots.models import Bot, BotVersion
from tests.factories import builtin_bots, logged_in, make_user, passed
from tests.web.conftest import error_next_to, once_value
from tournaments import services
from tournaments.models import Competition, Entry
from web.dashboard import pages as dashboard_pages

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada():
    return make_user("ada")


@pytest.fixture
def money_ladder() -> Competition:
    """A running money-jordan ladder with two house bots."""
    ladder = services.competition_create(
        created_by=None,
        name="Open Money ladder",
        kind="ladder",
        variant="money-jordan",
        format="ladder",
        games_per_match=4,
    )
    for bot in builtin_bots(2, "random"):
        services.entry_create(competition=ladder, bot=bot)
    services.competition_start(competition=ladder, send=None)
    return ladder


def version(bot: Bot, number: int, status: str, *passes: str, declares=()) -> BotVersion:
    made = BotVersion.objects.create(
        bot=bot,
        number=number,
        runtime=BotVersion.Runtime.PYTHON,
        entry_point="bot.py",
        sha256=f"{bot.pk}{number}".rjust(64, "0"),
        status=status,
        variants=list(declares),
    )
    if passes:
        passed(made, *passes)
    return made


def api_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def words(html: str) -> str:
    """The page's text as a person reads it: no tags, one space between words."""
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", html)))


def entry_row(page: str, bot: Bot) -> str:
    """The text of the bot's row in the competition page's entry list."""
    table = page[page.index('<table id="entries">') :].split("</table>")[0]
    rows = [row for row in table.split("<tr>") if f"/bots/{bot.pk}/" in row]
    assert len(rows) == 1, rows
    return words(rows[0]).strip()


def competition_page(client, competition: Competition) -> str:
    url = reverse("dashboard:competition-detail", args=[competition.pk])
    return client.get(url).content.decode()


def test_a_pinned_bots_ladder_entry_names_the_pinned_version_not_the_latest(ada, money_ladder):
    bot = Bot.objects.create(owner=ada, name="dinar")
    version(bot, 1, "ready", "money-jordan")
    version(bot, 2, "ready", "money-jordan")
    bot_services.bot_play_set(bot=bot, pinned_number=1, active=True)
    api = api_for(ada)
    entered = api.post(
        "/api/entries/", {"competition": money_ladder.pk, "bot": bot.pk}, format="json"
    )

    row = entry_row(competition_page(logged_in(ada), money_ladder), bot)

    assert entered.status_code == 201, entered.content
    assert "latest" not in row
    assert "v1 Plays v1 (pinned by its owner)." in row
    assert (entered.json()["plays"], entered.json()["play_status"]) == (1, "plays")
    assert entered.json()["pinned_version"] is None  # the entry itself pins nothing

    bot_services.bot_play_set(bot=bot, pinned_number=None, active=True)  # back to the newest

    shown = api.get(f"/api/entries/{entered.json()['id']}/").json()
    assert shown["plays"] == 2
    assert shown["play_words"] == "Plays v2 (its newest ready version that passed money-jordan)."
    assert "v2 Plays v2" in entry_row(competition_page(logged_in(ada), money_ladder), bot)


def test_an_entry_waiting_for_its_validation_says_so_then_that_its_version_failed(
    ada, money_ladder
):
    bot = Bot.objects.create(owner=ada, name="fresh")
    first = version(bot, 1, "validating", declares=["money-jordan"])
    api = api_for(ada)
    entered = api.post(
        "/api/entries/", {"competition": money_ladder.pk, "bot": bot.pk}, format="json"
    )
    browser = logged_in(ada)
    waits = "Waits for the validation of v1 in money-jordan: it starts playing once v1 passes."

    assert entered.status_code == 201, entered.content
    assert entered.json()["play_status"] == "waits" and entered.json()["play_words"] == waits
    assert waits in entry_row(competition_page(browser, money_ladder), bot)
    bot_page = words(browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode())
    assert f"Open Money ladder {waits}" in bot_page

    first.status = BotVersion.Status.REJECTED  # its validation failed
    first.save(update_fields=["status"])

    shown = api.get(f"/api/entries/{entered.json()['id']}/").json()
    assert shown["play_status"] == "cannot-play" and shown["plays"] is None
    assert shown["play_words"].startswith(
        "Cannot play money-jordan: its versions failed their validation (v1 rejected"
    )
    row = entry_row(competition_page(browser, money_ladder), bot)
    assert "Cannot play money-jordan: its versions failed their validation (v1 rejected" in row


def test_an_entry_no_version_of_which_can_ever_play_is_refused_saying_why(ada, money_ladder):
    bot = Bot.objects.create(owner=ada, name="pinned")
    version(bot, 1, "ready", "manni-basic")
    version(bot, 2, "ready", "money-jordan")
    bot_services.bot_play_set(bot=bot, pinned_number=1, active=True)  # v1 plays, not Money
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()

    refused = api_for(ada).post(
        "/api/entries/", {"competition": money_ladder.pk, "bot": bot.pk}, format="json"
    )
    form = browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": money_ladder.pk, "once": once_value(page, "enter-form")},
    )

    why = (
        "ada/pinned cannot play money-jordan: its owner pinned v1, and v1 has not passed "
        "validation in money-jordan: pin another version, or none"
    )
    assert refused.status_code == 400
    assert refused.json()["bot"] == [why]
    assert form.status_code == 400
    assert why in html_lib.unescape(error_next_to(form.content.decode(), "competition"))
    assert not money_ladder.entries.filter(bot=bot).exists()


def test_a_rejected_version_says_it_plays_no_variant_as_the_entries_refusal_does(ada, money_ladder):
    bot = Bot.objects.create(owner=ada, name="partial")
    rejected = version(bot, 1, "rejected", "maniglia-4", "money-jordan")
    rejected.validation_report = {
        "ok": False,
        "variants": {
            "maniglia-4": {"ok": True, "games": 4, "opponents": ["builtin:random"] * 3},
            "manni-basic": {
                "ok": False,
                "games": 6,
                "opponents": ["builtin:random", "builtin:greedy"],
                "reasons": ["illegal action"],
            },
            "money-jordan": {"ok": True, "games": 4, "opponents": ["builtin:greedy"]},
        },
    }
    rejected.save(update_fields=["validation_report"])
    api = api_for(ada)

    page = logged_in(ada).get(reverse("bots-web:bot-detail", args=[bot.pk]))
    article = page.content.decode().split('id="version-1"')[1].split("</article>")[0]
    shown = api.get(f"/api/bots/{bot.pk}/versions/1/").json()
    refused = api.post(
        "/api/entries/", {"competition": money_ladder.pk, "bot": bot.pk}, format="json"
    )

    text = words(article)
    assert page.status_code == 200
    assert "Plays maniglia-4" not in text
    assert (
        "It plays no variant: a rejected version never plays, not even maniglia-4 , "
        "money-jordan , which it passed; it failed manni-basic ." in text
    )
    assert shown["plays"] == [] and shown["passed"] == ["maniglia-4", "money-jordan"]
    assert refused.status_code == 400
    assert refused.json()["bot"] == [
        "ada/partial has no version to play (v1 failed validation: a rejected version plays "
        "no variant, not even one it passed): upload one that passes validation"
    ]


def test_the_entry_list_reads_where_every_entry_stands_in_the_same_queries_however_many(
    ada, money_ladder, django_assert_max_num_queries
):
    def entered(name: str) -> None:
        bot = Bot.objects.create(owner=ada, name=name)
        version(bot, 1, "rejected")
        version(bot, 2, "ready", "money-jordan")
        version(bot, 3, "validating", declares=["money-jordan"])
        services.entry_create(competition=money_ladder, bot=bot, by=ada)

    entered("first")
    with CaptureQueriesContext(connection) as few:
        dashboard_pages.competition_page(competition=money_ladder)
    for i in range(6):
        entered(f"more-{i}")

    with django_assert_max_num_queries(len(few)):
        page = dashboard_pages.competition_page(competition=money_ladder)

    said = [e.outlook["words"] for e in page["entries"] if not e.bot.builtin]
    assert said == ["Plays v2 (its newest ready version that passed money-jordan)."] * 7


def test_a_ready_version_queued_for_the_variant_is_the_one_its_entry_waits_for(ada, money_ladder):
    bot = Bot.objects.create(owner=ada, name="older")
    first = version(bot, 1, "ready", "manni-basic")  # validated before it declared Money
    first.validation_report = {"queue": {"variants": ["money-jordan"]}, "stderr_tail": "x"}
    first.save(update_fields=["validation_report"])
    Entry.objects.create(competition=money_ladder, bot=bot, seed_order=9)  # entered before

    [entry] = [
        e
        for e in dashboard_pages.competition_page(competition=money_ladder)["entries"]
        if e.bot == bot
    ]

    assert entry.outlook == {
        "state": "waits",
        "version": 1,
        "words": "Waits for the validation of v1 in money-jordan: it starts playing once "
        "v1 passes.",
    }
