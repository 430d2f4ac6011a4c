"""Disk per account on the site: "My bots" shows the stored bytes with the other
allowances (and, to an account whose address is unconfirmed, the total it shares); an
upload past them is a form error naming the allowance, what is used and the limit."""

from __future__ import annotations

import html

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.defaultfilters import filesizeformat
from django.urls import reverse

from bots.models import AccountConfirmation, Bot
from tests.factories import FIRST_LEGAL_BOT, logged_in, make_user
from tests.web.conftest import once_value

pytestmark = pytest.mark.django_db


def content(n: int) -> bytes:
    return FIRST_LEGAL_BOT + f"# copy {n:04d}\n".encode()


SIZE = len(content(0))


def upload(client, bot: Bot, body: bytes):
    page = client.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    return client.post(
        reverse("bots-web:version-upload", args=[bot.pk]),
        {"file": SimpleUploadedFile("bot.py", body), "once": once_value(page, "upload-form")},
    )


def stored_row(page: str) -> str:
    return page[page.index('id="allowance-stored_bytes"') :].split("</tr>")[0]


def test_an_upload_past_the_stored_bytes_is_a_form_error_and_my_bots_shows_them(settings):
    settings.CARDROOM_ALLOWANCE_STORED_BYTES = SIZE + SIZE // 2
    ada = make_user("ada")
    bot = Bot.objects.create(owner=ada, name="hoarder")
    browser = logged_in(ada)

    first = upload(browser, bot, content(0))
    refused = upload(browser, bot, content(1))
    page = browser.get(reverse("bots-web:my-bots")).content.decode()

    assert first.status_code == 302
    assert refused.status_code == 400
    words = html.unescape(refused.content.decode())
    limit = SIZE + SIZE // 2
    assert f"Allowance stored_bytes reached: {SIZE} of {limit} stored bytes used" in words
    assert "deleted or pruned" in words
    row = stored_row(page)
    assert f'title="{SIZE} bytes">{filesizeformat(SIZE)}<' in row
    assert f'title="{limit} bytes">{filesizeformat(limit)}<' in row
    assert "as versions are deleted or pruned" in row
    assert 'id="unconfirmed-stored"' not in page
    assert bot.versions.count() == 1


def test_an_unconfirmed_account_sees_its_smaller_allowance_and_the_shared_total(settings):
    settings.CARDROOM_ALLOWANCE_STORED_BYTES_UNCONFIRMED = 3 * SIZE
    settings.CARDROOM_ALLOWANCE_UNCONFIRMED_STORED_BYTES_TOTAL = SIZE
    newcomer = make_user("newcomer")
    AccountConfirmation.objects.create(user=newcomer, email="", required=False)
    other = make_user("other")
    AccountConfirmation.objects.create(user=other, email="", required=False)
    bot = Bot.objects.create(owner=newcomer, name="first")
    browser = logged_in(newcomer)

    assert upload(browser, bot, content(0)).status_code == 302
    refused = upload(logged_in(other), Bot.objects.create(owner=other, name="b"), content(1))
    page = browser.get(reverse("bots-web:my-bots")).content.decode()

    assert refused.status_code == 400
    assert f"Allowance unconfirmed_stored_bytes reached: {SIZE} of {SIZE}" in html.unescape(
        refused.content.decode()
    )
    assert f'title="{3 * SIZE} bytes">{filesizeformat(3 * SIZE)}<' in stored_row(page)
    note = page[page.index('id="unconfirmed-stored"') :].split("</p>")[0]
    assert f'title="{SIZE} bytes">{filesizeformat(SIZE)}<' in note
