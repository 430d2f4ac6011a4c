"""The web pages and the bot store attacked as a hostile user would, through real requests.

Each test tries one thing an outsider, another bot author or another organiser
might try (changing ids in URLs and form bodies, forms sent without their CSRF
token, outside ``next`` addresses, markup in names, tampered stored bytes) and
checks that the data is not in the answer and that nothing changed.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import uuid
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots import services as bot_services
from bots import store
from bots.archive import DEFAULT_LIMITS
from bots.cache import BotCache, CacheCorrupt
from bots.models import Bot, BotBlob
from tests.dashboard.conftest import session_cookie
from tests.factories import (
    FIRST_LEGAL_BOT,
    logged_in,
    make_competition,
    make_user,
    play_one,
    uploaded_bot,
)
from tests.static_files import static_get
from tests.web.conftest import once_value
from tournaments import services as tournament_services
from tournaments.models import Competition, Entry, GameRecord, Match
from tournaments.sockets.consumers import CLOSE_FORBIDDEN

pytestmark = pytest.mark.django_db

#: Markup a hostile user puts wherever the site lets them write text.
XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture(autouse=True)
def _web_settings(settings):
    """Fast password hashing, a cache of this test's own, an in-memory channel layer."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"web-attacks-{uuid.uuid4().hex}",
        }
    }
    cache.clear()
    yield
    cache.clear()


def csrf_client(user=None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client


# --- Another user's bot ------------------------------------------------------------------


def test_an_unentered_bot_of_another_user_is_a_404_on_every_door():
    ada, bob = make_user("ada"), make_user("bob")
    bot = uploaded_bot(ada)
    cup = make_competition(make_user("olga", organiser=True), name="Friday cup")
    intruder = logged_in(bob)

    answers = [
        intruder.get(reverse("bots-web:bot-detail", args=[bot.pk])),
        intruder.get(reverse("bots-web:version-status", args=[bot.pk, 1])),
        intruder.post(
            reverse("bots-web:version-upload", args=[bot.pk]),
            {"file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)},
        ),
        intruder.post(reverse("bots-web:bot-enter", args=[bot.pk]), {"competition": cup.pk}),
        Client().get(reverse("bots-web:version-status", args=[bot.pk, 1])),
        intruder.post(
            reverse("bots-web:version-test-start", args=[bot.pk]),
            {"new": 1, "old": 1, "variant": "manni-basic"},
        ),
        intruder.get(reverse("bots-web:version-test-status", args=[bot.pk, 1])),
        intruder.post(reverse("bots-web:version-test-cancel", args=[bot.pk, 1])),
        Client().get(reverse("bots-web:version-test-status", args=[bot.pk, 1])),
    ]

    download = f"/api/bots/{bot.pk}/versions/1/download/"
    answers.append(intruder.get(download))
    assert logged_in(ada).get(download).getvalue() == FIRST_LEGAL_BOT  # the test can tell

    assert [a.status_code for a in answers] == [404] * 10
    assert all(b"thinking" not in a.content for a in answers)  # the bot's source
    for answer in answers:
        assert b"secret-sauce" not in answer.content and b"stderr-secret" not in answer.content
    assert bot.versions.count() == 1 and not Entry.objects.filter(bot=bot).exists()
    assert not bot.version_tests.exists()


def test_a_bot_seen_only_in_a_private_competition_stays_hidden_from_outsiders():
    ada, bob = make_user("ada"), make_user("bob")
    olga = make_user("olga", organiser=True)
    hidden = make_competition(olga, name="Invitation only", is_public=False)
    bot = uploaded_bot(ada)
    tournament_services.entry_create(competition=hidden, bot=bot, by=ada)

    outsider = logged_in(bob).get(reverse("bots-web:bot-detail", args=[bot.pk]))
    anonymous = Client().get(reverse("bots-web:bot-detail", args=[bot.pk]))
    organiser = logged_in(olga).get(reverse("bots-web:bot-detail", args=[bot.pk]))

    assert outsider.status_code == anonymous.status_code == 404
    assert b"secret-sauce" not in outsider.content
    assert organiser.status_code == 200 and b"Invitation only" in organiser.content


def test_a_public_bots_page_shows_visitors_no_stderr_no_files_and_no_owner_tools():
    ada, bob = make_user("ada"), make_user("bob")
    bot = uploaded_bot(ada)
    tournament_services.entry_create(
        competition=make_competition(make_user("olga"), name="Friday cup"), bot=bot, by=ada
    )
    token = logged_in(ada).get(reverse("bots-web:my-bots")).context["token"]

    for visitor in (logged_in(bob), Client()):
        page = visitor.get(reverse("bots-web:bot-detail", args=[bot.pk]))
        html = page.content.decode()
        assert page.status_code == 200 and "secret-sauce" in html
        assert "stderr-secret-line" not in html and 'class="stderr"' not in html
        assert "bot.py" not in html  # the uploaded file's name and the command that runs it
        assert token not in html
        assert 'id="upload-form"' not in html and 'id="enter-form"' not in html
        assert "data-status-url" not in html
    status = logged_in(bob).get(reverse("bots-web:version-status", args=[bot.pk, 1]))
    assert status.status_code == 403 and b"ready" not in status.content


def test_the_owner_still_sees_the_stderr_and_the_file():
    ada = make_user("ada")
    bot = uploaded_bot(ada)

    html = logged_in(ada).get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()

    assert "stderr-secret-line" in html and "bot.py" in html


def test_a_bot_is_entered_only_into_competitions_its_owner_may_see():
    ada, olga = make_user("ada"), make_user("olga", organiser=True)
    hidden = make_competition(olga, name="Invitation only", is_public=False)
    make_competition(olga, name="Open night")  # so that the page has its entry form
    bot = uploaded_bot(ada)
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    assert "Invitation only" not in page

    answer = browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": hidden.pk, "once": once_value(page, "enter-form")},
    )

    assert answer.status_code == 400
    assert "Invitation only" not in answer.content.decode()
    assert not Entry.objects.filter(bot=bot).exists()


def test_my_bots_and_the_token_belong_to_the_logged_in_user_only():
    ada, bob = make_user("ada"), make_user("bob")
    uploaded_bot(ada)
    ada_token = logged_in(ada).get(reverse("bots-web:my-bots")).context["token"]

    page = logged_in(bob).get(reverse("bots-web:my-bots")).content.decode()
    bob.refresh_from_db()
    logged_in(bob).post(reverse("bots-web:token-regenerate"), {"user": ada.pk})

    assert "secret-sauce" not in page and ada_token not in page
    own = logged_in(ada).get(reverse("bots-web:my-bots"))
    assert own.context["token"] == ada_token
    assert "no-store" in own["Cache-Control"] and "private" in own["Cache-Control"]


@pytest.mark.parametrize(
    "name",
    [
        "..%2Furls.py",
        "..%2F..%2Fconfig%2Fsettings%2F__init__.py",
        "%2Fetc%2Fpasswd",
        "dashboard%2F..%2F..%2Fdashboard%2Fviews.py",
        "bots%2F..%2F..%2Fweb%2Fviews.py",
    ],
)
def test_the_static_files_serve_only_the_apps_static_folders(name):
    answer = static_get(f"{django_settings.STATIC_URL}{name}")

    assert answer.status in (404, 500), name
    assert b"import" not in answer.body and b"root:" not in answer.body, name
    assert static_get(f"{django_settings.STATIC_URL}dashboard/live.js").status == 200


# --- Private competitions ----------------------------------------------------------------


def test_a_private_competition_its_matches_and_replays_are_404_to_outsiders():
    olga, bob = make_user("olga", organiser=True), make_user("bob")
    competition = make_competition(
        olga, name="Secret club", is_public=False, entries=3, games=3, start=True
    )
    match = play_one(competition)
    game = GameRecord.objects.filter(match=match).first()
    urls = [
        reverse("dashboard:competition-detail", args=[competition.pk]),
        reverse("dashboard:match-detail", args=[match.pk]),
        reverse("dashboard:game-replay", args=[game.pk]),
        reverse("dashboard:game-replay", args=[game.pk]) + "?view=full",
        reverse("organise:competition", args=[competition.pk]),
    ]

    for client in (logged_in(bob), Client()):
        for url in urls:
            answer = client.get(url)
            assert answer.status_code in (404, 302), url  # 302: the organisers' login page
            assert b"Secret club" not in answer.content
        for page in (client.get("/"), client.get(reverse("dashboard:competition-list"))):
            assert b"Secret club" not in page.content
    assert logged_in(olga).get(urls[0]).status_code == 200  # the test can tell


def test_comparing_entries_of_a_private_competition_on_a_public_page_is_refused():
    olga = make_user("olga", organiser=True)
    public = make_competition(olga, name="Open night", entries=3, games=3, start=True)
    hidden = make_competition(
        olga, name="Secret club", is_public=False, entries=3, games=3, start=True, prefix="secret-"
    )
    a, b = hidden.entries.order_by("id")[:2]

    page = Client().get(
        reverse("dashboard:competition-detail", args=[public.pk]), {"a": a.pk, "b": b.pk}
    )

    assert page.status_code == 200
    assert page.context["compare"].get("error")
    assert a.bot.name not in page.content.decode() and b.bot.name not in page.content.decode()


async def first_output(competition_id: int, cookie: str | None = None) -> dict:
    """What the live socket of the competition sends first to a browser with ``cookie``."""
    from config.asgi import application

    headers = [(b"origin", b"http://localhost")]
    if cookie:
        headers.append((b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    comm = WebsocketCommunicator(application, f"/ws/competitions/{competition_id}/", headers)
    await comm.connect()
    output = await comm.receive_output(timeout=5)
    await comm.disconnect()
    await database_sync_to_async(connections.close_all)()
    return output


@pytest.mark.django_db(transaction=True)
def test_the_live_socket_of_a_private_competition_is_closed_to_outsiders():
    olga, bob = make_user("olga", organiser=True), make_user("bob")
    competition = make_competition(
        olga, name="Secret club", is_public=False, entries=3, games=3, start=True
    )

    outsider = async_to_sync(first_output)(competition.pk, session_cookie(bob))
    anonymous = async_to_sync(first_output)(competition.pk)
    organiser = async_to_sync(first_output)(competition.pk, session_cookie(olga))

    closed = {"type": "websocket.close", "code": CLOSE_FORBIDDEN}
    assert outsider == anonymous == closed
    assert "Secret club" in organiser["text"]  # the test can tell


@pytest.mark.django_db(transaction=True)
def test_a_failed_matchs_error_reaches_only_the_organisers_page_and_socket():
    olga = make_user("olga", organiser=True)
    competition = make_competition(olga, name="Open night", entries=3, games=3, start=True)
    failed = competition.matches.order_by("id").first()
    failed.status, failed.error = "failed", "Traceback: /srv/secret-trace.py line 1"
    failed.save(update_fields=["status", "error"])
    Match.objects.create(
        competition=competition,
        round=failed.round,
        table=9,
        seed=1,
        status="running",
        claimed_by="worker-host-7/4242",
        lease_until=timezone.now() + timedelta(minutes=5),
    )
    stan = make_user("stan")
    stan.is_staff = True
    stan.save(update_fields=["is_staff"])
    url = reverse("dashboard:competition-detail", args=[competition.pk])

    public = async_to_sync(first_output)(competition.pk)["text"]
    organiser = async_to_sync(first_output)(competition.pk, session_cookie(olga))["text"]

    assert '"snapshot"' in public and "secret-trace" not in public
    assert "secret-trace" in organiser  # the test can tell
    assert b"secret-trace" not in Client().get(url).content
    assert b"secret-trace" in logged_in(olga).get(url).content
    # The worker's host and process: staff only, not even the organisers.
    staff = async_to_sync(first_output)(competition.pk, session_cookie(stan))["text"]
    assert "worker-host-7" not in public and "worker-host-7" not in organiser
    assert b"worker-host-7" not in logged_in(olga).get(url).content
    assert "worker-host-7" in staff and b"worker-host-7" in logged_in(stan).get(url).content


def test_the_deal_secret_and_hidden_hands_stay_off_the_pages_of_a_running_competition():
    olga = make_user("olga", organiser=True)
    competition = make_competition(olga, name="Open night", entries=4, games=3, start=True)
    match = play_one(competition)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.RUNNING and competition.deal_secret
    game = GameRecord.objects.filter(match=match).first()
    pages = [
        reverse("dashboard:competition-detail", args=[competition.pk]),
        reverse("dashboard:match-detail", args=[match.pk]),
        reverse("dashboard:game-replay", args=[game.pk]),
        reverse("organise:competition", args=[competition.pk]),
    ]

    for client in (Client(), logged_in(olga)):
        for url in pages:
            html = client.get(url).content.decode()
            assert competition.deal_secret not in html, url
            assert str(match.seed) not in html, url
            assert str(game.record()["seed"]) not in html, url
        full = client.get(pages[2] + "?view=full")
        assert full.status_code == 403 and "hand seat" not in full.content.decode()
    replay = Client().get(pages[2]).content.decode()
    steps = json.loads(
        re.search(r'id="steps" type="application/json">(.*?)</script>', replay, re.S)[1]
    )
    assert steps and "hand seat" not in json.dumps(steps)


# --- CSRF, redirects, markup -------------------------------------------------------------


def test_every_form_refuses_a_post_without_its_csrf_token():
    ada, olga = make_user("ada"), make_user("olga", organiser=True)
    bot = uploaded_bot(ada)
    cup = make_competition(olga, name="Friday cup")
    own = Bot.objects.create(owner=olga, name="olgas-bot", builtin="random")
    token = logged_in(ada).get(reverse("bots-web:my-bots")).context["token"]
    posts = [
        (ada, reverse("bots-web:my-bots"), {"name": "forged"}),
        (ada, reverse("bots-web:token-regenerate"), {}),
        (ada, reverse("bots-web:version-upload", args=[bot.pk]), {"file": "x"}),
        (ada, reverse("bots-web:bot-enter", args=[bot.pk]), {"competition": cup.pk}),
        (olga, reverse("organise:competition-new"), {"name": "forged"}),
        (olga, reverse("organise:entry-add", args=[cup.pk]), {"bot": own.pk}),
        (olga, reverse("organise:competition-action", args=[cup.pk, "close"]), {}),
        (olga, reverse("site:logout"), {}),
        (None, reverse("site:signup"), {"username": "forged", "password": "x" * 12}),
        (None, reverse("site:login"), {"username": "ada", "password": "pw"}),
    ]

    for user, url, data in posts:
        answer = csrf_client(user).post(url, data)
        assert answer.status_code == 403 and b"CSRF" in answer.content, url

    assert not Bot.objects.filter(name="forged").exists()
    assert not Competition.objects.filter(name="forged").exists()
    assert not Entry.objects.exists() and bot.versions.count() == 1
    cup.refresh_from_db()
    assert cup.status == Competition.Status.DRAFT
    assert logged_in(ada).get(reverse("bots-web:my-bots")).context["token"] == token


def test_logging_out_takes_a_post():
    ada = make_user("ada")
    browser = logged_in(ada)

    answer = browser.get(reverse("site:logout"))

    assert answer.status_code == 405
    assert browser.get(reverse("bots-web:my-bots")).status_code == 200  # still logged in


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:alert(1)"]
)
def test_next_never_sends_anyone_off_the_site(target):
    ada = make_user("ada")
    login = Client().post(
        reverse("site:login") + f"?next={target}",
        {"username": "ada", "password": "pw-correct-horse-7"},
    )
    signup = Client().post(
        reverse("site:signup"),
        {
            "username": "newbie",
            "password": "pw-correct-horse-7",
            "password_again": "pw-correct-horse-7",
            "next": target,
        },
    )
    already = logged_in(ada).get(reverse("site:signup"), {"next": target})
    logout = logged_in(ada).post(reverse("site:logout"), {"next": target})
    again = logged_in(ada).get(reverse("site:login"), {"next": target})

    for answer in (login, signup, already, logout, again):
        assert answer.status_code == 302
        assert "evil.example" not in answer["Location"] and "javascript" not in answer["Location"]


def test_markup_in_names_descriptions_and_stderr_is_shown_as_text():
    olga = make_user("olga", organiser=True)
    ada = make_user("ada")
    competition = make_competition(olga, name="Cup", entries=3, games=3, start=True)
    Competition.objects.filter(pk=competition.pk).update(name=f"Cup {XSS}")
    bot = bot_services.bot_create(owner=ada, name="plain-bot", description=XSS)
    Bot.objects.filter(pk=bot.pk).update(name=f"bot{XSS}")  # as if an older rule had let it in
    version = bot_services.bot_version_upload(bot=bot, filename="bot.py", content=FIRST_LEGAL_BOT)
    version.validation_report = {"ok": False, "stderr_tail": XSS, "reasons": [XSS]}
    version.save(update_fields=["validation_report"])
    tournament_services.entry_create(
        competition=make_competition(olga, name=f"Draft {XSS}"), bot=bot, by=ada
    )
    play_one(competition)
    pages = [
        (Client(), "/"),
        (Client(), reverse("dashboard:competition-list")),
        (Client(), reverse("dashboard:competition-detail", args=[competition.pk])),
        (Client(), reverse("bots-web:bot-detail", args=[bot.pk])),
        (logged_in(ada), reverse("bots-web:bot-detail", args=[bot.pk])),
        (logged_in(ada), reverse("bots-web:my-bots")),
        (logged_in(olga), reverse("organise:home")),
        (logged_in(olga), reverse("organise:competition", args=[competition.pk])),
    ]

    for client, url in pages:
        html = client.get(url).content.decode()
        assert "<script>alert" not in html and "<img src=x" not in html, url
        assert "&lt;script&gt;alert" in html or "\\u003Cscript\\u003E" in html, url  # shown
    detail = Client().get(pages[2][1]).content.decode()
    assert "\\u003Cscript\\u003E" in detail  # the first-paint JSON, escaped by json_script


# --- Organisers --------------------------------------------------------------------------


def test_a_non_organiser_and_another_organiser_change_nothing():
    olga, oscar = make_user("olga", organiser=True), make_user("oscar", organiser=True)
    bob = make_user("bob")
    cup = make_competition(olga, name="Friday cup")
    Bot.objects.create(owner=olga, name="olgas-bot", builtin="random")
    oscars = Bot.objects.create(owner=oscar, name="oscars-bot", builtin="random")
    hidden = make_competition(olga, name="Invitation only", is_public=False)

    assert (
        logged_in(bob).post(reverse("organise:competition-new"), {"name": "x"}).status_code == 403
    )
    for user in (bob, oscar):
        client = logged_in(user)
        for action in ("start", "pause", "resume", "close"):
            url = reverse("organise:competition-action", args=[cup.pk, action])
            assert client.post(url).status_code == 403
            url = reverse("organise:competition-action", args=[hidden.pk, action])
            assert client.post(url).status_code == 404
        added = client.post(reverse("organise:entry-add", args=[cup.pk]), {"bot": oscars.pk})
        assert added.status_code == 403
        assert client.get(reverse("organise:competition", args=[hidden.pk])).status_code == 404
    cup.refresh_from_db()
    assert cup.status == Competition.Status.DRAFT and not cup.entries.exists()
    assert Competition.objects.count() == 2


def test_an_organiser_cannot_enter_someone_elses_bot_by_its_id():
    olga, ada = make_user("olga", organiser=True), make_user("ada")
    cup = make_competition(olga, name="Friday cup")
    adas = uploaded_bot(ada)
    browser = logged_in(olga)
    page = browser.get(reverse("organise:competition", args=[cup.pk])).content.decode()
    assert "secret-sauce" not in page

    answer = browser.post(
        reverse("organise:entry-add", args=[cup.pk]), {"bot": adas.pk, "once": once_value(page)}
    )

    assert answer.status_code == 400 and "secret-sauce" not in answer.content.decode()
    assert not cup.entries.exists()


def test_starting_or_closing_twice_is_refused_and_changes_nothing_more():
    olga = make_user("olga", organiser=True)
    cup = make_competition(olga, name="Friday cup")
    for i in range(3):
        # The platform's house bots (no owner): three of one owner could not share the table.
        bot = Bot.objects.create(name=f"house-{i}", builtin="random")
        tournament_services.entry_create(competition=cup, bot=bot, by=olga)
    browser = logged_in(olga)
    start = reverse("organise:competition-action", args=[cup.pk, "start"])
    close = reverse("organise:competition-action", args=[cup.pk, "close"])

    assert browser.post(start).status_code == 302
    matches = cup.matches.count()
    again = browser.post(start)
    assert again.status_code == 400 and cup.matches.count() == matches
    for action, status in (("pause", "paused"), ("resume", "running")):
        url = reverse("organise:competition-action", args=[cup.pk, action])
        assert browser.post(url).status_code == 302
        assert browser.post(url).status_code == 400  # the second time: refused, with why
        cup.refresh_from_db()
        assert cup.status == status and cup.matches.count() == matches
    assert browser.post(close).status_code == 400  # not ticked: nothing happens
    cup.refresh_from_db()
    assert cup.status == Competition.Status.RUNNING
    assert browser.post(close, {"confirm": "yes"}).status_code == 302
    cup.refresh_from_db()
    ended, left = cup.status, cup.matches.count()
    twice = browser.post(close, {"confirm": "yes"})
    assert twice.status_code == 400
    cup.refresh_from_db()
    assert cup.status == ended == Competition.Status.FINISHED and cup.matches.count() == left
    assert (
        browser.post(reverse("organise:competition-action", args=[cup.pk, "delete"])).status_code
        == 404
    )


@pytest.mark.parametrize(
    "variant, option, value",
    [
        ("maniglia-3", "opt:maniglia-3:maniglia.target", "-5"),
        ("maniglia-3", "opt:maniglia-3:maniglia.target", "1e9999"),
        ("maniglia-3", "opt:maniglia-3:maniglia.target", XSS[:40]),
        ("manni-basic", "opt:manni-basic:manni.tie", "cheat"),
        ("manni-basic", "games_per_match", "0"),
        ("manni-basic", "seed", "-1"),
        ("manni-basic", "seed", str(2**63)),
        ("manni-basic", "move_ms", "10**9"),
    ],
)
def test_bad_option_values_are_refused_and_create_nothing(variant, option, value):
    olga = make_user("olga", organiser=True)
    browser = logged_in(olga)
    page = browser.get(reverse("organise:competition-new"))
    form = page.context["form"]
    data = {
        name: (field.initial if field.initial is not None else "")
        for name, field in form.fields.items()
    }
    data = {k: v for k, v in data.items() if v is not False}
    data.update(name=f"Bad {XSS}", kind="tournament", variant=variant, format="round-robin")
    data[option] = value
    data["once"] = once_value(page.content.decode())

    answer = browser.post(reverse("organise:competition-new"), data)

    assert answer.status_code == 400
    assert not Competition.objects.exists()
    assert "<script>alert" not in answer.content.decode()


# --- The bot store -----------------------------------------------------------------------


def test_stored_bytes_that_do_not_match_their_hash_are_refused():
    ada = make_user("ada")
    bot = uploaded_bot(ada)
    version = bot.versions.get()
    BotBlob.objects.filter(sha256=version.sha256).update(content=b"print('swapped')")

    with pytest.raises(store.BlobCorrupt):
        bot_services.bot_version_content(version=version)
    with pytest.raises(ValueError):
        store.blob_put(sha256=hashlib.sha256(b"a").hexdigest(), content=b"b")
    with pytest.raises(ValueError):
        store.blob_fetch(sha256="../../etc/passwd")


def _zip(names: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in names.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _tar(link: str, kind: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        bot = tarfile.TarInfo("bot.py")
        bot.size = len(FIRST_LEGAL_BOT)
        archive.addfile(bot, io.BytesIO(FIRST_LEGAL_BOT))
        member = tarfile.TarInfo("data")
        member.type, member.linkname = kind, link
        archive.addfile(member)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "filename, content",
    [
        ("bot.tar", _tar("/etc/passwd", tarfile.SYMTYPE)),
        ("bot.tar", _tar("../../outside", tarfile.LNKTYPE)),
        ("bot.zip", _zip({"bot.py": FIRST_LEGAL_BOT, "../escape.py": b"x"})),
        ("bot.zip", _zip({"bot.py": FIRST_LEGAL_BOT, "/etc/cron.d/x": b"x"})),
        ("bot.py", b"x" * (DEFAULT_LIMITS.max_upload_bytes + 1)),
    ],
    ids=["symlink", "hardlink", "dot-dot", "absolute", "too-large"],
)
def test_a_hostile_upload_through_the_web_form_stores_nothing(filename, content):
    ada = make_user("ada")
    bot = bot_services.bot_create(owner=ada, name="target", description="")
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()

    answer = browser.post(
        reverse("bots-web:version-upload", args=[bot.pk]),
        {"file": SimpleUploadedFile(filename, content), "once": once_value(page, "upload-form")},
    )

    assert answer.status_code == 400
    assert 'id="id_file_error"' in answer.content.decode()
    assert not bot.versions.exists() and not BotBlob.objects.exists()


def test_the_worker_cache_keeps_nothing_that_does_not_match_its_hash(tmp_path):
    cache_root = tmp_path / "cache"
    worker_cache = BotCache(cache_root, max_bytes=10 * 2**20)
    sha256 = hashlib.sha256(FIRST_LEGAL_BOT).hexdigest()

    with pytest.raises(CacheCorrupt):
        worker_cache.tree(sha256, "bot.py", fetch=lambda: b"print('swapped')")

    assert not [p for p in cache_root.rglob("*") if p.is_file() and p.stat().st_size > 0]
    tree = worker_cache.tree(sha256, "bot.py", fetch=lambda: FIRST_LEGAL_BOT)
    assert (tree / "bot.py").read_bytes() == FIRST_LEGAL_BOT  # the test can tell


# --- What the templates and page scripts may not do --------------------------------------

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(
    [
        *(ROOT / "web").rglob("templates/**/*.html"),
    ]
)
SCRIPTS = sorted(
    [
        *(ROOT / "web" / "static").rglob("*.js"),
    ]
)


def test_no_template_turns_off_escaping():
    assert len(TEMPLATES) >= 10
    for template in TEMPLATES:
        text = template.read_text()
        assert "|safe" not in text and "autoescape off" not in text, template.name
        assert "{{ snapshot }}" not in text and "{{ steps }}" not in text, template.name


def test_the_page_scripts_build_the_dom_from_data_as_text_only():
    names = {script.name for script in SCRIPTS}
    assert {"live.js", "match.js", "replay.js", "organise.js", "bots.js", "challenge.js"} <= names
    for script in SCRIPTS:
        text = script.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, f"{script.name} uses {sink}"


def test_an_upload_through_the_web_while_the_store_is_down_says_so_and_saves_nothing(
    monkeypatch,
):
    ada = make_user("ada")
    bot = bot_services.bot_create(owner=ada, name="target", description="")
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()

    def down(self, sha256, content):
        raise store.StoreUnavailable("bot store (s3) unreachable: connect timeout")

    monkeypatch.setattr(store.DatabaseStore, "put", down)
    answer = browser.post(
        reverse("bots-web:version-upload", args=[bot.pk]),
        {"file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT), "once": once_value(page)},
    )

    assert answer.status_code == 503
    assert "cannot be written now" in answer.content.decode()
    assert not bot.versions.exists() and not BotBlob.objects.exists()
