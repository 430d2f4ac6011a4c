"""Challenges on the site: the form on the bot's page, the challenge's page as it is played,
the refusals as form errors, the opt-out, and who sees what."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from bots.models import Bot, BotVersion
from tests.factories import builtin_version, logged_in, make_user, passed
from tests.static_files import JAVASCRIPT, script_sources, static_get
from tests.web.conftest import once_value
from tournaments.models import Challenge, Competition, Entry
from tournaments.worker import execution

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("challenge_world")]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def ada():
    return make_user("ada")


@pytest.fixture
def learner(ada) -> Bot:
    bot = Bot.objects.create(owner=ada, name="learner", builtin="random")
    builtin_version(bot, 1, "random")
    return bot


def ask(client, bot: Bot, **fields):
    page = client.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    data = {
        "version": 1,
        "variant": "money-jordan",
        "games": 4,
        "duplicate": "on",
        "opponent_1": "builtin:greedy",
        "once": once_value(page, "challenge-form"),
        **fields,
    }
    return client.post(reverse("bots-web:challenge-start", args=[bot.pk]), data)


def test_the_bot_page_asks_for_a_challenge_and_its_page_follows_it(ada, learner, settings):
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 6
    client = logged_in(ada)

    asked = ask(client, learner)

    challenge = Challenge.objects.get()
    assert asked.status_code == 302
    assert asked.url == reverse("bots-web:challenge-detail", args=[challenge.pk])
    page = client.get(asked.url).content.decode()
    assert "ada/learner vs greedy" in page
    assert "0</b> of 4 games played" in page and "playing" in page
    status_url = reverse("bots-web:challenge-status", args=[challenge.pk])
    assert f'data-status-url="{status_url}"' in page  # followed live while it plays
    assert client.get(status_url).json()["progress"]["games_played"] == 0

    for match_id in challenge.competition.matches.values_list("pk", flat=True):
        execution.match_execute(match_id=match_id, claimed_by="test", send=None)

    status = client.get(status_url).json()
    assert status["finished"] and status["status_words"] == "done"
    assert status["progress"]["games_played"] == 4
    assert [s["games"] for s in status["progress"]["seats"]] == [4, 4]
    page = client.get(asked.url).content.decode()
    assert "4</b> of 4 games played" in page and "data-status-url" not in page
    match = challenge.competition.matches.get()
    assert reverse("dashboard:match-detail", args=[match.pk]) in page
    match_page = client.get(reverse("dashboard:match-detail", args=[match.pk])).content.decode()
    assert reverse("bots-web:challenge-detail", args=[challenge.pk]) in match_page
    bot_page = client.get(reverse("bots-web:bot-detail", args=[learner.pk])).content.decode()
    assert "4 / 4" in bot_page

    refused = ask(client, learner)  # 4 more would make 8 of 6

    assert refused.status_code == 400
    assert "Allowance challenge_games_per_day reached: 4 of 6 challenge games used today" in (
        refused.content.decode()
    )
    assert Challenge.objects.count() == 1


def test_the_bot_page_and_a_playing_challenge_load_their_scripts_as_static_files(ada, learner):
    client = logged_in(ada)
    asked = ask(client, learner)
    pages = {
        "bots.js": client.get(reverse("bots-web:bot-detail", args=[learner.pk])),
        "challenge.js": client.get(asked.url),
    }

    for script, page in pages.items():
        (src,) = script_sources(page.content.decode())
        served = static_get(src)
        assert served.status == 200 and served.content_type in JAVASCRIPT, src
        assert served.body == (ROOT / "web" / "static" / "bots" / script).read_bytes(), src


def test_challenges_are_not_on_the_home_page_or_the_competition_list(ada, learner):
    client = logged_in(ada)
    ask(client, learner)
    challenge = Challenge.objects.get()

    for url in ("/", reverse("dashboard:competition-list")):
        assert challenge.competition.name not in client.get(url).content.decode()
    detail = reverse("dashboard:competition-detail", args=[challenge.competition_id])
    assert client.get(detail).status_code == 404
    stan = make_user("stan")
    stan.is_staff = True
    stan.save()
    staff = logged_in(stan)
    for url in ("/", reverse("dashboard:competition-list"), reverse("organise:home")):
        assert challenge.competition.name not in staff.get(url).content.decode()


def test_a_bad_request_is_a_form_error_that_says_so(ada, learner):
    client = logged_in(ada)

    response = ask(client, learner, opponent_2="builtin:random")

    assert response.status_code == 400
    assert "money-jordan is played at 2 seats: name 1 opponent, got 2" in response.content.decode()
    assert not Challenge.objects.exists()


def test_the_owner_of_a_challenged_bot_sees_it_and_may_opt_out(ada, learner):
    ben = make_user("ben")
    rival = Bot.objects.create(owner=ben, name="rival", builtin="greedy")
    builtin_version(rival, 1, "greedy")
    ladder = Competition.objects.create(
        name="Open", kind="ladder", format="ladder", variant="money-jordan", seats_per_table=2
    )
    Entry.objects.create(competition=ladder, bot=rival)
    ada_client, ben_client = logged_in(ada), logged_in(ben)

    ask(ada_client, learner, opponent_1=f"bot:{rival.pk}")

    challenge = Challenge.objects.get()
    rival_page = reverse("bots-web:bot-detail", args=[rival.pk])
    page = ben_client.get(rival_page).content.decode()
    assert f"#{challenge.pk}" in page and "asked of this bot by ada" in page
    detail = ben_client.get(reverse("bots-web:challenge-detail", args=[challenge.pk]))
    assert detail.status_code == 200 and "challenge-cancel" not in detail.content.decode()
    stranger = logged_in(make_user("cy"))
    url = reverse("bots-web:challenge-detail", args=[challenge.pk])
    assert stranger.get(url).status_code == 404

    page = ben_client.get(rival_page).content.decode()
    opt_out = {"once": once_value(page, "challengeable-form")}  # the box unticked
    ben_client.post(reverse("bots-web:bot-challengeable", args=[rival.pk]), opt_out)

    rival.refresh_from_db()
    assert rival.challengeable is False
    refused = ask(ada_client, learner, opponent_1=f"bot:{rival.pk}")
    assert refused.status_code == 400  # no longer offered
    assert Challenge.objects.count() == 1


def test_the_author_cancels_a_challenge_from_its_page(ada, learner):
    client = logged_in(ada)
    ask(client, learner, games=24)
    challenge = Challenge.objects.get()
    url = reverse("bots-web:challenge-detail", args=[challenge.pk])
    page = client.get(url).content.decode()

    client.post(
        reverse("bots-web:challenge-cancel", args=[challenge.pk]),
        {"once": once_value(page, "challenge-cancel")},
    )

    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.CANCELLED
    assert "cancelled" in client.get(url).content.decode()


def test_the_bot_page_plays_a_quick_game_now_and_its_page_says_where_it_waits(ada, learner):
    client = logged_in(ada)
    page = client.get(reverse("bots-web:bot-detail", args=[learner.pk])).content.decode()
    assert "Play a quick game now" in page
    asked = client.post(
        reverse("bots-web:quick-game", args=[learner.pk]),
        {
            "quick-variant": "manni-basic",
            "quick-opponent": "greedy",
            "once": once_value(page, "quick-game"),
        },
    )

    challenge = Challenge.objects.get()
    assert asked.status_code == 302, asked.content.decode()[-2000:]
    assert asked.url == reverse("bots-web:challenge-detail", args=[challenge.pk])
    # One game, at a table of manni-basic's three seats: the bot and two greedy.
    assert challenge.games == 1 and challenge.competition.games_per_match == 1
    assert challenge.opponents == ["builtin:greedy", "builtin:greedy"]
    shown = client.get(asked.url).content.decode()
    assert "Waiting: next in the queue; starts within seconds." in shown
    status = client.get(reverse("bots-web:challenge-status", args=[challenge.pk])).json()
    assert status["waiting"] == "next in the queue; starts within seconds"

    execution.match_execute(
        match_id=challenge.competition.matches.get().pk, claimed_by="test", send=None
    )
    status = client.get(reverse("bots-web:challenge-status", args=[challenge.pk])).json()
    assert status["waiting"] == "" and status["progress"]["games_played"] == 1


def selected(html: str, name: str) -> str:
    """The value a browser sends for the ``<select name=name>`` of the page: the option
    selected, else the first."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S).group(1)
    chosen = re.search(r'<option value="([^"]*)"[^>]*selected', select)
    return (chosen or re.search(r'<option value="([^"]*)"', select)).group(1)


def test_the_form_starts_from_a_variant_the_bot_plays_with_an_opponent_per_other_seat(ada):
    dinar = Bot.objects.create(owner=ada, name="dinar")
    only = BotVersion.objects.create(
        bot=dinar, number=1, sha256="d" * 64, runtime="python", status="ready"
    )
    passed(only, "money-egypt", "money-jordan")
    client = logged_in(ada)

    page = client.get(reverse("bots-web:bot-detail", args=[dinar.pk])).content.decode()
    form = page[page.index('id="challenge-form"') :].split("</form>")[0]
    defaults = {
        "version": selected(form, "version"),
        "variant": selected(form, "variant"),
        "games": re.search(r'name="games" value="(\d+)"', form).group(1),
        "duplicate": "on",
        "once": once_value(page, "challenge-form"),
        **{f"opponent_{i}": selected(form, f"opponent_{i}") for i in range(1, 5)},
    }
    asked = client.post(reverse("bots-web:challenge-start", args=[dinar.pk]), defaults)

    assert defaults["variant"] == "money-jordan"  # the usual Money game, which it passed
    assert [defaults[f"opponent_{i}"] for i in range(1, 5)] == ["builtin:greedy", "", "", ""]
    assert 'value="laugavatnsmanni"' not in form  # no version of it plays that
    assert "money-egypt (2 seats; passed by v1)" in form
    assert "From 1 to 1,000 games a challenge" in form
    assert asked.status_code == 302, asked.content.decode()
    assert Challenge.objects.get().competition.variant == "money-jordan"


def test_a_challenge_page_says_every_figure_counts_games(ada, learner):
    client = logged_in(ada)
    asked = ask(client, learner, games=12, duplicate="", opponent_1="builtin:random")
    challenge = Challenge.objects.get()
    for match_id in challenge.competition.matches.values_list("pk", flat=True):
        execution.match_execute(match_id=match_id, claimed_by="test", send=None)

    page = client.get(asked.url).content.decode()

    match = challenge.competition.matches.get()
    seat = match.seats.get(entry__bot=learner)
    ranks = [r[seat.seat] for r in match.game_records.values_list("ranking", flat=True)]
    row = page[page.index('<tr class="challenge-seat"><td>ada/learner') :].split("</tr>")[0]
    cells = re.findall(r'<td class="num[^"]*">([^<]*)</td>', row)
    assert cells[0] == "12" and cells[1] == str(ranks.count(1))
    assert cells[3] == f"{sum(ranks) / 12:.2f}"  # the mean rank of its twelve games
    assert "Mean rank a game" in page and "Games won" in page
    assert "Every figure counts games" in page
