"""A bot author in the browser: sign up, create a bot, upload it, watch it validated, enter it."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from bots.models import Bot, BotVersion
from tests.factories import FIRST_LEGAL_BOT, PASSWORD, logged_in, make_user, passed
from tests.web.conftest import error_next_to, once_value
from tournaments import services as tournament_services
from tournaments.models import Competition, Entry

pytestmark = pytest.mark.django_db


def open_tournament(organiser, name: str = "Friday cup", **extra) -> Competition:
    return tournament_services.competition_create(
        created_by=organiser,
        name=name,
        kind="tournament",
        variant="manni-basic",
        format="round-robin",
        games_per_match=3,
        **extra,
    )


def create_bot(client: Client, name: str, description: str = "") -> object:
    page = client.get(reverse("bots-web:my-bots")).content.decode()
    return client.post(
        reverse("bots-web:my-bots"),
        {"name": name, "description": description, "once": once_value(page, "bot-create")},
    )


def upload(client: Client, bot: Bot, content: bytes = FIRST_LEGAL_BOT, name: str = "bot.py"):
    page = client.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    return client.post(
        reverse("bots-web:version-upload", args=[bot.pk]),
        {"file": SimpleUploadedFile(name, content), "once": once_value(page, "upload-form")},
    )


def test_an_author_signs_up_uploads_sees_it_validated_and_enters_it(
    django_capture_on_commit_callbacks, eager_celery
):
    organiser = make_user("olga", organiser=True)
    cup = open_tournament(organiser)
    browser = Client()
    signup = browser.post(
        reverse("site:signup"),
        {"username": "ada", "password": PASSWORD, "password_again": PASSWORD},
    )
    assert signup.status_code == 302, signup.content.decode()[:2000]

    created = create_bot(browser, "first-legal", "Plays the first legal card.")
    bot = Bot.objects.get(owner__username="ada", name="first-legal")
    assert created.status_code == 302
    assert created["Location"] == reverse("bots-web:bot-detail", args=[bot.pk])
    assert bot.description == "Plays the first legal card."

    with django_capture_on_commit_callbacks(execute=True):  # the commit sends the task
        uploaded = upload(browser, bot)
    assert uploaded.status_code == 302
    version = BotVersion.objects.get(bot=bot)
    assert version.number == 1 and version.status == BotVersion.Status.READY

    status = browser.get(reverse("bots-web:version-status", args=[bot.pk, 1])).json()
    assert status == {
        "number": 1,
        "status": "ready",
        "words": "ready to play",
        "finished": True,
        "queue": None,  # no longer waiting
        "waiting": "",
    }
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    assert "ready to play" in page and "Validation passed" in page
    assert "manni-basic: passed (6 games against" in page  # and so on, per variant
    assert "thinking" in page  # the stderr tail, shown to its owner

    page_text = page[page.index('id="enter-form"') :]
    assert "Friday cup" in page_text
    entered = browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": cup.pk, "once": once_value(page, "enter-form")},
    )
    assert entered.status_code == 302
    assert Entry.objects.filter(competition=cup, bot=bot).count() == 1
    listed = browser.get(reverse("bots-web:my-bots")).content.decode()
    assert "first-legal" in listed and "v1" in listed


def test_a_page_that_is_still_validating_is_watched_until_it_ends():
    ada = make_user("ada")
    browser = logged_in(ada)
    create_bot(browser, "slowpoke")
    bot = Bot.objects.get(name="slowpoke")

    upload(browser, bot)  # no commit callbacks run: no worker has taken it yet

    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    status_url = reverse("bots-web:version-status", args=[bot.pk, 1])
    assert f'data-status-url="{status_url}"' in page and "being validated" in page
    assert browser.get(status_url).json()["finished"] is False


def test_a_refused_upload_is_explained_next_to_the_file_and_stores_nothing():
    ada = make_user("ada")
    browser = logged_in(ada)
    create_bot(browser, "broken")
    bot = Bot.objects.get(name="broken")

    response = upload(browser, bot, content=b"\x7fELF-not-really", name="notes.txt")

    assert response.status_code == 400
    assert error_next_to(response.content.decode(), "file")
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_a_bad_or_taken_name_is_refused_next_to_the_name_and_creates_nothing():
    ada = make_user("ada")
    browser = logged_in(ada)
    create_bot(browser, "taken")

    bad = create_bot(browser, "no spaces allowed")
    taken = create_bot(browser, "taken")

    assert bad.status_code == 400 and "is not a valid bot name" in error_next_to(
        bad.content.decode(), "name"
    )
    assert taken.status_code == 400 and "You already have a bot named" in error_next_to(
        taken.content.decode(), "name"
    )
    assert list(Bot.objects.filter(owner=ada).values_list("name", flat=True)) == ["taken"]


def test_a_form_sent_twice_creates_one_bot_and_one_version():
    ada = make_user("ada")
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:my-bots")).content.decode()
    form = {"name": "twice", "once": once_value(page, "bot-create")}

    first = browser.post(reverse("bots-web:my-bots"), form)
    second = browser.post(reverse("bots-web:my-bots"), form)

    bot = Bot.objects.get(owner=ada, name="twice")
    assert second.status_code == 302 and second["Location"] == first["Location"]
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    form = {"once": once_value(page, "upload-form")}
    for _ in range(2):
        browser.post(
            reverse("bots-web:version-upload", args=[bot.pk]),
            {**form, "file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)},
        )
    assert BotVersion.objects.filter(bot=bot).count() == 1


def test_another_user_can_neither_see_nor_change_a_bot(
    django_capture_on_commit_callbacks, eager_celery
):
    ada, bob = make_user("ada"), make_user("bob")
    cup = open_tournament(make_user("olga", organiser=True))
    browser = logged_in(ada)
    create_bot(browser, "secret-sauce")
    bot = Bot.objects.get(name="secret-sauce")
    with django_capture_on_commit_callbacks(execute=True):
        upload(browser, bot)
    assert "thinking" in browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    intruder = logged_in(bob)
    detail = reverse("bots-web:bot-detail", args=[bot.pk])

    assert intruder.get(detail).status_code == 404  # entered nowhere: the owner's alone
    assert Client().get(detail).status_code == 404
    refused = [
        intruder.post(
            reverse("bots-web:version-upload", args=[bot.pk]),
            {"file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)},
        ),
        intruder.post(reverse("bots-web:bot-enter", args=[bot.pk]), {"competition": cup.pk}),
        intruder.get(reverse("bots-web:version-status", args=[bot.pk, 1])),
    ]
    assert [r.status_code for r in refused] == [404, 404, 404]
    assert BotVersion.objects.filter(bot=bot).count() == 1
    assert not Entry.objects.filter(bot=bot).exists()

    tournament_services.entry_create(competition=cup, bot=bot, by=ada)
    public = intruder.get(detail)  # in a public competition now: its page is public
    assert public.status_code == 200
    html = public.content.decode()
    assert "secret-sauce" in html and "Friday cup" in html
    assert 'id="upload-form"' not in html and 'id="enter-form"' not in html
    assert "ready to play" in html  # the version and its report are public
    assert "thinking" not in html and 'class="stderr"' not in html  # its stderr is not
    denied = intruder.post(
        reverse("bots-web:version-upload", args=[bot.pk]),
        {"file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)},
    )
    assert denied.status_code == 403
    assert BotVersion.objects.filter(bot=bot).count() == 1


def test_a_private_competition_stays_off_the_bot_page_of_outsiders():
    ada, bob = make_user("ada"), make_user("bob")
    olga = make_user("olga", organiser=True)
    hidden = open_tournament(olga, name="Invitation only", is_public=False)
    shown = open_tournament(olga, name="Open night")
    bot = Bot.objects.create(owner=ada, name="both")
    passed(
        BotVersion.objects.create(
            bot=bot, number=1, sha256="0" * 64, runtime="python", status="ready"
        )
    )
    for competition in (hidden, shown):
        tournament_services.entry_create(competition=competition, bot=bot, by=ada)

    outsider = logged_in(bob).get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    organiser = logged_in(olga).get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()

    assert "Open night" in outsider and "Invitation only" not in outsider
    assert "Open night" in organiser and "Invitation only" in organiser


def test_the_api_token_is_shown_and_replaced_on_request():
    from rest_framework.authtoken.models import Token

    ada = make_user("ada")
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:my-bots")).content.decode()
    old = Token.objects.get(user=ada).key
    assert old in page

    browser.post(reverse("bots-web:token-regenerate"), {"once": once_value(page)})

    new = Token.objects.get(user=ada).key
    assert new != old and new in browser.get(reverse("bots-web:my-bots")).content.decode()
    api = Client(HTTP_AUTHORIZATION=f"Token {new}")
    assert api.get("/api/bots/").status_code == 200
    assert Client(HTTP_AUTHORIZATION=f"Token {old}").get("/api/bots/").status_code == 401


def test_my_bots_asks_a_visitor_to_log_in():
    response = Client().get(reverse("bots-web:my-bots"))

    assert response.status_code == 302 and reverse("site:login") in response["Location"]


def test_a_running_ladder_takes_a_bot_from_its_page_and_pairs_it_next():
    from tournaments.worker import execution

    ada, olga = make_user("ada"), make_user("olga", organiser=True)
    ladder = tournament_services.competition_create(
        created_by=olga,
        name="Open ladder",
        kind="ladder",
        variant="money-jordan",
        format="ladder",
        games_per_match=2,
    )
    for i in range(2):
        bot = Bot.objects.create(name=f"random-{i}", builtin="random")
        tournament_services.entry_create(competition=ladder, bot=bot)
    tournament_services.competition_start(competition=ladder)
    ladder.matches.all().update(status="done")  # the first batch has been played
    mine = Bot.objects.create(owner=ada, name="late-comer", builtin="greedy")
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:bot-detail", args=[mine.pk])).content.decode()
    assert "Open ladder" in page[page.index('id="enter-form"') :]

    entered = browser.post(
        reverse("bots-web:bot-enter", args=[mine.pk]),
        {"competition": ladder.pk, "once": once_value(page, "enter-form")},
    )

    assert entered.status_code == 302
    entry = Entry.objects.get(competition=ladder, bot=mine)
    execution.matches_reap(send=lambda ids: None)  # the idle ladder's next batch
    assert ladder.matches.filter(seats__entry=entry).exists()


def test_a_started_tournament_takes_no_more_entries():
    ada = make_user("ada")
    cup = open_tournament(make_user("olga", organiser=True))
    for i in range(3):
        bot = Bot.objects.create(name=f"random-{i}", builtin="random")
        tournament_services.entry_create(competition=cup, bot=bot)
    mine = Bot.objects.create(owner=ada, name="too-late", builtin="greedy")
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:bot-detail", args=[mine.pk])).content.decode()
    tournament_services.competition_start(competition=cup)  # starts while the page is open

    refused = browser.post(
        reverse("bots-web:bot-enter", args=[mine.pk]),
        {"competition": cup.pk, "once": once_value(page, "enter-form")},
    )

    assert refused.status_code == 400
    assert "Select a valid choice" in error_next_to(refused.content.decode(), "competition")
    assert not Entry.objects.filter(bot=mine).exists()
