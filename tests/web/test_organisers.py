"""An organiser in the browser: create a competition with options, add entries, start,
pause, resume and close it; everyone else is refused and bad input creates nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from tests.factories import logged_in, make_user
from tests.static_files import JAVASCRIPT, script_sources, static_get
from tests.web.conftest import (
    add_entry,
    error_next_to,
    new_competition_form,
    once_value,
    post_action,
)
from tournaments.models import Competition, Entry, Match
from tournaments.worker import execution
from web.organise.forms import option_field_name

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_an_organiser_creates_runs_pauses_and_closes_a_competition():
    olga = make_user("olga", organiser=True)
    browser = logged_in(olga)
    form = new_competition_form(
        browser,
        **{
            option_field_name("money-jordan", "money.capture"): "choice",
            option_field_name("money-jordan", "money.max_plays"): "500",
            # another variant's option: not the chosen one, so not used
            option_field_name("manni-basic", "manni.tie"): "play-on",
        },
    )

    created = browser.post(reverse("organise:competition-new"), form)

    competition = Competition.objects.get(name="Spring cup")
    assert created.status_code == 302
    assert created["Location"] == reverse("organise:competition", args=[competition.pk])
    assert competition.variant == "money-jordan" and competition.format == "single-elimination"
    assert competition.options == {
        "money.capture": "choice",
        "money.jokers": False,
        "money.max_plays": 500,
    }
    assert (competition.games_per_match, competition.move_ms, competition.bank_ms) == (
        4,
        1500,
        15000,
    )
    assert competition.playoff_games_cap == 2 and competition.is_public
    assert olga in competition.organisers.all()

    bots = [Bot.objects.create(name=f"random-{i}", builtin="random") for i in range(4)]
    for bot in bots:
        assert add_entry(browser, competition, bot).status_code == 302
    entered = Entry.objects.filter(competition=competition).values_list("bot_id", flat=True)
    assert sorted(entered) == sorted(b.pk for b in bots)

    started = post_action(browser, competition, "start")  # tasks go out after commit
    competition.refresh_from_db()
    assert started.status_code == 302 and competition.status == Competition.Status.RUNNING
    first_round = list(competition.matches.values_list("pk", "status"))
    assert len(first_round) == 2  # 4 entries, two tables of two
    assert {status for _, status in first_round} == {Match.Status.QUEUED}

    post_action(browser, competition, "pause")
    competition.refresh_from_db()
    assert competition.status == Competition.Status.PAUSED
    assert set(competition.matches.values_list("status", flat=True)) == {Match.Status.PENDING}
    assert execution.matches_reap(send=lambda ids: None).enqueued == []  # nothing queued

    post_action(browser, competition, "resume")
    competition.refresh_from_db()
    assert competition.status == Competition.Status.RUNNING
    assert set(competition.matches.values_list("status", flat=True)) == {Match.Status.QUEUED}

    post_action(browser, competition, "pause")
    refused = post_action(browser, competition, "close", confirm=False)
    assert refused.status_code == 400 and "tick the box" in refused.content.decode()
    competition.refresh_from_db()
    assert competition.status == Competition.Status.PAUSED and competition.matches.exists()
    post_action(browser, competition, "close")  # a paused competition closes as played
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    assert not competition.matches.exists()  # the unplayed matches are dropped
    page = browser.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    assert "finished" in page and 'id="start"' not in page and 'id="close"' not in page


def test_the_new_competition_page_loads_its_script_as_a_static_file():
    page = logged_in(make_user("olga", organiser=True)).get(reverse("organise:competition-new"))

    (src,) = script_sources(page.content.decode())
    served = static_get(src)
    assert served.status == 200 and served.content_type in JAVASCRIPT
    script = ROOT / "web" / "static" / "organise" / "organise.js"
    assert served.body == script.read_bytes()


def test_a_non_organiser_is_refused_and_nothing_is_created():
    ada = make_user("ada")
    browser = logged_in(ada)

    page = browser.get(reverse("organise:competition-new"))
    posted = browser.post(
        reverse("organise:competition-new"),
        {"name": "Mine", "kind": "tournament", "variant": "manni-basic", "format": "swiss"},
    )

    assert page.status_code == 403 and posted.status_code == 403
    assert "takes the organiser right" in page.content.decode()  # says why, and who grants it
    assert browser.get(reverse("organise:home")).status_code == 403
    assert not Competition.objects.exists()
    assert Client().get(reverse("organise:competition-new")).status_code == 302  # log in first


def test_another_organiser_cannot_run_someone_elses_competition():
    olga, oscar = make_user("olga", organiser=True), make_user("oscar", organiser=True)
    browser = logged_in(olga)
    browser.post(reverse("organise:competition-new"), new_competition_form(browser))
    competition = Competition.objects.get()
    bot = Bot.objects.create(name="random-x", builtin="random")
    other = logged_in(oscar)

    refused = [
        other.get(reverse("organise:competition", args=[competition.pk])),
        other.post(reverse("organise:entry-add", args=[competition.pk]), {"bot": bot.pk}),
        other.post(reverse("organise:competition-action", args=[competition.pk, "close"])),
    ]

    assert [r.status_code for r in refused] == [403, 403, 403]
    competition.refresh_from_db()
    assert competition.status == Competition.Status.DRAFT and not competition.entries.exists()


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"format": "ladder"}, "format", "a tournament uses one of"),
        ({"games_per_match": "3"}, "games_per_match", "multiple of 2"),
        ({"games_per_match": "0"}, "games_per_match", "greater than or equal to 1"),
        ({"variant": "no-such-game"}, "variant", "Select a valid choice"),
        ({"name": ""}, "name", "This field is required"),
        (
            {option_field_name("money-jordan", "money.max_plays"): "-4"},
            option_field_name("money-jordan", "money.max_plays"),
            "money.max_plays",
        ),
        ({"format": "swiss"}, "rounds_planned", "needs its number of rounds"),
        # money-jordan seats 2: a bot may spend 450,000 ms deciding in a match
        ({"bank_ms": "3600000"}, "bank_ms", "at most 450,000 ms deciding in a match of 2"),
    ],
)
def test_bad_input_is_shown_next_to_its_field_and_creates_nothing(fields, field, message):
    browser = logged_in(make_user("olga", organiser=True))

    response = browser.post(
        reverse("organise:competition-new"), new_competition_form(browser, **fields)
    )

    assert response.status_code == 400
    assert message in error_next_to(response.content.decode(), field)
    assert not Competition.objects.exists()


def test_starting_too_few_entries_is_refused_with_the_reason():
    browser = logged_in(make_user("olga", organiser=True))
    browser.post(reverse("organise:competition-new"), new_competition_form(browser))
    competition = Competition.objects.get()
    add_entry(browser, competition, Bot.objects.create(name="lonely", builtin="random"))

    response = post_action(browser, competition, "start")

    competition.refresh_from_db()
    assert response.status_code == 400 and "needs at least 2 entries" in response.content.decode()
    assert competition.status == Competition.Status.DRAFT and not competition.matches.exists()


def test_a_form_sent_twice_creates_one_competition_and_one_entry():
    browser = logged_in(make_user("olga", organiser=True))
    form = new_competition_form(browser)

    first = browser.post(reverse("organise:competition-new"), form)
    second = browser.post(reverse("organise:competition-new"), form)

    assert Competition.objects.count() == 1 and second["Location"] == first["Location"]
    competition = Competition.objects.get()
    bot = Bot.objects.create(name="random-1", builtin="random")
    page = browser.get(reverse("organise:competition", args=[competition.pk])).content.decode()
    entry = {"bot": bot.pk, "once": once_value(page, "entry-form")}
    for _ in range(2):
        browser.post(reverse("organise:entry-add", args=[competition.pk]), entry)
    assert competition.entries.count() == 1
