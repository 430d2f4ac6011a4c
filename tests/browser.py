"""What the browser tests share: Debian's chromium through Playwright, and a way to reach
the database from a test whose thread Playwright's event loop owns."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connections

from tests.static_files import static_get

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


def serve_site(page, html: str) -> None:
    """Answer ``page``'s requests to :data:`ORIGIN`: the static files (its scripts, styles
    and icon) as the static files handler serves them, any other address with ``html``."""

    def serve(route):
        path = urlsplit(route.request.url).path
        if path.startswith(settings.STATIC_URL):
            served = static_get(path)
            route.fulfill(status=served.status, body=served.body, content_type=served.content_type)
        else:
            route.fulfill(body=html, content_type="text/html; charset=utf-8")

    page.route(f"{ORIGIN}/**", serve)


def open_page(browser, html: str):
    """The live page ``html`` at the dashboard's address, its WebSocket stubbed."""
    page = browser.new_page()
    page.add_init_script(STUB)
    serve_site(page, html)
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
