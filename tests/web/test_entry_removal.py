"""An organiser removes an entry of a draft from the organise page (a POST form with
CSRF, through ``services.entry_remove``, which the API's withdraw path shares); others
are refused; a started competition's entries stay, with the reason said."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from tests.factories import logged_in, make_user
from tests.web.conftest import once_value
from tournaments import services
from tournaments.models import Competition, Entry

pytestmark = pytest.mark.django_db


def draft_of(owner, entries: int = 3) -> Competition:
    competition = services.competition_create(
        created_by=owner,
        name="Club draft",
        kind="tournament",
        variant="money-jordan",
        format="round-robin",
        games_per_match=2,
    )
    for i in range(entries):
        bot = Bot.objects.create(name=f"house-{i}", builtin="random")
        services.entry_create(competition=competition, bot=bot)
    return competition


def remove_url(entry: Entry) -> str:
    return reverse("organise:entry-remove", args=[entry.competition_id, entry.pk])


def test_the_organiser_removes_a_draft_entry_with_the_pages_form():
    olga = make_user("olga", organiser=True)
    competition = draft_of(olga)
    entry = competition.entries.order_by("id").first()
    client = Client(enforce_csrf_checks=True)
    client.force_login(olga)
    page = client.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    assert f'action="{remove_url(entry)}"' in page
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    refused = client.post(remove_url(entry), {"once": once_value(page)})  # no CSRF token
    assert refused.status_code == 403 and Entry.objects.filter(pk=entry.pk).exists()

    done = client.post(remove_url(entry), {"once": once_value(page), "csrfmiddlewaretoken": csrf})

    assert done.status_code == 302 and done["Location"].endswith("#entries")
    assert not Entry.objects.filter(pk=entry.pk).exists()
    assert competition.entries.count() == 2
    page = client.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    listed = page[page.index('<section id="entries">') : page.index('id="entry-form"')]
    assert "Entries (2)" in listed and str(entry.bot) not in listed
    assert f'<option value="{entry.bot_id}">{entry.bot}</option>' in page  # may enter again


def test_others_may_not_remove_entries():
    olga = make_user("olga", organiser=True)
    competition = draft_of(olga)
    entry = competition.entries.first()
    other_organiser = make_user("oscar", organiser=True)

    assert logged_in(make_user("otto")).post(remove_url(entry)).status_code == 403
    assert logged_in(other_organiser).post(remove_url(entry)).status_code == 403
    anonymous = Client().post(remove_url(entry))
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    competition.is_public = False
    competition.save(update_fields=["is_public"])
    assert logged_in(make_user("otis")).post(remove_url(entry)).status_code == 404
    assert Entry.objects.filter(pk=entry.pk).exists()


def test_an_entry_of_another_competition_is_not_found():
    olga = make_user("olga", organiser=True)
    mine, other = draft_of(olga), draft_of(make_user("oscar", organiser=True))
    foreign = other.entries.first()
    url = reverse("organise:entry-remove", args=[mine.pk, foreign.pk])

    assert logged_in(olga).post(url).status_code == 404
    assert Entry.objects.filter(pk=foreign.pk).exists()


def test_removing_from_a_started_competition_is_refused_with_the_reason():
    olga = make_user("olga", organiser=True)
    competition = draft_of(olga, entries=4)
    client = logged_in(olga)
    page = client.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    services.competition_start(competition=competition, by=olga)  # started meanwhile
    entry = competition.entries.first()

    refused = client.post(remove_url(entry), {"once": once_value(page)})

    assert refused.status_code == 400
    text = refused.content.decode()
    assert 'id="action-errors"' in text and "has started" in text
    assert "removed only before the start" in text
    entry.refresh_from_db()
    assert not entry.withdrawn  # neither removed nor withdrawn
    page = client.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    assert "remove-entry" not in page  # no remove buttons once started
