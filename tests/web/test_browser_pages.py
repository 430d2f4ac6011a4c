"""The authors' and organisers' pages in a real browser (Debian's chromium via Playwright).

An author drops a bot file on the upload form and watches the validation end without
reloading; an organiser picks a variant (only its options show), creates a
competition, adds entries and starts it. Each page fits a 390 px phone and a
1920 px screen; screenshots go to ``docs/img/``. The site is served by pytest-django's
live server (these pages need no WebSocket).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.models import Bot, BotVersion
from tests.browser import OVERFLOWS, WIDTHS, chromium_browser, in_thread, log_in
from tests.factories import FIRST_LEGAL_BOT, make_user
from tournaments.models import Competition, Match

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "img"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def chromium():
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def no_broker(monkeypatch):
    """Validation tasks are kept here instead of going to a broker; the test plays the
    worker."""
    from bots.tasks import version_validate

    sent: list[int] = []
    monkeypatch.setattr(version_validate, "apply_async", lambda args, **kw: sent.extend(args))
    return sent


def fits_everywhere(page, path: str, shot: str | None = None) -> None:
    """The page has no horizontal overflow at each width; a screenshot at 1280 px."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(path)
        assert not page.evaluate(OVERFLOWS), f"{path} overflows at {width} px"
    if shot:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(path)
        IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(IMAGES / shot), full_page=True)


def test_an_author_drops_a_bot_and_watches_it_validated(live_server, chromium, no_broker):
    from playwright.sync_api import expect

    in_thread(make_user, "ada")
    base = live_server.url
    page = log_in(chromium, base, "ada")
    page.locator("nav a", has_text="My bots").click()
    page.fill("#id_name", "first-legal")
    page.fill("#id_description", "Plays the first legal card.")
    page.locator("#bot-create button[type=submit]").click()
    expect(page.locator("#bot-name")).to_have_text("first-legal")
    expect(page.locator("#upload-form .drop-hint")).to_be_visible()  # the script runs

    page.evaluate(
        """(source) => {
            const data = new DataTransfer();
            data.items.add(new File([source], "bot.py", {type: "text/x-python"}));
            const form = document.getElementById("upload-form");
            form.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true}));
        }""",
        FIRST_LEGAL_BOT.decode(),
    )
    page.locator("#upload-form button[type=submit]").click()
    badge = page.locator("#version-1 .version-status")
    expect(badge).to_have_text("being validated")
    assert len(no_broker) == 1  # the validation task was sent, once

    def validate():
        from bots.services import bot_version_validate

        return bot_version_validate(version=BotVersion.objects.get(pk=no_broker[0])).status

    assert in_thread(validate) == "ready"  # as the worker would, while the page is open
    expect(badge).to_have_text("ready to play", timeout=15_000)
    expect(page.locator("#version-1")).to_contain_text("Validation passed")
    expect(page.locator("#version-1")).to_contain_text("manni-basic: passed (6 games against")

    bot_id = in_thread(lambda: Bot.objects.get(name="first-legal").pk)
    fits_everywhere(page, f"{base}/bots/{bot_id}/", "bot-page.png")
    fits_everywhere(page, f"{base}/bots/", "my-bots.png")


def test_an_organiser_creates_and_starts_a_competition(live_server, chromium, monkeypatch):
    from playwright.sync_api import expect

    from tournaments.worker.tasks import match_run, matches_run

    for task in (match_run, matches_run):  # no broker here
        monkeypatch.setattr(task, "apply_async", lambda *a, **kw: None)
    in_thread(lambda: make_user("olga", organiser=True))

    def builtins():
        for i in range(4):
            Bot.objects.create(name=f"random-{i}", builtin="random")

    in_thread(builtins)
    base = live_server.url
    page = log_in(chromium, base, "olga")
    fits_everywhere(page, f"{base}/organise/new/")
    page.select_option("#id_variant", "maniglia-4-partners")  # fixed teams or rotating
    expect(page.locator("#partnerships")).to_be_visible()
    expect(page.locator("#id_partnerships option[value=fixed]")).to_have_count(1)
    page.select_option("#id_variant", "money-jordan")
    expect(page.locator("#partnerships")).to_be_hidden()
    expect(page.locator("#options-money-jordan")).to_be_visible()
    expect(page.locator("#options-manni-basic")).to_be_hidden()
    page.fill("#id_name", "Spring cup")
    page.select_option("#id_kind", "tournament")
    page.select_option("#id_format", "single-elimination")
    page.fill("#id_games_per_match", "2")
    page.select_option('[id="id_opt:money-jordan:money.capture"]', "choice")
    page.screenshot(path=str(IMAGES / "organise-new.png"), full_page=True)
    page.locator("#competition-form button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Spring cup")

    for i in range(4):
        page.select_option("#id_bot", label=f"random-{i}")
        page.locator("#entry-form button[type=submit]").click()
        expect(page.locator("#entries li")).to_have_count(i + 1)
    page.locator("#start").click()
    expect(page.locator("#competition-status")).to_have_text("in progress")

    def stored():
        competition = Competition.objects.get(name="Spring cup")
        statuses = set(competition.matches.values_list("status", flat=True))
        return competition.options["money.capture"], competition.entries.count(), statuses

    assert in_thread(stored) == ("choice", 4, {Match.Status.QUEUED})
    fits_everywhere(page, page.url, "organise-competition.png")


def test_a_challenge_page_follows_the_games_as_they_are_played(live_server, chromium, monkeypatch):
    from playwright.sync_api import expect

    from tournaments.worker import execution, tasks

    sent: list = []  # the worker is this test: the matches' tasks are kept here
    for task in (tasks.match_run, tasks.matches_run):
        monkeypatch.setattr(task, "apply_async", lambda args, **kw: sent.append(args))

    def author_and_bot() -> int:
        from bots.services import builtin_bots_ensure

        builtin_bots_ensure()
        bot = Bot.objects.create(owner=make_user("ada"), name="learner", builtin="random")
        BotVersion.objects.create(
            bot=bot, number=1, runtime="builtin", sha256="3" * 64, status="ready"
        )
        return bot.pk

    bot_id = in_thread(author_and_bot)
    base = live_server.url
    page = log_in(chromium, base, "ada")
    page.goto(f"{base}/bots/{bot_id}/")
    page.select_option("#id_variant", "money-jordan")
    page.fill("#id_games", "8")
    page.select_option("#id_opponent_1", "builtin:greedy")
    page.locator("#challenge-form button[type=submit]").click()
    expect(page.locator("#challenge-table")).to_have_text("ada/learner vs greedy")
    played = page.locator(".challenge-games-played")
    expect(played).to_have_text("0")
    assert sent == [[in_thread(lambda: Match.objects.get(competition__kind="challenge").pk)]]

    def play_all() -> None:
        ids = Match.objects.filter(competition__kind="challenge").values_list("pk", flat=True)
        for match_id in ids:
            execution.match_execute(match_id=match_id, claimed_by="test", send=None)

    in_thread(play_all)  # as a worker would, while the page is open
    expect(played).to_have_text("8", timeout=15_000)
    expect(page.locator(".challenge-status")).to_have_text("done")
    expect(page.locator("#challenge-matches")).to_contain_text("Match 1")
    fits_everywhere(page, page.url)
