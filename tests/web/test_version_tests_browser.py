"""A version test from the bot page in a real browser: started from the form, followed
live while a worker plays it, its answer in words once decided (no reload by hand)."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.browser import OVERFLOWS, WIDTHS, chromium_browser, in_thread, log_in
from tests.factories import builtin_version, make_user
from tournaments.models import VersionTest
from tournaments.worker import tasks
from tournaments.worker import version_test_slices as version_tests

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def chromium():
    with chromium_browser() as browser:
        yield browser


def owner_and_bot() -> int:
    ada = make_user("ada")
    bot = Bot.objects.create(owner=ada, name="learner")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    return bot.pk


def play(test_id: int, slice_s: float) -> str:
    def run() -> str:
        VersionTest.objects.filter(pk=test_id).update(seed=20261201)  # fixed deals: no flake
        return version_tests.version_test_play(test_id=test_id, slice_s=slice_s, send=None)

    return in_thread(run)


def test_the_owner_starts_a_test_and_watches_it_run_to_its_answer(
    live_server, chromium, monkeypatch
):
    from playwright.sync_api import expect

    sent: list[int] = []
    monkeypatch.setattr(
        tasks.version_test_run, "apply_async", lambda args, queue: sent.append(args[0])
    )
    bot_id = in_thread(owner_and_bot)
    base = live_server.url
    page = log_in(chromium, base, "ada")
    page.goto(f"{base}/bots/{bot_id}/")

    page.fill("#id_elo1", "50")
    expect(page.locator("#version-test-words")).to_contain_text("at least 50 Elo better")
    page.locator("#version-test-form button[type=submit]").click()
    [test_id] = sent
    row = page.locator(f"#version-test-{test_id}")
    expect(row.locator(".test-outcome")).to_have_text("running: waiting for a worker")

    assert play(test_id, slice_s=0.0) == "continued"  # one deal, as a worker's slice
    expect(row.locator(".test-games")).to_have_text("3", timeout=15_000)  # no reload
    expect(row.locator(".test-outcome")).to_have_text("running: 3 games so far")

    while play(test_id, slice_s=3600) != "done":
        pass
    games = in_thread(lambda: VersionTest.objects.get(pk=test_id).trials) * 3
    expect(row.locator(".test-outcome")).to_have_text(
        f"v2 is better than v1 (H1 accepted after {games} games)", timeout=15_000
    )
    expect(row.locator("form.version-test-cancel")).to_have_count(0)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        assert not page.evaluate(OVERFLOWS), f"the bot page overflows at {width} px"
