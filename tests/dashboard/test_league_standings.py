"""A league season's standings on the competition page, as the live script draws them in a
real browser: a heading before each division, places counted within it, and who goes up
and who goes down marked, while the season runs and once it has finished; a crosstable
per division; every column heading explained; the ratings as the download gives them."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from tests.browser import open_page
from tests.leagues import league_season

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def finished_league(organiser):
    """A finished league of two divisions of four, one up and one down: its page as HTML,
    its standings and its standings CSV (read before the browser starts)."""
    league = league_season(
        organiser, entries=8, division_size=4, builtin=lambda i: "greedy" if i % 2 else "random"
    )
    call_command("run_competition", str(league.pk), "--inline")
    client = Client()
    client.force_login(organiser)
    html = client.get(f"/dashboard/competitions/{league.pk}/").content.decode()
    start = html.index('<script id="snapshot" type="application/json">')
    snapshot = json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])
    download = client.get(f"/dashboard/competitions/{league.pk}/standings.csv").content.decode()
    return html, snapshot["standings"], list(csv.DictReader(io.StringIO(download)))


def test_the_table_comes_a_division_at_a_time_with_who_goes_up_and_down(finished_league, browser):
    html, rows, _ = finished_league

    page = open_page(browser, html)

    headings = page.locator("#standings tr.division-head")
    assert headings.all_inner_texts() == ["Division 1", "Division 2"]
    drawn = page.locator("#standings tbody tr[data-entry]")
    assert drawn.count() == 8
    places = [row.locator("td").first.inner_text() for row in drawn.all()]
    assert places[0] == places[4] == "1"  # counted within each division
    up = page.locator('#standings tr[data-move="up"]')
    down = page.locator('#standings tr[data-move="down"]')
    assert up.count() == down.count() == 1
    promoted = next(r for r in rows if r["division"] == 1)
    relegated = [r for r in rows if r["division"] == 0][-1]
    assert up.get_attribute("data-entry") == str(promoted["entry"])
    assert down.get_attribute("data-entry") == str(relegated["entry"])
    assert "▲ goes up" in up.inner_text() and "▼ goes down" in down.inner_text()
    # The heading of Division 2 comes right after the relegated row.
    order = page.eval_on_selector_all(
        "#standings tbody tr", "rows => rows.map(r => r.dataset.move || r.className)"
    )
    assert order[4] == "down" and order[5] == "division-head" and order[6] == "up"


def test_each_division_has_a_crosstable_of_its_own_entries(finished_league, browser):
    html, rows, _ = finished_league

    page = open_page(browser, html)

    assert page.locator("#crosstable-view h3").all_inner_texts() == ["Division 1", "Division 2"]
    assert page.locator("#crosstable").count() == 0  # no one table of both divisions
    for number in (1, 2):
        members = [str(r["entry"]) for r in rows if r["division"] == number - 1]
        table = page.locator(f"#crosstable-division-{number}")
        drawn = table.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.entry)")
        assert drawn == members
        columns = table.locator("thead th[data-column]")
        assert columns.evaluate_all("ths => ths.map(t => t.dataset.column)") == members
        opponents = table.locator("td[data-opponent]").evaluate_all(
            "tds => tds.map(t => t.dataset.opponent)"
        )
        assert set(opponents) <= set(members) and len(opponents) == 4 * 3


def test_every_column_heading_is_explained_where_it_stands(finished_league, browser):
    html, _, _ = finished_league

    page = open_page(browser, html)

    headings = page.locator("#standings thead th")
    legend = page.locator("#numbers-legend")
    assert legend.locator("dl").is_visible()  # under the table, not folded away
    terms = legend.locator("dt").all_inner_texts()
    meanings = dict(zip(terms, legend.locator("dd").all_inner_texts(), strict=True))
    for th in headings.all():
        label = th.inner_text()
        assert label in meanings, f"{label} is not in the legend"
        assert th.locator("abbr").get_attribute("title") == meanings[label]
    rating = next(t for t in terms if "μ − 3σ" in t)  # noqa: RUF001
    assert "a cautious rating — the skill we are fairly sure the bot has at least" in (
        meanings[rating].lower()
    )
    assert "the chance this bot is really stronger than the one below" in (
        meanings["P(> next)"].lower()
    )


def test_a_rating_in_the_download_reads_as_on_the_page(finished_league, browser):
    html, rows, download = finished_league

    page = open_page(browser, html)

    rating = page.locator('#standings thead th[data-column="rating"]')
    column = rating.evaluate("th => [...th.parentNode.children].indexOf(th) + 1")
    drawn = page.locator(f"#standings tbody tr[data-entry] td:nth-child({column})")
    assert [r["entry"] for r in download] == [str(r["entry"]) for r in rows]
    assert [r["rating"] for r in download] == drawn.all_inner_texts()
