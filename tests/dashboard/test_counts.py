"""The numbers of a competition page agree: the header line and the queue panel show one
reading of the match counts, whichever event brought it; a ladder has no end, so it shows
matches played, never a full bar."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.browser import deliver, open_page
from tests.factories import logged_in, make_competition, open_ladder, play_one

pytestmark = pytest.mark.django_db


def counts(done: int, total: int, *, running: int = 0, queued: int = 0, pending: int = 0) -> dict:
    return {
        "pending": pending,
        "queued": queued,
        "running": running,
        "done": done,
        "failed": 0,
        "total": total,
    }


@pytest.fixture
def page_of_one_result(organiser) -> tuple[str, int, int]:
    """A round robin's page after one result, its id and its number of matches (read
    before the browser starts: the database is not used from Playwright's event loop)."""
    competition = make_competition(organiser, entries=4, start=True)
    play_one(competition)
    html = logged_in(organiser).get(f"/dashboard/competitions/{competition.pk}/")
    return html.content.decode(), competition.pk, competition.matches.count()


@pytest.mark.slow
def test_the_header_and_the_queue_panel_read_the_same_counts(page_of_one_result, browser):
    html, competition_id, total = page_of_one_result
    page = open_page(browser, html)
    base = {"competition": competition_id}
    final = {**counts(total, total), "games": total * 3, "competition": "finished"}
    # A queue status read before the last results arrives after them (another worker's,
    # or sent late by a coalescing timer): it must not undo the final counts.
    stale = {
        **counts(total - 4, total, queued=4),
        "results_per_minute": 3,
        "backlog": None,
        "workers": [{"worker": "host/1", "match": 1, "since": None, "until": None}],
        "at": "2999-01-01T00:00:00+00:00",
    }

    deliver(
        page,
        {**base, "type": "standings.updated", "standings": [], "progress": final},
        {**base, "type": "queue.status", "queue": stale},
    )

    header = page.inner_text("#progress")
    panel = page.inner_text("#queue-counts")
    assert header.startswith(f"{total} / {total} matches done, 0 running")
    assert panel.startswith(f"0 waiting · 0 running · {total} done")
    assert "no worker holds a match" in page.inner_text("#workers")


def test_the_server_draws_header_and_panel_from_one_reading(organiser):
    competition = make_competition(organiser, entries=4, start=True)
    play_one(competition)

    html = logged_in(organiser).get(f"/dashboard/competitions/{competition.pk}/")
    html = html.content.decode()  # as its organiser: the workers panel is theirs
    start = html.index('<script id="snapshot" type="application/json">')
    snapshot = json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])

    progress, queue = snapshot["progress"], snapshot["queue"]
    for status in ("pending", "queued", "running", "done", "failed", "total"):
        assert progress[status] == queue[status]
    # Both are drawn by the page script alone, from that one reading.
    assert '<span id="progress"></span>' in html and '<p id="queue-counts"></p>' in html


def test_a_ladder_shows_matches_played_not_a_full_bar(organiser):
    ladder = open_ladder(organiser)

    listing = Client().get("/dashboard/").content.decode()
    row = listing[listing.index("Open ladder") :]
    row = row[: row.index("</tr>")]
    assert 'role="progressbar"' not in row
    assert "1 played" in row and "in the last hour" in row
    page = Client().get(f"/dashboard/competitions/{ladder.pk}/").content.decode()
    snapshot = json.loads(
        page[page.index(">", page.index('<script id="snapshot"')) + 1 :].split("</script>")[0]
    )
    assert snapshot["format"] == "ladder" and snapshot["progress"]["done"] == 1
    assert "duplicate matches: every deal once per seat rotation" in page


@pytest.fixture
def ladder_page(organiser) -> str:
    ladder = open_ladder(organiser)
    return Client().get(f"/dashboard/competitions/{ladder.pk}/").content.decode()


@pytest.mark.slow
def test_a_ladders_page_says_matches_played_not_done_of_a_total(ladder_page, browser):
    page = open_page(browser, ladder_page)

    header = page.inner_text("#progress")
    assert header.startswith("1 matches played,") and "/ " not in header
