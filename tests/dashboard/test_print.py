"""A printed competition page: the standings and the champion, without the site's
navigation, its forms (the compare form, log out), the operators' panel or the download
links. The rules are in site.css (@media print); the browser prints them so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from tests.browser import open_page
from tests.factories import make_competition, play_all

pytestmark = pytest.mark.django_db

CSS = (Path(__file__).resolve().parents[2] / "web/static/cardroom/site.css").read_text()


def print_rules() -> str:
    found = re.search(r"@media print \{(.*?)\n\}", CSS, re.S)
    assert found, "site.css has no print rules"
    return found.group(1)


def hidden_in_print() -> set[str]:
    rules = print_rules()
    selectors = rules[: rules.index("{")]
    return {s.strip() for s in selectors.split(",")}


@pytest.fixture
def finished_page(organiser) -> str:
    """The finished round robin's page as its organiser sees it (every panel present)."""
    competition = make_competition(
        organiser, entries=3, variant="money-jordan", games=2, start=True
    )
    play_all(competition)
    client = Client()
    client.force_login(organiser)
    return client.get(f"/dashboard/competitions/{competition.pk}/").content.decode()


def test_the_print_rules_hide_the_controls_and_keep_the_results():
    hidden = hidden_in_print()
    assert {"body > header.site", "nav", "form", ".compare-view", ".operator-panel"} <= hidden
    assert ".no-print" in hidden
    assert ".champion" not in hidden and "#standings" not in hidden


def test_the_page_marks_what_print_hides_and_keeps(finished_page):
    page = finished_page
    # The compare form and the operators' panel sit in the elements the rules hide.
    compare = page[page.index('id="compare-view"') : page.index("Ratings over time")]
    assert 'class="compare-view no-print"' in page and "<form" in compare
    assert 'class="operator-panel no-print"' in page
    assert 'class="downloads no-print"' in page
    assert '<header class="site">' in page
    # The standings and the champion carry no class the print rules hide.
    assert '<section id="standings-view" class="print-keep">' in page
    assert re.search(r'<p id="champion" class="champion">Champion: <b>[^<]+</b></p>', page)


@pytest.mark.slow
def test_a_printed_page_shows_the_standings_and_champion_only(finished_page, browser):
    page = open_page(browser, finished_page)
    page.wait_for_selector("#standings tbody tr")
    assert page.locator("nav").first.is_visible()  # on screen, as usual

    page.emulate_media(media="print")

    for hidden in (
        "header.site",
        "nav",
        "form.compare",
        "#operator-panel",
        "#downloads",
        "#logout",
    ):
        assert not page.locator(hidden).first.is_visible(), hidden
    assert page.locator("form").evaluate_all("(forms) => forms.every((f) => !f.checkVisibility())")
    assert page.locator("#standings").is_visible()
    assert page.locator("#standings tbody tr").count() == 3
    assert page.locator("#champion").is_visible()
    assert page.inner_text("#champion").startswith("Champion: ")
