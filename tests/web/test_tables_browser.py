"""The results tables in a real browser (Debian's chromium via Playwright): every main
page fits a 390 px phone and a 1920 px screen without a sideways scroll of the page; the
standings keep their sort key in view on the phone, say "on head-to-head" where that
separated two rows and "2=" where nothing did; the crosstable prints, the navigation
does not; the replay numbers its seats from 1, as the match page does.

The site is served by pytest-django's live server (the live page paints from its
snapshot without a WebSocket).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from bots.models import Bot
from tests.browser import chromium_browser, in_thread, log_in
from tests.factories import (
    HEAD_TO_HEAD,
    make_competition,
    make_user,
    open_ladder,
    play_all,
    rig,
)
from tournaments.models import Entry

WIDTHS = (390, 1920)
OVERFLOWS = "() => document.documentElement.scrollWidth > window.innerWidth + 1"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: c and d each lose to a and beat b, and draw each other: level on everything.
SHARED = {
    ("a", "b"): "a",
    ("a", "c"): "a",
    ("a", "d"): "a",
    ("b", "c"): "c",
    ("b", "d"): "d",
    ("c", "d"): None,
}


@pytest.fixture
def chromium():
    with chromium_browser() as browser:
        yield browser


def club_night(name: str, outcomes: dict) -> dict:
    """A finished round robin of four bots with long names (the organiser owns them),
    its results as ``outcomes`` say; every entry rated the same, so that only the
    results order the table."""
    olga = get_user_model().objects.filter(username="olga").first()
    olga = olga or make_user("olga", organiser=True)
    competition = make_competition(
        olga, name=name, entries=4, variant="money-jordan", games=2, start=True
    )
    play_all(competition)
    Bot.objects.filter(entries__competition=competition).update(owner=olga)
    for i, bot in enumerate(Bot.objects.filter(entries__competition=competition).order_by("id")):
        slug = name.lower().replace(" ", "-")
        Bot.objects.filter(pk=bot.pk).update(name=f"{slug}-a-rather-long-bot-name-{i}")
    ids = rig(competition, outcomes)
    Entry.objects.filter(competition=competition).update(mu=25.0, sigma=5.0)
    match = competition.matches.order_by("id").first()
    return {
        "competition": competition.pk,
        "ids": ids,
        "match": match.pk,
        "game": match.game_records.order_by("index").first().pk,
        "bot": Bot.objects.filter(entries__competition=competition).first().pk,
        "names": {
            letter: str(Entry.objects.select_related("bot__owner").get(pk=pk).bot)
            for letter, pk in ids.items()
        },
        "ab": competition.matches.filter(seats__entry_id=ids["a"]).get(seats__entry_id=ids["b"]).pk,
    }


def test_every_main_page_fits_a_phone_and_a_wide_screen(live_server, chromium):
    night = in_thread(club_night, "Club night", HEAD_TO_HEAD)
    base = live_server.url
    page = log_in(chromium, base, "olga")
    pages = {
        "home": f"{base}/",
        "competitions": f"{base}/dashboard/",
        "competition": f"{base}/dashboard/competitions/{night['competition']}/",
        "match": f"{base}/dashboard/matches/{night['match']}/",
        "replay": f"{base}/dashboard/games/{night['game']}/",
        "bot": f"{base}/bots/{night['bot']}/",
        "organise": f"{base}/organise/{night['competition']}/",
        "help": f"{base}/help/",
    }
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, url in pages.items():
            response = page.goto(url)
            assert response.status == 200, name
            page.wait_for_load_state("load")
            assert not page.evaluate(OVERFLOWS), f"the {name} page overflows at {width} px"
            if name == "competition":
                sort_key_is_in_view(page, width)


def sort_key_is_in_view(page, width: int) -> None:
    """The standings' sort key (Points for a round robin) is on screen without scrolling
    the table's box, and so is every row's value of it."""
    page.wait_for_selector("#standings th.sort-key")
    header = page.locator("#standings th.sort-key")
    assert header.inner_text() == "Points"
    box = header.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"Points off screen at {width}"
    assert page.evaluate("() => document.getElementById('standings-box').scrollLeft") == 0
    cells = page.locator("#standings tbody td:nth-child(3)")
    assert cells.all_inner_texts() == ["2", "2", "1", "1"]
    last = cells.last.bounding_box()
    assert last["x"] + last["width"] <= width


def test_the_standings_say_why_and_share_what_nothing_separates(live_server, chromium):
    from playwright.sync_api import expect

    first = in_thread(club_night, "Club night", HEAD_TO_HEAD)
    second = in_thread(club_night, "Level night", SHARED)
    page = chromium.new_page(viewport={"width": 390, "height": 900})

    page.goto(f"{live_server.url}/dashboard/competitions/{first['competition']}/")
    a, b = first["ids"]["a"], first["ids"]["b"]
    expect(page.locator("#standings tbody tr").nth(0)).to_have_attribute("data-entry", str(a))
    second_row = page.locator("#standings tbody tr").nth(1)
    expect(second_row).to_have_attribute("data-entry", str(b))
    expect(second_row.locator("td.rank")).to_have_text("2")
    expect(second_row.locator(".tiebreak-note")).to_have_text("on head-to-head")
    expect(page.locator("#standings .tiebreak-note")).to_have_count(2)  # b below a, c below d
    # The crosstable: a's row, b's column holds a's win over b; b's row, a's column 0.
    cell = page.locator(f'#crosstable td[data-entry="{a}"][data-opponent="{b}"]')
    expect(cell).to_have_text("1")
    expect(page.locator(f'#crosstable td[data-entry="{b}"][data-opponent="{a}"]')).to_have_text("0")
    expect(page.locator("#round-results .round-results")).to_have_count(3)
    # Their match in the results by round: the winner first, game points in that order.
    link = page.locator(f'a[href$="/matches/{first["ab"]}/"]')
    their = page.locator("#round-results tr", has=link)
    expect(their.locator("td").nth(1)).to_have_text(
        f"1. {first['names']['a']} · 2. {first['names']['b']}"
    )
    expect(their.locator("td").nth(2)).to_have_text("2-0")

    page.goto(f"{live_server.url}/dashboard/competitions/{second['competition']}/")
    ranks = page.locator("#standings tbody td.rank")
    expect(ranks).to_have_text(["1", "2=", "2=", "4"])
    expect(page.locator("#standings .tiebreak-note")).to_have_count(0)


def test_the_crosstable_prints_and_the_navigation_does_not(live_server, chromium):
    night = in_thread(club_night, "Club night", HEAD_TO_HEAD)
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/dashboard/competitions/{night['competition']}/")
    page.wait_for_selector("#crosstable tbody tr")

    page.emulate_media(media="print")

    assert page.locator("#crosstable").is_visible()
    assert page.locator("#standings").is_visible()
    assert page.locator("#round-results .round-results").first.is_visible()
    assert not page.locator("body > header.site").is_visible()
    assert not page.locator("#downloads").is_visible()
    assert not page.locator("#rounds").is_visible()


def test_the_replay_numbers_seats_from_one_like_the_match_page(live_server, chromium):
    night = in_thread(club_night, "Club night", HEAD_TO_HEAD)
    page = chromium.new_page(viewport={"width": 1280, "height": 900})

    page.goto(f"{live_server.url}/dashboard/games/{night['game']}/")
    page.wait_for_selector(".table-seat")
    heads = page.locator(".table-seat .seat-head .muted").all_inner_texts()

    assert sorted(h.strip() for h in heads) == ["seat 1", "seat 2"]
    first = page.locator('.table-seat[data-seat="0"] .seat-head .muted').inner_text()
    assert first.strip() == "seat 1"  # the protocol's seat 0


def test_a_ladder_keeps_its_sort_key_the_rating_in_view_on_a_phone(live_server, chromium):
    ladder = in_thread(lambda: open_ladder(make_user("lena", organiser=True)).pk)
    page = chromium.new_page(viewport={"width": 390, "height": 900})

    page.goto(f"{live_server.url}/dashboard/competitions/{ladder}/")
    page.wait_for_selector("#standings th.sort-key")

    header = page.locator("#standings th.sort-key")
    assert (
        header.inner_text().startswith("Rating") and header.get_attribute("data-column") == "rating"
    )
    box = header.bounding_box()
    assert box["x"] + box["width"] <= 390
    assert not page.evaluate(OVERFLOWS)
    assert "Ordered by rating (mu - 3 sigma, to two decimals), then points" in page.inner_text(
        "#standings-basis"
    )
