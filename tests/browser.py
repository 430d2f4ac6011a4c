"""What the browser tests share: Debian's chromium through Playwright, and a way to reach
the database from a test whose thread Playwright's event loop owns."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connections

from tournaments.dashboard import views

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def require_chromium() -> None:
    """Fail (never skip) when chromium is missing: CI must run the browser tests."""
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.fail("chromium is not installed (apt-get install chromium)")


@contextlib.contextmanager
def chromium_browser() -> Iterator:
    """A headless chromium (Playwright's ``Browser``), closed afterwards."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def in_thread(function, *args):
    """Run database code outside Playwright's event loop (which owns this thread)."""

    def run():
        try:
            return function(*args)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


#: The widths every page must fit without a horizontal scroll bar: a phone, a screen.
WIDTHS = (390, 1920)
#: True in a page that overflows its window horizontally.
OVERFLOWS = "() => document.documentElement.scrollWidth > window.innerWidth + 1"


def log_in(browser, base: str, username: str):
    """A page of ``browser`` logged in at ``base`` as ``username`` (password
    :data:`tests.factories.PASSWORD`)."""
    from tests.factories import PASSWORD

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{base}/")
    return page


# -- the live page with a stubbed WebSocket --------------------------------------------------

#: Where the page is served from, and the script that stands in for its WebSocket.
ORIGIN = "http://cardroom.test"
STUB = """
window.sockets = [];
window.WebSocket = class {
  constructor(url) { this.url = url; window.sockets.push(this);
                     setTimeout(() => this.onopen && this.onopen(), 0); }
  send() {}
  close() {}
};
window.deliver = (data) => window.sockets[0].onmessage({ data });
window.framesAsked = 0;
const askFrame = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (callback) => {
  window.framesAsked += 1;
  return askFrame(callback);
};
window.afterFrame = () => new Promise((done) => askFrame(() => setTimeout(done, 0)));
"""


def open_page(browser, html: str):
    """The page ``html`` at the dashboard's address, its script served from the package."""
    page = browser.new_page()
    page.add_init_script(STUB)

    def serve(route):
        name = route.request.url.rsplit("/", 1)[-1]
        if name in views.ASSETS:  # the page's script and styles, from the package
            folder, kind = views.ASSETS[name]
            body = (views.HERE / "static" / folder / name).read_bytes()
            route.fulfill(body=body, content_type=kind)
        else:
            route.fulfill(body=html, content_type="text/html; charset=utf-8")

    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/dashboard/competitions/1/")
    page.wait_for_function("() => window.sockets.length === 1")
    return page


def deliver(page, *frames) -> int:
    """Deliver ``frames`` (each one JSON message) at once; the animation frames asked for."""
    return page.evaluate(
        """async (frames) => {
            const before = window.framesAsked;
            for (const frame of frames) deliver(frame);
            const asked = window.framesAsked - before;
            await afterFrame();
            return asked;
        }""",
        [json.dumps(frame) for frame in frames],
    )
