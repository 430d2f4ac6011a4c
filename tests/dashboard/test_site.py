"""The web site around the dashboard, through the Django test client: the home page, the
navigation, signing up, logging in and out, the match page and the replay's game steps."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client

from bots.models import Bot
from tests.factories import PASSWORD, json_block, logged_in, make_competition, play_all, play_one
from tests.static_files import JAVASCRIPT, script_sources, static_get
from tournaments import services
from tournaments.models import Match, RatingEvent
from tournaments.selectors import standings_for_competition

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _own_cache(settings, request):
    """Login failure counts in a cache of this test alone (not the shared file cache)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"test-site-{request.node.name}",
        }
    }


def html_of(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def links_of(page: str) -> list[str]:
    return sorted(set(re.findall(r'href="(/[^"#?]*)', page)))


def assert_links_resolve(page: str) -> None:
    """Every link of ``page`` into the dashboard, the bot pages and the static files (the
    styles and the icon) answers 200."""
    urls = [u for u in links_of(page) if u.startswith(("/dashboard/", "/bots/"))]
    assert urls
    for url in urls:
        assert Client().get(url).status_code == 200, url
    files = [u for u in links_of(page) if u.startswith(django_settings.STATIC_URL)]
    assert len(files) >= 3  # pico.min.css, site.css, favicon.svg
    for url in files:
        assert static_get(url).status == 200, url


# --- home ---------------------------------------------------------------------------------


def test_the_home_page_lists_live_competitions_first_and_hides_private_ones(organiser, outsider):
    finished = make_competition(organiser, name="Old night", entries=3, start=True)
    play_all(finished)
    make_competition(organiser, name="Live night", entries=3, start=True)
    make_competition(organiser, name="Secret night", is_public=False, start=True, entries=3)

    anonymous = html_of(Client(), "/")
    outsiders = html_of(logged_in(outsider), "/")
    organisers = html_of(logged_in(organiser), "/")

    table = anonymous[anonymous.index('id="home-competitions"') :]
    assert table.index("Live night") < table.index("Old night")
    assert "Secret night" not in anonymous and "Secret night" not in outsiders
    assert "Secret night" in organisers
    assert ">live<" in table and ">finished<" in table


def ladder(organiser, *, entries: int):
    competition = services.competition_create(
        created_by=organiser,
        name="Big ladder",
        kind="ladder",
        variant="money-jordan",
        format="ladder",
        games_per_match=2,
    )
    for i in range(entries):
        bot = Bot.objects.create(name=f"ladder-bot-{i:02d}", builtin="random")
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)
    return competition


def test_the_home_page_shows_a_ladders_top_ten(organiser):
    competition = ladder(organiser, entries=12)
    for _ in range(6):
        play_one(competition)

    page = html_of(Client(), "/")

    top = page[
        page.index('id="ladder-top"') : page.index("</table>", page.index('id="ladder-top"'))
    ]
    rows = standings_for_competition(competition=competition)
    names = re.findall(r"(ladder-bot-\d\d)", top)
    assert names == [r["name"] for r in rows[:10]]
    assert "Big ladder" in page and f"/dashboard/competitions/{competition.pk}/" in page


def test_the_home_page_names_recent_upsets(organiser):
    competition = make_competition(organiser, name="Upset night", start=True, entries=3)
    match = play_one(competition)
    winner = match.seats.get(rank=1)
    loser = match.seats.exclude(rank=1).order_by("-rank").first()
    # Before the match the winner was rated far below the bot it beat.
    RatingEvent.objects.filter(match=match, entry=winner.entry).update(mu_before=5.0)
    RatingEvent.objects.filter(match=match, entry=loser.entry).update(mu_before=40.0)

    page = html_of(Client(), "/")

    upsets = page[page.index('id="upsets"') :]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", upsets[: upsets.index("</li>")]))
    assert f"{winner.entry.bot.name} beat {loser.entry.bot.name}, rated 35.0 higher" in text
    assert f'href="/bots/{winner.entry.bot_id}/"' in upsets
    assert f'href="/dashboard/matches/{match.pk}/"' in upsets


def test_no_upset_is_claimed_when_the_favourites_won(organiser):
    competition = make_competition(organiser, start=True, entries=3)
    match = play_one(competition)
    for seat in match.seats.all():  # the better the place, the higher the rating before
        RatingEvent.objects.filter(match=match, entry=seat.entry).update(
            mu_before=50 - 10 * seat.rank
        )

    page = html_of(Client(), "/")

    assert "None yet: the favourites have won." in page


# --- navigation and accounts --------------------------------------------------------------


def test_every_page_has_the_navigation_for_who_is_looking(organiser, staff):
    competition = make_competition(organiser, start=True, entries=3)
    match = play_one(competition)
    pages = [
        "/",
        "/dashboard/",
        f"/dashboard/competitions/{competition.pk}/",
        f"/dashboard/matches/{match.pk}/",
        f"/dashboard/games/{match.game_records.first().pk}/",
        "/accounts/login/",
        "/accounts/signup/",
    ]
    for url in pages:
        anonymous = html_of(Client(), url)
        assert 'href="/accounts/login/' in anonymous and 'href="/accounts/signup/"' in anonymous
        assert 'id="logout"' not in anonymous and 'href="/admin/"' not in anonymous
        assert 'href="/dashboard/"' in anonymous and 'href="/"' in anonymous
    mine = html_of(logged_in(organiser), "/")
    assert 'id="logout"' in mine and ">olga<" in mine and 'href="/bots/"' in mine
    assert 'href="/admin/"' not in mine and 'id="login"' not in mine
    assert 'href="/admin/"' in html_of(logged_in(staff), "/")


def test_signing_up_creates_an_account_and_logs_it_in():
    client = Client()

    response = client.post(
        "/accounts/signup/",
        {
            "username": "nina",
            "email": "nina@example.org",
            "password": "a long passphrase 7",
            "password_again": "a long passphrase 7",
            "next": "/dashboard/",
        },
    )

    assert response.status_code == 302 and response["Location"] == "/dashboard/"
    user = get_user_model().objects.get(username="nina")
    assert user.email == "nina@example.org" and user.check_password("a long passphrase 7")
    page = html_of(client, "/")
    assert ">nina<" in page and "your account is ready" in page


@pytest.mark.parametrize(
    "fields, field, message",
    [
        ({"username": "olga"}, "username", "That username is taken."),
        ({"username": "OLGA"}, "username", "That username is taken."),
        ({"username": "no spaces"}, "username", "Letters, digits and @/./+/-/_ only."),
        ({"password": "short", "password_again": "short"}, "password", "too short"),
        ({"password_again": "something else 9"}, "password_again", "The two passwords differ."),
        ({"email": "not-an-address"}, "email", "valid email"),
    ],
)
def test_sign_up_refuses_what_the_api_refuses_next_to_the_field(organiser, fields, field, message):
    good = {"username": "nina", "password": "a long passphrase 7"}
    data = {**good, "password_again": good["password"], **fields}
    users = get_user_model().objects.count()

    response = Client().post("/accounts/signup/", data)

    assert response.status_code == 400
    errors = re.search(
        rf'<ul class="errorlist" id="errors-{field}">(.*?)</ul>', response.content.decode()
    )
    assert errors and message in errors.group(1).replace("&#x27;", "'")
    assert get_user_model().objects.count() == users


def test_the_same_sign_up_sent_twice_creates_one_account():
    data = {
        "username": "nina",
        "password": "a long passphrase 7",
        "password_again": "a long passphrase 7",
    }

    first = Client().post("/accounts/signup/", data)
    second = Client().post("/accounts/signup/", data)

    assert first.status_code == 302 and second.status_code == 400
    assert get_user_model().objects.filter(username__iexact="nina").count() == 1


def test_sign_ups_are_limited_per_address_as_in_the_api(settings):
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "register": "2/min"}
    for name in ("nina", "nino"):
        data = {"username": name, "password": "a long passphrase 7"}
        signed_up = Client().post("/accounts/signup/", {**data, "password_again": data["password"]})
        assert signed_up.status_code == 302

    blocked = Client().post(
        "/accounts/signup/",
        {"username": "nine", "password": "a long pass 7", "password_again": "a long pass 7"},
    )

    assert blocked.status_code == 429 and "Retry-After" in blocked
    assert "Too many accounts created from here" in blocked.content.decode()
    assert not get_user_model().objects.filter(username="nine").exists()


def test_logging_in_goes_on_to_next_and_logging_out_ends_the_session(organiser):
    client = Client()

    response = client.post(
        "/accounts/login/", {"username": "olga", "password": PASSWORD, "next": "/dashboard/"}
    )

    assert response.status_code == 302 and response["Location"] == "/dashboard/"
    assert ">olga<" in html_of(client, "/")
    assert client.get("/accounts/logout/").status_code == 405  # only a POST logs out
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    page = html_of(client, "/")
    assert ">olga<" not in page and "You are logged out." in page


def test_a_wrong_password_or_an_outside_next_logs_nobody_in_elsewhere(organiser):
    client = Client()

    wrong = client.post("/accounts/login/", {"username": "olga", "password": "nope"})
    outside = client.post(
        "/accounts/login/",
        {"username": "olga", "password": PASSWORD, "next": "https://evil.example/"},
    )

    assert wrong.status_code == 200 and "correct username and password" in wrong.content.decode()
    assert outside.status_code == 302 and outside["Location"] == "/"


def test_failed_logins_are_limited_as_on_the_admin(organiser, settings):
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "login-user": "2/hour"}
    client = Client()
    for _ in range(2):
        assert (
            client.post("/accounts/login/", {"username": "olga", "password": "nope"}).status_code
            == 200
        )

    blocked = client.post("/accounts/login/", {"username": "olga", "password": PASSWORD})

    assert blocked.status_code == 429 and "Retry-After" in blocked
    assert "Too many failed logins" in blocked.content.decode()


# --- the match page and the replay's game steps ---------------------------------------------


def test_the_match_page_numbers_games_from_one_with_faults_in_words(organiser):
    competition = make_competition(organiser, games=3, start=True, entries=3)
    match = play_one(competition)
    games = list(match.game_records.order_by("index"))
    faulty = games[1]
    statuses = [dict(s) for s in faulty.statuses]
    statuses[0] = {"status": "timeout", "reason": "no answer within 2.000 s"}
    faulty.statuses = statuses
    faulty.save(update_fields=["statuses"])

    page = html_of(Client(), f"/dashboard/matches/{match.pk}/")

    table = page[page.index('<table id="games">') :]
    numbers = re.findall(r'<tr data-game="\d+"><td class="num">(\d+)', table)
    assert numbers == ["1", "2", "3"]
    for game in games:
        assert f'href="/dashboard/games/{game.pk}/">replay game {game.index + 1}</a>' in table
    row = table[table.index(f'data-game="{faulty.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "ran out of time" in row and "no answer within 2.000 s" in row
    assert "timeout" not in row.replace("no answer", "")
    assert "finished" in page[: page.index("<h2>")]
    for seat in match.seats.select_related("entry__bot"):
        assert seat.entry.bot.name in page
        assert f'href="/bots/{seat.entry.bot_id}/"' in page
    assert_links_resolve(page)


def test_match_pages_of_private_competitions_are_hidden_from_strangers(organiser, outsider):
    match = play_one(make_competition(organiser, is_public=False, start=True, entries=3))
    url = f"/dashboard/matches/{match.pk}/"

    assert Client().get(url).status_code == 404
    assert logged_in(outsider).get(url).status_code == 404
    assert logged_in(organiser).get(url).status_code == 200
    assert Client().get("/dashboard/matches/999999/").status_code == 404


def test_the_replay_steps_to_the_previous_and_next_game_of_its_match(organiser):
    match = play_one(make_competition(organiser, games=3, start=True, entries=3))
    first, second, last = match.game_records.order_by("index")

    pages = [html_of(Client(), f"/dashboard/games/{g.pk}/") for g in (first, second, last)]

    assert "game 1 of 3" in pages[0] and 'id="previous-game"' not in pages[0]
    assert f'href="/dashboard/games/{second.pk}/" id="next-game"' in pages[0]
    assert "game 2 of 3" in pages[1]
    assert f'href="/dashboard/games/{first.pk}/" id="previous-game"' in pages[1]
    assert f'href="/dashboard/games/{last.pk}/" id="next-game"' in pages[1]
    assert "game 3 of 3" in pages[2] and 'id="next-game"' not in pages[2]
    assert f'href="/dashboard/matches/{match.pk}/"' in pages[2]


# --- the competition page of a real knockout -------------------------------------------------


def test_a_finished_knockout_puts_the_winner_of_the_final_first_and_its_links_resolve(organiser):
    competition = make_competition(
        organiser,
        variant="money-jordan",
        format="single-elimination",
        entries=4,
        games=2,
        start=True,
    )
    play_all(competition)
    competition.refresh_from_db()
    final = competition.matches.filter(status=Match.Status.DONE).order_by("-round__number").first()
    champion = final.seats.get(rank=1).entry

    page = html_of(Client(), f"/dashboard/competitions/{competition.pk}/")

    snapshot = json_block(page, "snapshot")
    assert competition.status == "finished"
    assert snapshot["standings"][0]["entry"] == champion.pk
    assert snapshot["rounds"]["bracket"]["champion"] == str(champion.bot)
    rules = page[page.index('id="rules"') :]
    assert "money-jordan" in rules and "money.capture" in rules and "2 games a match" in rules
    assert "head-to-head" in page and str(champion.bot) in page[page.index('id="entries"') :]
    (script,) = script_sources(page)
    served = static_get(script)
    assert served.status == 200 and served.content_type in JAVASCRIPT
    assert b"new WebSocket" in served.body  # the live page's script
    assert_links_resolve(page)
    assert json.loads(json.dumps(json_block(page, "words")))["match"]["done"] == "finished"
