"""Version tests on the bot page: the owner's form starts one through the service the API
uses, its refusals are form errors, the history says how each test stands in words; nobody
else sees any of it."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from tests.factories import builtin_version, logged_in, make_user, passed, play_to_the_end
from tests.web.conftest import error_next_to, once_value
from tournaments import services as tournament_services
from tournaments.models import VersionTest
from tournaments.services import version_tests
from tournaments.worker import tasks
from web.words import version_test_outcome

pytestmark = pytest.mark.django_db

FORM = "version-test-form"


@pytest.fixture
def ada():
    return make_user("ada")


@pytest.fixture
def learner(ada) -> Bot:
    """Two ready versions: v1 plays as the built-in random, v2 as the greedy one."""
    bot = Bot.objects.create(owner=ada, name="learner")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    return bot


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """The version tests whose task was sent; nothing is sent for real."""
    ids: list[int] = []
    monkeypatch.setattr(
        tasks.version_test_run, "apply_async", lambda args, queue: ids.append(args[0])
    )
    return ids


def page_of(client, bot: Bot) -> str:
    response = client.get(reverse("bots-web:bot-detail", args=[bot.pk]))
    assert response.status_code == 200
    return response.content.decode()


def selected(html: str, name: str) -> str:
    """The value of the option selected in the ``<select name=name>`` of the page."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S).group(1)
    return re.search(r'<option value="([^"]*)"[^>]*selected', select).group(1)


def start(client, bot: Bot, **fields):
    html = page_of(client, bot)
    form = {
        "new": 2,
        "old": 1,
        "variant": "manni-basic",
        "elo0": 0,
        "elo1": 5,
        "alpha": 0.05,
        "beta": 0.05,
        "max_games": 20_000,
        "once": once_value(html, FORM),
        **fields,
    }
    return client.post(reverse("bots-web:version-test-start", args=[bot.pk]), form)


def test_the_owner_sees_the_form_newest_against_previous_with_the_defaults_in_words(ada, learner):
    newest = BotVersion.objects.create(
        bot=learner,
        number=3,
        runtime=BotVersion.Runtime.PYTHON,
        entry_point="bot.py",
        sha256="3" * 64,
        status=BotVersion.Status.READY,
    )
    passed(newest, "money-jordan")
    builtin_version(learner, 4, "greedy", status=BotVersion.Status.VALIDATING)

    html = page_of(logged_in(ada), learner)

    assert f'id="{FORM}"' in html
    assert (selected(html, "new"), selected(html, "old")) == ("3", "2")  # ready ones only
    assert selected(html, "variant") == "money-jordan"  # the one variant both passed
    assert "money-jordan (passed by v3, v2, v1)" in html
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    assert "stops as soon as it is fairly sure that the new version is at least 5.0 Elo" in words
    assert "or that it is not better than 0.0 Elo" in words
    assert 'name="max_games" value="20000"' in html and 'name="alpha" value="0.05"' in html
    assert "No version test yet." in html


def test_others_see_neither_form_nor_tests_and_the_test_pages_are_a_404(ada, learner, sent):
    bob = make_user("bob")
    cup = tournament_services.competition_create(
        created_by=make_user("olga"),
        name="Friday cup",
        kind="tournament",
        variant="manni-basic",
        format="round-robin",
        games_per_match=3,
    )
    tournament_services.entry_create(competition=cup, bot=learner, by=ada)  # public page
    test = version_tests.version_test_create(
        bot=learner, new=2, old=1, variant="manni-basic", by=ada, send=None
    )
    stranger = logged_in(bob)

    html = page_of(stranger, learner)
    status = reverse("bots-web:version-test-status", args=[learner.pk, test.pk])
    answers = [
        stranger.get(status),
        stranger.post(reverse("bots-web:version-test-cancel", args=[learner.pk, test.pk])),
        stranger.post(
            reverse("bots-web:version-test-start", args=[learner.pk]),
            {"new": 2, "old": 1, "variant": "manni-basic"},
        ),
    ]

    assert FORM not in html and 'id="version-tests"' not in html and "v2 vs v1" not in html
    assert [a.status_code for a in answers] == [404, 404, 404]
    assert page_of(logged_in(ada), learner).count("v2 vs v1") == 1  # the owner's page has it
    assert logged_in(ada).get(status).json()["outcome"] == "running: waiting for a worker"
    assert VersionTest.objects.get().status == VersionTest.Status.PENDING  # still, and alone


def test_posting_the_form_starts_a_test_the_api_shows_with_its_parameters(
    ada, learner, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = start(
            logged_in(ada), learner, elo0=-2, elo1=40, alpha=0.1, beta=0.02, max_games=600
        )

    test = VersionTest.objects.get()
    assert response.status_code == 302
    assert response["Location"].endswith(f"#version-test-{test.pk}")
    assert sent == [test.pk]  # the worker's task, as the API sends it
    api = APIClient()
    api.force_authenticate(ada)
    [shown] = api.get(f"/api/bots/{learner.pk}/sprt/").json()["results"]
    chosen = {k: shown[k] for k in ("new", "old", "variant", "elo0", "elo1", "alpha", "beta")}
    assert chosen == {
        "new": 2,
        "old": 1,
        "variant": "manni-basic",
        "elo0": -2.0,
        "elo1": 40.0,
        "alpha": 0.1,
        "beta": 0.02,
    }
    assert (shown["max_games"], shown["status"]) == (600, "pending")
    html = page_of(logged_in(ada), learner)
    row = html[html.index(f'id="version-test-{test.pk}"') :]
    assert "running: waiting for a worker" in row and "version-test-cancel" in row


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"old": 2}, "old", "v2 cannot be tested against itself"),
        ({"new": 9}, "new", "learner has no version 9"),
        ({"new": 3}, "new", "is rejected, not ready to play"),
        ({"new": 4}, "variant", "has not passed its validation in manni-basic"),
        ({"elo0": 5, "elo1": 5}, "elo1", "need elo0 < elo1"),
        ({"max_games": 2}, "max_games", "max_games must be from 3 (one deal)"),
    ],
)
def test_a_choice_the_service_refuses_is_its_message_next_to_the_field_and_creates_nothing(
    ada, learner, sent, fields, field, words
):
    builtin_version(learner, 3, "random", status=BotVersion.Status.REJECTED)
    money_only = BotVersion.objects.create(
        bot=learner,
        number=4,
        runtime=BotVersion.Runtime.PYTHON,
        entry_point="bot.py",
        sha256="4" * 64,
        status=BotVersion.Status.READY,
    )
    passed(money_only, "money-jordan")

    response = start(logged_in(ada), learner, **fields)

    assert response.status_code == 400
    assert words in html_lib.unescape(error_next_to(response.content.decode(), field))
    assert not VersionTest.objects.exists()


def test_a_test_past_the_allowance_is_refused_saying_what_is_used_and_when_it_frees_up(
    ada, learner, sent, settings
):
    settings.CARDROOM_ALLOWANCE_OPEN_VERSION_TESTS = 1
    browser = logged_in(ada)
    assert start(browser, learner).status_code == 302

    refused = start(browser, learner)

    html = html_lib.unescape(refused.content.decode())
    assert refused.status_code == 400
    assert "Allowance open_version_tests reached: 1 of 1 open version tests used" in html
    assert "it frees up as your open version tests close" in html
    assert VersionTest.objects.count() == 1


def test_the_history_says_in_words_how_each_test_ended_and_the_owner_cancels_one(
    ada, learner, sent
):
    better = version_tests.version_test_create(
        bot=learner, new=2, old=1, variant="manni-basic", elo1=50.0, by=ada, send=None
    )
    VersionTest.objects.filter(pk=better.pk).update(seed=20261201)  # fixed deals: no flake
    play_to_the_end(better, slice_s=3600)
    better.refresh_from_db()
    assert better.decision == "H1"
    games = better.trials * 3
    running = version_tests.version_test_create(
        bot=learner, new=1, old=2, variant="manni-basic", by=ada, send=None
    )
    browser = logged_in(ada)

    html = page_of(browser, learner)
    assert f"v2 is better than v1 (H1 accepted after {games} games)" in html
    done_row = html[html.index(f'id="version-test-{better.pk}"') :].split("</tr>")[0]
    assert "data-status-url" not in done_row and "version-test-cancel" not in done_row
    assert f'<td class="num test-games">{games}</td>' in done_row
    running_row = html[html.index(f'id="version-test-{running.pk}"') :].split("</tr>")[0]
    assert "data-status-url" in running_row and "running: waiting for a worker" in running_row

    cancel = reverse("bots-web:version-test-cancel", args=[learner.pk, running.pk])
    answer = browser.post(cancel, {"once": once_value(html, f"version-test-{running.pk}")})

    assert answer.status_code == 302
    running.refresh_from_db()
    assert running.status == VersionTest.Status.CANCELLED
    status = browser.get(reverse("bots-web:version-test-status", args=[learner.pk, running.pk]))
    assert status.json()["finished"] is True
    assert status.json()["outcome"] == "stopped: cancelled by its owner after 0 games"
    assert "stopped: cancelled by its owner after 0 games" in page_of(browser, learner)


@pytest.mark.parametrize(
    ("status", "decision", "words"),
    [
        ("done", "H1", "v3 is better than v2 (H1 accepted after 412 games)"),
        ("done", "H0", "v3 is no better than v2 (H0 accepted after 412 games)"),
        ("done", "", "stopped: undecided after 412 games, the most it could play"),
        ("failed", "", "stopped: a version could not be played after 412 games (OSError: gone)"),
        ("cancelled", "", "stopped: cancelled by its owner after 412 games"),
        ("running", "", "running: 412 games so far"),
    ],
)
def test_each_way_a_test_stands_has_its_words(status, decision, words):
    outcome = version_test_outcome(
        status=status, decision=decision, new=3, old=2, games=412, error="OSError: gone\nmore"
    )
    assert outcome == words
