"""What the browser tests share: Debian's chromium through Playwright, and a way to reach
the database from a test whose thread Playwright's event loop owns."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connections

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
