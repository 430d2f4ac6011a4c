"""The whole walk of a newcomer and of an organiser, in one real setup.

The ASGI server (uvicorn with Channels) and a real ``celery -A config worker`` (with
its beat, so the reaper and the ladder's scheduling run) share the test's PostgreSQL
database and a Redis (broker on private queues, channel layer under a private
prefix); uploads are validated and matches played in the real sandbox. Debian's
chromium, driven by Playwright:

- an author signs up through the form, creates a bot, uploads
  ``bots/examples/python/bot.py``, watches it validated without a reload, enters it
  into a running ladder from the bot's page, watches one of its matches finish live on
  the ladder's page, opens that match's page and steps to game 2's replay and back;
- an organiser creates a single-elimination tournament from ``/organise/``, adds
  entries, starts it and watches the bracket fill in on the competition page.

Every page visited has no horizontal overflow at 390 px and at 1920 px; a screenshot
of each goes to ``docs/img/``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from django.conf import global_settings
from django.conf import settings as django_settings
from django.db import connection
from django.templatetags.static import static

from tests.browser import chromium_browser, in_thread, require_chromium
from tests.factories import PASSWORD, make_user
from tests.workers import database_url
from tournaments.demo.processes import asgi_server_argv, free_port

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "img"
EXAMPLE_BOT = ROOT / "bots" / "examples" / "python" / "bot.py"
WIDTHS = (390, 1920)
OVERFLOWS = "() => document.documentElement.scrollWidth > window.innerWidth + 1"
SHOT_WIDTH = 1280
#: The match pages linked from the recent results that mention ``text``.
MATCH_LINKS = """(text) => [...document.querySelectorAll("#recent li")]
    .filter((li) => li.textContent.includes(text))
    .flatMap((li) => [...li.querySelectorAll("a[href*='/dashboard/matches/']")])
    .map((a) => a.getAttribute("href"))"""
#: Notes in sessionStorage each status the version's badge takes in the open page.
WATCH_BADGE = """() => {
    const badge = document.querySelector("#version-1 .version-status");
    new MutationObserver(() => sessionStorage.setItem("badgeSeen", badge.dataset.status))
        .observe(badge, {attributes: true, childList: true, characterData: true});
}"""

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def platform(settings, tmp_path):
    """The web server and a worker; yields the site's base URL."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url or connection.vendor != "postgresql":
        pytest.skip("the walk needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)")
    require_chromium()
    tag = uuid.uuid4().hex[:10]
    queues = {
        "CARDROOM_MATCH_QUEUE": f"walk-matches-{tag}",
        "CARDROOM_DEFAULT_QUEUE": f"walk-default-{tag}",
        "CARDROOM_VALIDATE_QUEUE": f"walk-default-{tag}",
        # Every kind of work on the worker's two queues (CARDROOM_QUEUES).
        "CARDROOM_LADDER_QUEUE": f"walk-matches-{tag}",
        "CARDROOM_PERIODIC_QUEUE": f"walk-default-{tag}",
        "CARDROOM_VERSION_TEST_QUEUE": f"walk-default-{tag}",
        "CARDROOM_CHALLENGE_QUEUE": f"walk-default-{tag}",
    }
    for name, value in queues.items():  # what this process queues goes to the same worker
        setattr(settings, name, value)
    # Users made here log in on the server, which knows only the default hashers.
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    env = {
        **os.environ,
        **queues,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CARDROOM_CHANNEL_LAYER": "redis",
        "CARDROOM_CHANNEL_PREFIX": f"cardroom-walk-{tag}",
        "CARDROOM_SECRET_KEY": django_settings.SECRET_KEY,
        "CARDROOM_SERVE_STATIC": "1",
        "CARDROOM_REAP_EVERY_S": "1",
        "CARDROOM_LADDER_PAUSE_S": "2",  # a paced ladder: a batch every few seconds
    }
    children: list[subprocess.Popen] = []
    try:
        worker_log = tmp_path / "worker.log"
        argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "-B"]
        argv += ["-Q", f"{queues['CARDROOM_MATCH_QUEUE']},{queues['CARDROOM_DEFAULT_QUEUE']}"]
        argv += ["-c", "2", "-l", "info", "-n", f"walk-{tag}@%h", "-s", str(tmp_path / "beat")]
        argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        children.append(_spawn(argv, env, tmp_path / "worker-media", worker_log))
        port = free_port()
        web_log = tmp_path / "web.log"
        argv = asgi_server_argv(host="127.0.0.1", port=port)
        children.append(_spawn(argv, env, tmp_path / "web-media", web_log))
        base = f"http://127.0.0.1:{port}"
        _wait(lambda: b" ready." in worker_log.read_bytes(), children[0], worker_log)
        _wait(lambda: _answers(base + static("dashboard/live.js")), children[1], web_log)
        yield base
    finally:
        for log in (tmp_path / "web.log", tmp_path / "worker.log"):
            _print_tracebacks(log)  # shown with a failure: what a 500 or a task hit
        _print_tasks(tmp_path / "worker.log")  # and where the worker's time went
        for child in children:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGTERM)
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.wait()
        import redis

        redis.Redis.from_url(redis_url).delete(*set(queues.values()))


def _print_tracebacks(log: Path) -> None:
    """Print every traceback in the child's ``log`` (pytest shows it if the test failed)."""
    if not log.exists():
        return
    text = log.read_text(errors="replace")
    for part in text.split("Traceback (most recent call last)")[1:]:
        print(f"--- a traceback in {log.name}:\nTraceback (most recent call last){part[:4000]}")


def _print_tasks(log: Path) -> None:
    """Print the lines of the worker's ``log`` that say where work waited or failed."""
    if log.exists():
        lines = log.read_text(errors="replace").splitlines()
        turns = [line for line in lines if "gives its turn" in line or "ERROR" in line]
        print("--- the worker's turns given and errors:", *turns, sep="\n")


def _spawn(argv: list[str], env: dict, media: Path, log: Path) -> subprocess.Popen:
    """A child in its own process group (a worker's pool goes with it), with its own
    media directory: the web tier and the worker share no filesystem."""
    with log.open("wb") as out:
        return subprocess.Popen(
            argv, cwd=ROOT, env={**env, "CARDROOM_MEDIA_ROOT": str(media)},
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=1).close()
        return True
    except OSError:
        return False


def _wait(ready, child: subprocess.Popen, log: Path, timeout: float = 40) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert child.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, "not ready: " + log.read_text()[-3000:]
        time.sleep(0.1)


def fits_and_shot(page, shot: str | None) -> None:
    """The page as it is now fits 390 px and 1920 px without horizontal overflow; a
    screenshot at a laptop's width goes to ``docs/img/<shot>`` unless ``shot`` is None
    (no reload: live pages keep their state)."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
        assert not page.evaluate(OVERFLOWS), f"{page.url} overflows at {width} px"
    page.set_viewport_size({"width": SHOT_WIDTH, "height": 900})
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    if shot is None:
        return
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / shot), full_page=True)


def running_ladder() -> int:
    """A public ladder of two built-in random bots, running (its batches are paired by
    the worker's reaper)."""
    from bots.models import Bot
    from tournaments import services

    olga = make_user("olga", organiser=True)
    ladder = services.competition_create(
        created_by=olga,
        name="Evening ladder",
        kind="ladder",
        variant="money-jordan",
        format="ladder",
        games_per_match=2,
        options={},
        is_public=True,
    )
    for name in ("house-random-a", "house-random-b"):
        services.entry_create(
            competition=ladder, bot=Bot.objects.create(name=name, builtin="random")
        )
    services.competition_start(competition=ladder, by=olga)
    return ladder.pk


def close_competition(competition_id: int) -> None:
    from tournaments import services
    from tournaments.models import Competition

    services.competition_close(competition=Competition.objects.get(pk=competition_id))


def test_a_newcomer_and_an_organiser_walk_the_site(platform, settings):
    from playwright.sync_api import expect

    base = platform
    ladder_id = in_thread(running_ladder)

    with chromium_browser() as browser:
        author_walk(browser, base, ladder_id, expect)
        in_thread(close_competition, ladder_id)  # its batches would only load the machine
        organiser_walk(browser, base, expect)


def author_walk(browser, base: str, ladder_id: int, expect) -> None:
    page = browser.new_page(viewport={"width": SHOT_WIDTH, "height": 900})
    page.goto(f"{base}/")
    fits_and_shot(page, "home.png")

    # Sign up through the form: a new account, logged in at once.
    page.locator("nav a", has_text="Sign up").click()
    expect(page.locator("h1")).to_have_text("Sign up")
    page.fill("#id_username", "newcomer")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_password_again", PASSWORD)
    fits_and_shot(page, "signup.png")
    page.locator("#signup-form button[type=submit]").click()
    expect(page.locator("nav")).to_contain_text("newcomer")

    # A bot, and the example bot uploaded through the form.
    page.locator("nav a", has_text="My bots").click()
    page.fill("#id_name", "example-python")
    page.fill("#id_description", "The Python example bot of the repository.")
    page.locator("#bot-create button[type=submit]").click()
    expect(page.locator("#bot-name")).to_have_text("example-python")
    bot_url = page.url
    page.set_input_files("#upload-form input[type=file]", str(EXAMPLE_BOT))
    page.locator("#upload-form button[type=submit]").click()
    badge = page.locator("#version-1 .version-status")
    expect(badge).to_have_text("being validated")
    # The worker validates it in the sandbox; the open page's badge changes by itself
    # (noted where the page's own reload, which then draws the report, keeps it). Ten
    # variants take about 6 s on a quiet machine; the wait a newcomer sees at the demo's
    # defaults is tested in tests/test_demo_people_first.py: here, beside the rest of a
    # loaded suite, the page has to change by itself, however long the sandbox took.
    page.evaluate(WATCH_BADGE)
    expect(badge).to_have_text("ready to play", timeout=90_000)
    expect(page.locator("#version-1")).to_contain_text("Validation passed")
    assert page.evaluate("sessionStorage.getItem('badgeSeen')") == "ready"

    # Entered into the running ladder from the bot's page.
    page.goto(bot_url)
    page.select_option("#enter-form select", str(ladder_id))
    page.locator("#enter-form button[type=submit]").click()
    expect(page.locator("#entries")).to_contain_text("Evening ladder")
    fits_and_shot(page, "bot-page.png")
    page.goto(f"{base}/bots/")
    expect(page.locator("main")).to_contain_text("example-python")
    fits_and_shot(page, "my-bots.png")

    # The ladder's page: a match of the bot finishes live, one not there at first paint.
    page.goto(f"{base}/dashboard/competitions/{ladder_id}/")
    expect(page.locator("#live")).to_have_text("live", timeout=10_000)
    page.evaluate("window.notReloaded = true")
    first_paint = set(page.evaluate(MATCH_LINKS, ""))
    deadline = time.monotonic() + 45
    while not (fresh := set(page.evaluate(MATCH_LINKS, "example-python")) - first_paint):
        assert time.monotonic() < deadline, "no match of the bot finished live"
        page.wait_for_timeout(250)
    fresh = min(fresh)
    expect(page.locator("#standings")).to_contain_text("example-python")
    assert page.evaluate("window.notReloaded") is True
    fits_and_shot(page, "ladder.png")

    # Its match page, game 2's replay and back to game 1.
    page.locator(f"#recent a[href='{fresh}']").first.click()
    expect(page.locator("h1")).to_contain_text("Match")
    expect(page.locator("main")).to_contain_text("example-python")
    games = page.locator("#games tbody tr")
    expect(games).to_have_count(2)
    expect(games.first.locator("td").first).to_have_text("1")
    fits_and_shot(page, "match.png")
    match_url = page.url
    page.locator("#games a", has_text="replay game 2").click()
    expect(page.locator("h1")).to_contain_text("game 2 of 2")
    expect(page.locator("#position")).to_contain_text("step 0")
    page.click("#next")
    expect(page.locator("#position")).to_contain_text("step 1")
    fits_and_shot(page, "replay-game-2.png")
    page.click("#previous-game")
    expect(page.locator("h1")).to_contain_text("game 1 of 2")
    page.go_back()
    expect(page.locator("h1")).to_contain_text("game 2 of 2")
    page.go_back()
    expect(page).to_have_url(match_url)
    page.close()


def organiser_walk(browser, base: str, expect) -> None:
    def builtins():
        from bots.models import Bot

        for i in range(4):
            Bot.objects.create(name=f"random-{i}", builtin="random")

    in_thread(builtins)
    page = browser.new_page(viewport={"width": SHOT_WIDTH, "height": 900})
    page.goto(f"{base}/accounts/login/")
    fits_and_shot(page, None)  # the same form as the sign-up page, shot above
    page.fill("input[name=username]", "olga")
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.locator("nav")).to_contain_text("olga")

    page.locator("nav a", has_text="Organise").click()
    expect(page).to_have_url(f"{base}/organise/")
    fits_and_shot(page, "organise-home.png")
    page.goto(f"{base}/organise/new/")
    page.select_option("#id_variant", "money-jordan")
    page.fill("#id_name", "Friday knockout")
    page.select_option("#id_kind", "tournament")
    page.select_option("#id_format", "single-elimination")
    page.fill("#id_games_per_match", "2")
    fits_and_shot(page, "organise-new.png")
    page.locator("#competition-form button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Friday knockout")
    organise_url = page.url
    competition_id = int(re.search(r"/organise/(\d+)/", organise_url).group(1))
    for i in range(4):
        page.select_option("#id_bot", label=f"random-{i}")
        page.locator("#entry-form button[type=submit]").click()
        expect(page.locator("#entries li")).to_have_count(i + 1)

    # The competition page is open in a second tab before the start, and stays open.
    watcher = browser.new_page(viewport={"width": SHOT_WIDTH, "height": 900})
    watcher.goto(f"{base}/dashboard/competitions/{competition_id}/")
    expect(watcher.locator("#live")).to_have_text("live", timeout=10_000)
    watcher.evaluate("window.notReloaded = true")
    assert watcher.locator("#bracket .seat.winner").count() == 0

    page.locator("#start").click()
    # The bracket of random bots may be played to its end before the page is back.
    expect(page.locator("#competition-status")).to_have_text(re.compile("in progress|finished"))
    fits_and_shot(page, "organise-competition.png")

    # The bracket advances: the semi-finals get winners, the final fills in and ends.
    expect(watcher.locator("#bracket .node")).to_have_count(3, timeout=20_000)
    expect(watcher.locator("#bracket .seat.winner").first).to_be_visible(timeout=30_000)
    expect(watcher.locator("#bracket .champion")).to_contain_text("random-", timeout=30_000)
    expect(watcher.locator("#bracket .seat.winner")).to_have_count(3)
    assert watcher.evaluate("window.notReloaded") is True
    fits_and_shot(watcher, "bracket.png")
    watcher.close()
    page.close()
