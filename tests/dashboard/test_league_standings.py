"""A league season's standings on the competition page, as the live script draws them in a
real browser: a heading before each division, places counted within it, and who goes up
and who goes down marked, while the season runs and once it has finished."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client

from bots.models import Bot
from tests.browser import open_page
from tournaments import services

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def finished_league(organiser):
    """A finished league of two divisions of four, one up and one down: its page as HTML
    and its standings (read before the browser starts)."""
    league = services.competition_create(
        created_by=organiser,
        name="Club league",
        kind="league-season",
        variant="money-jordan",
        format="round-robin",
        games_per_match=2,
        division_size=4,
        promote=1,
    )
    for i in range(8):
        bot = Bot.objects.create(name=f"house-{i}", builtin="greedy" if i % 2 else "random")
        services.entry_create(competition=league, bot=bot)
    call_command("run_competition", str(league.pk), "--inline")
    client = Client()
    client.force_login(organiser)
    html = client.get(f"/dashboard/competitions/{league.pk}/").content.decode()
    start = html.index('<script id="snapshot" type="application/json">')
    snapshot = json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])
    return html, snapshot["standings"]


def test_the_table_comes_a_division_at_a_time_with_who_goes_up_and_down(finished_league, browser):
    html, rows = finished_league

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
