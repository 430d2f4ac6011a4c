"""End to end in a real browser: uvicorn serves the site, results arrive live; a visitor
walks from the home page to a competition, a match and a game's replay, on a 1200 px
screen and on a 390 px phone.

Debian's chromium (``/usr/bin/chromium``) driven by Playwright; the server is a
uvicorn subprocess on the test database, and the events cross processes through
the real Redis channel layer under a prefix of this test alone.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
import urllib.request
import uuid
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.templatetags.static import static

from tests.browser import chromium_browser, in_thread
from tests.dashboard.conftest import session_cookie
from tests.factories import make_competition, play_one
from tests.workers import database_url
from tournaments.demo.processes import asgi_server_argv
from tournaments.models import RatingEvent

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "img"
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def redis_layer(settings):
    """The real Redis channel layer, under a prefix no other run shares."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.skip("REDIS_URL is not set")
    prefix = f"cardroom-test-{uuid.uuid4().hex[:10]}"
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [redis_url], "prefix": prefix},
        }
    }
    return redis_url, prefix


@pytest.fixture
def server(redis_layer, tmp_path):
    """The ASGI server on a free port, on the test database and the test's channel prefix."""
    if connection.vendor != "postgresql":
        pytest.skip("the browser test shares a PostgreSQL test database with the server")
    redis_url, prefix = redis_layer
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CARDROOM_CHANNEL_LAYER": "redis",
        "CARDROOM_CHANNEL_PREFIX": prefix,
        "CARDROOM_SECRET_KEY": django_settings.SECRET_KEY,
        "CARDROOM_SERVE_STATIC": "1",
    }
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        asgi_server_argv(host="127.0.0.1", port=port),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(base + static("dashboard/live.js"), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "server.log").read_text()) from None
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def test_a_socket_offering_compression_as_browsers_do_gets_plain_frames(organiser, server):
    from websockets.sync.client import connect

    competition = make_competition(organiser, entries=3, start=True)
    url = server.replace("http", "ws") + f"/ws/competitions/{competition.pk}/"
    with connect(url, origin=server, compression="deflate", open_timeout=10) as ws:
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None  # declined
        snapshot = ws.recv(timeout=10)
    assert '"type":"snapshot"' in snapshot.replace(" ", "")


def chart_points_expected(competition) -> int:
    """Points of the rating chart: a start and one per rated match of each entry that played."""
    events = RatingEvent.objects.filter(match__competition=competition)
    return sum(1 + n for n in Counter(events.values_list("entry_id", flat=True)).values())


def test_the_dashboard_shows_results_live_without_a_reload(organiser, server):
    from playwright.sync_api import expect

    from tournaments.worker import execution

    competition = make_competition(organiser, name="Live night", entries=8, start=True)
    total = 16  # the whole schedule: eight entries at three seats, 16 tables
    cookie = session_cookie(organiser)
    IMAGES.mkdir(parents=True, exist_ok=True)

    def next_match():
        return competition.matches.filter(status="pending").order_by("id").first()

    def by_worker(worker: str):
        """Claim, play and record the next match as a worker does (queue.status included)."""
        match = next_match()
        outcome = execution.match_execute(match_id=match.pk, claimed_by=f"{worker}/t", send=None)
        assert outcome == "recorded"
        return match

    def hold(worker: str):
        """Claim the next match and keep it running."""
        return execution.match_claim(match_id=next_match().pk, claimed_by=f"{worker}/t")

    # Points of every line of the chart, as the browser drew them.
    chart_points = r"""() => [...document.querySelectorAll('#rating-chart polyline')]
        .reduce((n, line) => n + line.getAttribute('points').trim().split(/\s+/).length, 0)"""

    with chromium_browser() as browser:
        context = browser.new_context(viewport={"width": 1200, "height": 760})
        context.add_cookies(
            [{"name": django_settings.SESSION_COOKIE_NAME, "value": cookie, "url": server}]
        )
        page = context.new_page()
        page.goto(f"{server}/")
        expect(page.locator("nav")).to_contain_text("olga")
        page.locator("#home-competitions a", has_text="Live night").click()
        expect(page).to_have_url(f"{server}/dashboard/competitions/{competition.pk}/")
        expect(page.locator("#live")).to_have_text("live", timeout=10_000)
        expect(page.locator("#progress")).to_contain_text(f"0 / {total} matches done")
        expect(page.locator("#standings td.trend").first).to_have_text("\N{EN DASH}")
        expect(page.locator("#chart")).to_contain_text("no rated matches yet")
        expect(page.locator('#rounds li[data-round="1"]')).to_contain_text("0 / 2 done")
        page.evaluate("window.notReloaded = true")

        first = in_thread(play_one, competition)  # recorded by the services directly
        second = in_thread(by_worker, "worker-2/102")

        # The round is over: the next one is paired, so the total grows too.
        expect(page.locator("#progress")).to_contain_text(
            re.compile(r"^2 / \d+ matches done"), timeout=10_000
        )
        expect(page.locator("#recent li").first).to_contain_text(f"Match {second.pk}:")
        expect(page.locator("#recent")).to_contain_text(f"Match {first.pk}:")
        games = page.locator("#standings tbody td:nth-child(5)").all_inner_texts()
        assert sorted(games, key=int)[-1] == str(competition.games_per_match)
        expect(page.locator("#standings td.trend.up").first).to_contain_text("▲")
        expect(page.locator("#standings td.trend.down").first).to_contain_text("▼")
        first_round = page.locator('#rounds li[data-round="1"]')
        expect(first_round).to_contain_text("finished")
        expect(first_round).to_contain_text("2 / 2 done")
        expect(page.locator('#rounds li[data-round="2"]')).to_contain_text("in play")
        expect(page.locator("#current-round h3")).to_have_text("Round 2 pairings")
        expect(page.locator("#rating-chart polyline")).to_have_count(6)
        page.wait_for_function(f"() => ({chart_points})() === 12")  # six starts, six results

        in_thread(by_worker, "worker-1/101")
        in_thread(by_worker, "worker-2/102")
        # The lines grow live: a start and a point per rated match for every entry
        # that has played (who sat out which round follows the round robin's design).
        expected = in_thread(chart_points_expected, competition)
        assert expected > 12
        page.wait_for_function(f"() => ({chart_points})() === {expected}")
        expect(page.locator('#rounds li[data-round="2"]')).to_contain_text("2 / 2 done")
        held = in_thread(hold, "worker-3/103")
        # An organiser, not staff: the worker's label, never its host and pid.
        expect(page.locator("#workers")).to_contain_text(f"#{held.pk}", timeout=10_000)
        expect(page.locator("#workers")).to_contain_text(re.compile(r"worker-[0-9a-f]{8}"))
        expect(page.locator("#workers")).not_to_contain_text("worker-3/103")
        expect(page.locator("#running")).to_contain_text(f"Match {held.pk}:")
        expect(page.locator(f'#current-round tr[data-match="{held.pk}"]')).to_contain_text(
            "being played"
        )
        expect(page.locator("#queue-counts")).to_contain_text("4 done")
        assert page.evaluate("window.notReloaded") is True
        page.screenshot(path=str(IMAGES / "dashboard.png"), full_page=True)

        # The match page: every game numbered from 1, each with its replay.
        page.locator("#recent li").last.locator("a", has_text="Match").click()
        expect(page.locator("h1")).to_contain_text("Match")
        games = page.locator("#games tbody tr")
        expect(games).to_have_count(competition.games_per_match)
        expect(games.first.locator("td").first).to_have_text("1")
        match_url = page.url
        page.locator("#games a", has_text="replay game 2").click()
        expect(page.locator("h1")).to_contain_text(f"game 2 of {competition.games_per_match}")
        page.click("#previous-game")
        expect(page.locator("h1")).to_contain_text("game 1 of")
        expect(page.locator("#position")).to_contain_text("step 0")
        # The deal: three seats named after their bots, every hand face down.
        expect(page.locator(".felt .table-seat")).to_have_count(3)
        expect(page.locator(".table-seat .playing-card.back")).to_have_count(3)
        expect(page.locator("#said")).to_contain_text("deals")
        for _ in range(4):
            page.click("#next")
        expect(page.locator("#position")).to_contain_text("step 4")
        expect(page.locator("#moves li.current a")).to_have_attribute("data-step", "4")
        page.keyboard.press("ArrowLeft")
        expect(page.locator("#position")).to_contain_text("step 3")

        # The move list jumps to a completed trick in mid-game: its cards drawn as cards.
        steps = page.evaluate("JSON.parse(document.getElementById('steps').textContent)")
        assert page.locator("#moves a").count() == len(steps) - 1
        trick = next(
            s
            for s in steps[12:]
            if any(a.get("complete") for a in s["table"]["centre"]) and s["view"]["phase"] == "play"
        )
        plays = next(a for a in trick["table"]["centre"] if a.get("complete"))["plays"]
        page.locator(f'#moves a[data-step="{trick["index"]}"]').click()
        expect(page.locator("#position")).to_contain_text(f"step {trick['index']} /")
        cards = page.locator(".centre .trick .playing-card")
        expect(cards).to_have_count(len(plays))
        for i, (_, label) in enumerate(plays):
            expect(cards.nth(i)).to_have_attribute("data-card", label)
            suit = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[label[-1]]
            expect(cards.nth(i).locator(".suit")).to_have_text(suit)
        expect(page.locator(".centre .play.winner")).to_have_count(1)
        expect(page.locator("#said")).to_contain_text("takes the trick")
        expect(page.locator("#scores")).to_contain_text("score")
        page.screenshot(path=str(IMAGES / "replay.png"), full_page=True)

        page.click("#last")
        expect(page.locator("#result")).to_contain_text("Final result")
        page.click("#first")
        expect(page.locator("#position")).to_contain_text("step 0")
        expect(page.locator("#result")).to_be_hidden()

        # A phone: every page fits 390 px, the standings too (wide tables scroll in
        # their own box, never the page).
        page.set_viewport_size({"width": 390, "height": 800})
        wide = "() => document.documentElement.scrollWidth"
        for url in (
            f"{server}/",
            f"{server}/dashboard/competitions/{competition.pk}/",
            match_url,
        ):
            page.goto(url)
            page.wait_for_load_state("load")
            assert page.evaluate(wide) <= 390, url
        page.goto(f"{server}/dashboard/competitions/{competition.pk}/")
        expect(page.locator("#standings tbody tr")).to_have_count(8)
        box = page.locator("#standings-box").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        page.screenshot(path=str(IMAGES / "competition-phone.png"))
        page.set_viewport_size({"width": 1200, "height": 760})
        page.goto(f"{server}/")
        page.screenshot(path=str(IMAGES / "home.png"), full_page=True)
