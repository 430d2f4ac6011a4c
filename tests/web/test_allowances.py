"""Allowances on the site: "My bots" shows what is left; a refusal is a form error naming it."""

from __future__ import annotations

import html
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.defaultfilters import filesizeformat
from django.urls import reverse

from bots.models import Bot, UserAllowance
from tests.factories import FIRST_LEGAL_BOT, logged_in, make_user
from tests.web.conftest import once_value

pytestmark = pytest.mark.django_db


def create_bot(client, name: str):
    page = client.get(reverse("bots-web:my-bots")).content.decode()
    return client.post(
        reverse("bots-web:my-bots"), {"name": name, "once": once_value(page, "bot-create")}
    )


def left_of(html: str, name: str) -> int:
    row = html[html.index(f'id="allowance-{name}"') :]
    return int(re.search(r'class="allowance-left">(\d+)<', row).group(1))


def test_my_bots_shows_what_is_left_and_refuses_a_bot_past_the_allowance(settings):
    settings.CARDROOM_ALLOWANCE_BOTS = 3
    ada = make_user("ada")
    browser = logged_in(ada)
    for i in range(2):
        assert create_bot(browser, f"bot-{i}").status_code == 302

    page = browser.get(reverse("bots-web:my-bots")).content.decode()
    assert left_of(page, "bots") == 1
    assert left_of(page, "versions_per_day") == settings.CARDROOM_ALLOWANCE_VERSIONS_PER_DAY
    # Bytes in words, the exact count beside them; large counts with thousands separators.
    row = page[page.index('id="allowance-upload_bytes_per_day"') :].split("</tr>")[0]
    limit = settings.CARDROOM_ALLOWANCE_UPLOAD_BYTES_PER_DAY
    assert f'title="{limit} bytes">{filesizeformat(limit)}<' in row
    row = page[page.index('id="allowance-version_test_games_per_day"') :].split("</tr>")[0]
    assert f">{settings.CARDROOM_ALLOWANCE_VERSION_TEST_GAMES_PER_DAY:,}<" in row
    assert create_bot(browser, "bot-2").status_code == 302
    refused = create_bot(browser, "bot-3")

    html = refused.content.decode()
    assert refused.status_code == 400
    assert "Allowance bots reached: 3 of 3 bots used" in html
    assert left_of(html, "bots") == 0
    assert Bot.objects.filter(owner=ada).count() == 3


def upload(client, bot: Bot, content: bytes):
    page = client.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    return client.post(
        reverse("bots-web:version-upload", args=[bot.pk]),
        {"file": SimpleUploadedFile("bot.py", content), "once": once_value(page, "upload-form")},
    )


def test_an_upload_past_the_versions_of_the_day_is_a_form_error_naming_it(settings):
    settings.CARDROOM_ALLOWANCE_VERSIONS_PER_DAY = 1
    ada = make_user("ada")
    bot = Bot.objects.create(owner=ada, name="daily")
    browser = logged_in(ada)

    first = upload(browser, bot, FIRST_LEGAL_BOT)
    second = upload(browser, bot, FIRST_LEGAL_BOT + b"# again\n")

    assert first.status_code == 302
    assert second.status_code == 400
    assert "Allowance versions_per_day reached: 1 of 1 versions used today" in html.unescape(
        second.content.decode()
    )
    assert "it renews at" in second.content.decode()
    assert bot.versions.count() == 1


def test_staff_set_a_users_allowance_in_the_admin():
    ada = make_user("ada")
    boss = make_user("boss")
    type(boss).objects.filter(pk=boss.pk).update(is_staff=True, is_superuser=True)
    admin = logged_in(type(boss).objects.get(pk=boss.pk))

    response = admin.post(
        reverse("admin:bots_userallowance_add"),
        {"user": ada.pk, "allowance": "bots", "value": 50, "note": "a club's coach"},
    )
    refused = admin.post(
        reverse("admin:bots_userallowance_add"),
        {"user": ada.pk, "allowance": "ladder_entries", "value": -1},
    )

    assert response.status_code == 302
    assert UserAllowance.objects.get(user=ada, allowance="bots").value == 50
    assert (
        refused.status_code == 200
        and not UserAllowance.objects.filter(allowance="ladder_entries").exists()
    )
