"""On the site: a bot declares its variants, its page says per variant what validation
found, and it is offered and entered only where it plays."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from bots import sandbox
from bots.models import Bot, BotVersion
from tests.factories import FIRST_LEGAL_BOT, logged_in, make_user, passed
from tests.web.conftest import error_next_to, once_value
from tournaments import services as tournament_services
from tournaments.models import Competition

pytestmark = pytest.mark.django_db


def draft(organiser, name: str, variant: str) -> Competition:
    return tournament_services.competition_create(
        created_by=organiser, name=name, kind="tournament", variant=variant, format="round-robin"
    )


def page_of(browser, bot: Bot) -> str:
    return browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()


def legacy_bot(owner, name: str = "old") -> Bot:
    """A bot whose one version was validated before bots declared variants."""
    bot = Bot.objects.create(owner=owner, name=name)
    version = BotVersion.objects.create(
        bot=bot, number=1, sha256="0" * 64, runtime="python", status="ready"
    )
    passed(version, "manni-basic")
    return bot


@pytest.mark.skipif(not sandbox.available(), reason="uploaded bots need the sandbox")
def test_an_upload_declares_its_variants_and_the_page_says_what_passed(
    django_capture_on_commit_callbacks, eager_celery
):
    ada = make_user("ada")
    browser = logged_in(ada)
    bot = Bot.objects.create(owner=ada, name="money")
    page = page_of(browser, bot)
    assert 'value="money-jordan"' in page  # the variants it may declare

    with django_capture_on_commit_callbacks(execute=True):
        browser.post(
            reverse("bots-web:version-upload", args=[bot.pk]),
            {
                "file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT),
                "variants": ["money-jordan"],
                "once": once_value(page, "upload-form"),
            },
        )

    version = bot.versions.get()
    assert version.variants == ["money-jordan"] and version.status == "ready"
    page = page_of(browser, bot)
    assert "money-jordan: passed (4 games against" in page
    assert "Time control: 2,000 ms a move" in page


def test_an_unknown_variant_on_the_upload_form_is_a_form_error_naming_it():
    ada = make_user("ada")
    browser = logged_in(ada)
    bot = Bot.objects.create(owner=ada, name="typo")
    page = page_of(browser, bot)

    answer = browser.post(
        reverse("bots-web:version-upload", args=[bot.pk]),
        {
            "file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT),
            "variants": ["money-jordan", "whist"],
            "once": once_value(page, "upload-form"),
        },
    )

    assert answer.status_code == 400
    assert "whist" in error_next_to(answer.content.decode(), "variants")
    assert not bot.versions.exists()


def test_the_entry_form_offers_only_what_it_plays_and_names_the_variant_it_does_not():
    ada, olga = make_user("ada"), make_user("olga", organiser=True)
    manni = draft(olga, "Manni night", "manni-basic")
    money = draft(olga, "Money night", "money-jordan")
    bot = legacy_bot(ada)
    browser = logged_in(ada)

    page = page_of(browser, bot)
    assert "Manni night" in page and "Money night" not in page

    answer = browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": money.pk, "once": once_value(page, "enter-form")},
    )

    assert answer.status_code == 400
    assert "has not passed validation in money-jordan" in error_next_to(
        answer.content.decode(), "competition"
    )
    assert not money.entries.exists() and not manni.entries.exists()


def test_the_organisers_form_offers_only_bots_that_play_its_variant():
    olga = make_user("olga", organiser=True)
    money = draft(olga, "Money night", "money-jordan")
    legacy_bot(olga, "manni-only")
    Bot.objects.create(name="random-table", builtin="random")
    browser = logged_in(olga)

    page = browser.get(reverse("organise:competition", args=[money.pk])).content.decode()

    assert "random-table" in page and "manni-only" not in page


@pytest.mark.skipif(not sandbox.available(), reason="uploaded bots need the sandbox")
def test_an_owner_validates_an_old_version_in_more_variants(
    django_capture_on_commit_callbacks, eager_celery, monkeypatch
):
    from bots.services import validation_run as services

    ada = make_user("ada")
    bot = legacy_bot(ada)
    monkeypatch.setattr(services, "bot_version_path", lambda **kw: _example_path())
    browser = logged_in(ada)
    page = page_of(browser, bot)
    assert "Validate in these variants" in page

    with django_capture_on_commit_callbacks(execute=True):
        done = browser.post(
            reverse("bots-web:version-validate", args=[bot.pk, 1]),
            {"v1-variants": ["money-syria"], "once": once_value(page, "validate-more-1")},
        )

    assert done.status_code == 302
    version = bot.versions.get()
    assert version.status == "ready"
    assert sorted(version.passes.values_list("variant", flat=True)) == [
        "manni-basic",
        "money-syria",
    ]
    assert "money-syria: passed" in page_of(browser, bot)


def _example_path():
    from pathlib import Path

    return Path(__file__).parents[2] / "bots" / "examples" / "python"
