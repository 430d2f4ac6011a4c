"""The live page script in a real browser, fed by hand: the first paint of every panel from
the embedded snapshot, frames of one event or an array of events, at most one redraw per
animation frame, the chart, the queue panel and the problem bots.

The page is the server's own HTML (Django test client), served to Debian's chromium
through Playwright's request routing; the WebSocket is replaced by a stub the test
delivers messages through, so nothing here waits for a server.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from django.test import Client

from tests.browser import deliver, open_page
from tests.factories import logged_in, make_competition, play_one
from tournaments.worker import execution

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def started_and_finished(competition, match, snapshot):
    """``match.started`` and ``match.finished`` of the pending match, with made-up ratings."""
    other = next(t for t in snapshot["rounds"]["current"]["tables"] if t["id"] != match.pk)
    running = {**other, "status": "running", "games": [], "finished_at": None}
    seats = [{**s, "rank": i + 1, "score": 10 - i} for i, s in enumerate(other["seats"])]
    done = {**other, "status": "done", "seats": seats, "games": [], "finished_at": None}
    sequence = competition.rating_sequence + 1
    ratings = [
        {"entry": s["entry"], "sequence": sequence, "before": 0.0, "after": 20.0 - i}
        for i, s in enumerate(other["seats"])
    ]
    base = {"competition": competition.pk}
    return (
        {"type": "match.started", **base, "match": running},
        {"type": "match.finished", **base, "match": done, "ratings": ratings},
    )


def test_a_frame_holding_an_array_is_handled_event_by_event_in_order(live, browser):
    competition, match, snapshot = live.competition, live.match, live.snapshot
    page = open_page(browser, live.html)
    started, finished = started_and_finished(competition, match, snapshot)
    other = started["match"]["id"]

    deliver(page, [started, finished])

    assert f"Match {other}" not in page.inner_text("#running")  # started, then finished
    assert page.inner_text("#recent li").startswith(f"Match {other}: 1. ")
    assert page.evaluate("document.body.dataset.lastEvent") == "match.finished"
    row = page.locator(f'#current-round tr[data-match="{other}"]')
    assert "finished" in row.inner_text()
    assert "2 / 2 done" in page.inner_text('#rounds li[data-round="1"]')

    deliver(page, [started, finished])  # the same events again change nothing
    assert "2 / 2 done" in page.inner_text('#rounds li[data-round="1"]')


def test_a_rounds_panel_read_before_a_match_event_does_not_undo_it(live, browser):
    """The matches lane sends a match's start at once; the rounds panel, read a moment
    before the start and built on a slower lane, can arrive after it: the table stays
    shown as being played, then as finished, and its round is counted once."""
    competition, match, snapshot = live.competition, live.match, live.snapshot
    page = open_page(browser, live.html)
    started, finished = started_and_finished(competition, match, snapshot)
    other = started["match"]["id"]
    stale = {"type": "round.started", "competition": competition.pk, "rounds": snapshot["rounds"]}
    row = page.locator(f'#current-round tr[data-match="{other}"]')
    first_round = page.locator('#rounds li[data-round="1"]')
    assert "waiting" in row.inner_text() or "queued" in row.inner_text()

    deliver(page, started)
    deliver(page, stale)  # read before the start: the table waiting

    assert "being played" in row.inner_text()
    assert "1 / 2 done" in first_round.inner_text()

    deliver(page, finished)
    deliver(page, stale)  # read before the start, and so before the end

    assert "finished" in row.inner_text()
    assert "2 / 2 done" in first_round.inner_text()
    deliver(page, stale)  # once more: the finished table is not counted twice
    assert "2 / 2 done" in first_round.inner_text()


def test_a_stale_rounds_panel_does_not_undo_a_result_beyond_the_tables_it_shows(live, browser):
    """The same race for a table the current round's panel does not list (a round of more
    tables than it shows, or a round no longer current): its row in the results by round
    stays as the match's own events left it, with the results of every round or of the
    event's own round only."""
    competition, match, snapshot = live.competition, live.match, live.snapshot
    started, finished = started_and_finished(competition, match, snapshot)
    other = started["match"]["id"]
    current = snapshot["rounds"]["current"]
    shown = [t for t in current["tables"] if t["id"] != other]
    rounds = {**snapshot["rounds"], "current": {**current, "tables": shown, "more": 1}}
    whole = {"type": "round.started", "competition": competition.pk, "rounds": rounds}
    own = {**whole, "rounds": {**rounds, "results_of": [1]}}
    for stale in (whole, own):
        page = open_page(browser, live.html)
        result = page.locator(f'#round-results tr[data-match="{other}"]')
        first_round = page.locator('#rounds li[data-round="1"]')
        assert "waiting" in result.inner_text() or "queued" in result.inner_text()

        deliver(page, started)
        deliver(page, stale)  # read before the start: the table waiting
        assert "being played" in result.inner_text()
        assert page.locator(f'#current-round tr[data-match="{other}"]').count() == 0

        deliver(page, finished)
        deliver(page, stale)  # read before the start, and so before the end
        assert "finished" in result.inner_text()
        assert "2 / 2 done" in first_round.inner_text()
        deliver(page, stale)  # once more: the finished table is not counted twice
        assert "2 / 2 done" in first_round.inner_text()
        page.close()


def test_a_recent_result_names_its_seats_in_the_order_of_their_places(live, browser):
    competition, match, snapshot = live.competition, live.match, live.snapshot
    page = open_page(browser, live.html)
    _, finished = started_and_finished(competition, match, snapshot)
    seats = finished["match"]["seats"]
    # The last seat won, the first came second; the middle seats tied for third.
    places = [2] + [3] * (len(seats) - 2) + [1]
    finished["match"]["seats"] = [{**s, "rank": r} for s, r in zip(seats, places, strict=True)]

    deliver(page, finished)

    text = page.inner_text("#recent li").split(": ", 1)[1].split(" · replay")[0]
    names = [s["name"] for s in seats]
    expected = [f"1. {names[-1]}", f"2. {names[0]}"] + [f"3. {n}" for n in names[1:-1]]
    assert text.split(" · ") == expected


def test_the_live_badge_goes_when_the_competition_ends(live, browser):
    competition, snapshot = live.competition, live.snapshot
    page = open_page(browser, live.html)
    assert page.inner_text("#live") == "live" and page.is_visible("#live")

    deliver(
        page,
        {
            "type": "competition.finished",
            "competition": competition.pk,
            "status": "finished",
            "standings": snapshot["standings"],
        },
    )

    assert page.inner_text("#status") == "finished"
    assert not page.is_visible("#live")


def test_the_head_to_head_is_drawn_from_the_snapshot_and_redrawn_live(live, browser):
    page = open_page(browser, live.html)
    first = live.snapshot["head_to_head"]["rows"]
    assert len(first) == 3  # the one result: a table of three, three pairs
    assert page.locator("#head-to-head tbody tr").count() == 3
    names = page.locator("#head-to-head tbody tr").first.locator("td").all_inner_texts()
    assert names[:3] == [first[0]["name"], first[0]["opponent_name"], "1"]

    row = {**first[0], "matches": 2, "ahead": 2, "level": 0, "behind": 0, "score": 1.5}
    update = {"rows": [row], "more": 4}
    deliver(page, {"type": "head_to_head.updated", "competition": 1, "head_to_head": update})

    cells = page.locator("#head-to-head tbody tr").all_inner_texts()
    dash = "\N{EN DASH}"
    assert len(cells) == 1 and f"2{dash}0{dash}0" in cells[0] and f"1.5{dash}" in cells[0]
    assert "and 4 more pairs" in page.inner_text("#head-to-head-view")

    # A socket's snapshot (after a reconnect) leaves the table out: the page keeps it.
    socket_snapshot = {k: v for k, v in live.snapshot.items() if k != "head_to_head"}
    deliver(page, socket_snapshot)
    assert page.locator("#head-to-head tbody tr").count() == 1


def test_a_burst_of_events_is_drawn_once_in_the_next_frame(live, browser):
    competition, snapshot = live.competition, live.snapshot
    page = open_page(browser, live.html)
    bursts = []
    for n in range(200):
        rows = [
            {**row, "games": row["games"] + n, "trend": n / 100} for row in snapshot["standings"]
        ]
        bursts.append(
            {
                "type": "standings.updated",
                "competition": competition.pk,
                "standings": rows,
                "progress": {**snapshot["progress"], "done": n},
            }
        )

    frames = deliver(page, *bursts)

    assert frames == 1
    assert page.inner_text("#progress").startswith("199 / ")
    cells = page.locator("#standings td.trend").all_inner_texts()
    assert cells == ["▲ 1.99"] * len(snapshot["standings"])


def test_results_extend_the_chart_and_rescale_it(live, browser):
    competition, match, snapshot = live.competition, live.match, live.snapshot
    page = open_page(browser, live.html)
    rated = live.rated
    polyline = "#rating-chart polyline"
    assert page.locator(polyline).count() == len(rated) == 3
    started, finished = started_and_finished(competition, match, snapshot)

    deliver(page, finished)

    assert page.locator(polyline).count() == 6  # three more entries rated
    lines = {
        int(line.get_attribute("data-entry")): line.get_attribute("points").split()
        for line in page.locator(polyline).all()
    }
    assert {len(points) for entry, points in lines.items() if entry in rated} == {2}
    assert {len(points) for entry, points in lines.items() if entry not in rated} == {2}
    labels = page.locator("#rating-chart text").all_text_contents()
    assert labels[0] == "20.0" and labels[-1] == "rated match 2"  # rescaled to the new points
    assert page.locator("#rating-legend li").count() == 6


def test_the_queue_panel_keeps_the_newest_status(live, browser):
    competition, snapshot = live.competition, live.snapshot
    page = open_page(browser, live.html)
    newer = {
        **snapshot["queue"],
        "running": 1,
        "pending": 0,
        "workers": [{"worker": "host-z/1", "match": 99, "since": None, "until": None}],
        "at": "2030-01-01T00:00:02+00:00",
    }
    older = {**snapshot["queue"], "running": 0, "workers": [], "at": "2030-01-01T00:00:01+00:00"}
    base = {"type": "queue.status", "competition": competition.pk}

    deliver(page, [{**base, "queue": newer}, {**base, "queue": older}])

    assert "host-z/1" in page.inner_text("#workers")
    assert page.inner_text("#queue-counts").startswith("0 waiting · 1 running · 1 done")
    assert ", 1 running," in page.inner_text("#progress")


@pytest.fixture
def bracket_html(organiser) -> str:
    """The page of a double elimination of seven, half played: byes, results, waiting boxes."""
    competition = make_competition(
        organiser,
        variant="money-jordan",
        format="double-elimination",
        entries=7,
        games=2,
        start=True,
    )
    for _ in range(7):
        play_one(competition)
    return Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()


def test_a_snapshot_redraws_the_rounds_and_the_bracket_as_the_first_paint(bracket_html, browser):
    page = open_page(browser, bracket_html)
    first_paint = page.inner_html("#rounds-view")
    start = bracket_html.index('<script id="snapshot" type="application/json">')
    end = bracket_html.index("</script>", start)
    snapshot = json.loads(bracket_html[bracket_html.index(">", start) + 1 : end])

    deliver(page, snapshot)  # a reconnection: everything is drawn again from the snapshot

    def squeezed(html: str) -> str:
        return re.sub(r"\s+", "", html)

    # Winners 4 + 2 + 1 boxes, losers 2 + 2 + 1 + 1, the grand final and its reset.
    assert page.locator("#bracket .node").count() == 15
    assert squeezed(page.inner_html("#rounds-view")) == squeezed(first_paint)
    # Every box with a match is a link to that match's page.
    played = page.locator("#bracket a.node[data-match]")
    assert played.count() > 0
    for box in played.all():
        assert box.get_attribute("href") == f"/dashboard/matches/{box.get_attribute('data-match')}/"


@pytest.fixture
def painted(organiser):
    """A round robin of eight with one result, a running match and a bot with faults: its
    page, snapshot and what the panels must show (read before the browser starts)."""
    competition = make_competition(organiser, entries=8, start=True)
    match = play_one(competition)
    seat = match.seats.order_by("seat").first()
    seat.statuses = {"ok": 1, "timeout": 2}
    seat.save(update_fields=["statuses"])
    running = competition.matches.exclude(pk=match.pk).get()
    execution.match_claim(match_id=running.pk, claimed_by="host-c/99/task-1")
    html = logged_in(organiser).get(f"/dashboard/competitions/{competition.pk}/")
    html = html.content.decode()  # as its organiser: the workers panel is theirs
    start = html.index('<script id="snapshot" type="application/json">')
    snapshot = json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])
    return SimpleNamespace(
        html=html, snapshot=snapshot, match=match, running=running, faulty=seat.entry.bot.name
    )


def test_the_first_paint_draws_every_panel_from_the_snapshot(painted, browser):
    page = open_page(browser, painted.html)
    rows = painted.snapshot["standings"]

    cells = page.locator("#standings tbody td:nth-child(2)").all_inner_texts()
    # Each name, and under it the tie-break that put the row below the one above when
    # that was not the points ("on duplicate score").
    labels = {"head_to_head": "head-to-head", "score": "duplicate score", "rating": "rating"}
    expected = [
        r["name"] + (f"\non {labels[r['separated_by']]}" if r["separated_by"] in labels else "")
        for r in rows
    ]
    assert cells == expected
    trends = page.locator("#standings td.trend").all_inner_texts()
    for row, text in zip(rows, trends, strict=True):
        if row["trend"] is None:
            assert text == "\N{EN DASH}"
        else:
            assert text == ("▲ " if row["trend"] > 0 else "▼ ") + f"{abs(row['trend']):.2f}"
    assert page.locator("#standings th abbr[title]").count() >= 7  # every number explained
    # The header and the queue panel give one reading of the counts.
    assert page.inner_text("#progress").startswith("1 / 16 matches done, 1 running")
    assert page.inner_text("#queue-counts").startswith("0 waiting · 1 running · 1 done")
    assert "host-c/99" not in page.inner_text("#workers")
    assert page.inner_text("#status") == "in progress"
    assert page.inner_text("#running li").startswith(f"Match {painted.running.pk}: ")
    recent = page.locator("#recent li").first
    assert recent.locator("a").first.get_attribute("href") == (
        f"/dashboard/matches/{painted.match.pk}/"
    )
    assert "replay game 1" in recent.inner_text()
    assert (
        page.inner_text("#problems")
        == f"{painted.faulty}: ran out of time \N{MULTIPLICATION SIGN} 2"
    )
    pairings = page.locator("#current-round tbody tr")
    assert pairings.count() == 2 and "being played" in page.inner_text("#current-round")
    assert page.locator("#rating-chart polyline").count() == len(
        painted.snapshot["chart"]["series"]
    )
    assert page.locator("#rating-chart").count() == 1

    # problems.updated redraws the panel from its list.
    event = {"type": "problems.updated", "competition": 1, "problems": []}
    deliver(page, event)
    assert "none" in page.inner_text("#problems")
    row = {"name": "x/bot", "statuses": {"crash": 1, "illegal": 2}, "total": 3}
    deliver(page, {**event, "problems": [row]})
    times = "\N{MULTIPLICATION SIGN}"
    expected = f"x/bot: crashed {times} 1, made an illegal move {times} 2"
    assert page.inner_text("#problems") == expected


def test_the_crosstable_and_the_round_results_follow_the_events(live, browser):
    page = open_page(browser, live.html)
    table = live.snapshot["crosstable"]
    entries = [e["entry"] for e in table["entries"]]
    done = next(t for t in live.snapshot["rounds"]["current"]["tables"] if t["id"] == live.match.pk)
    played = {s["entry"] for s in done["seats"]}
    # The one result so far: a table of three, so each of them met two others.
    filled = page.locator("#crosstable tbody td[data-opponent]:not(:empty)")
    assert filled.count() == 6 and {int(x) for x in _attrs(filled, "data-entry")} == played

    # A crosstable update: the first row beat the second.
    a, b = entries[0], entries[1]
    rows = []
    for row in table["rows"]:
        cells = []
        for cell in row["cells"]:
            met = {row["entry"], cell["opponent"]} == {a, b}
            result = [1.0] if row["entry"] == a else [0.0]
            cells.append(
                {**cell, "meetings": 1, "results": result, "score": result[0]} if met else cell
            )
        rows.append({**row, "cells": cells})
    update = {**table, "rows": rows}
    deliver(page, {"type": "crosstable.updated", "competition": 1, "crosstable": update})

    assert page.inner_text(f'#crosstable td[data-entry="{a}"][data-opponent="{b}"]') == "1"
    assert page.inner_text(f'#crosstable td[data-entry="{b}"][data-opponent="{a}"]') == "0"

    # A finished match fills its row of the results by round.
    started, finished = started_and_finished(live.competition, live.match, live.snapshot)
    deliver(page, started, finished)
    row = page.locator(f'#round-results tr[data-match="{finished["match"]["id"]}"]')
    assert row.locator("td").nth(3).inner_text() == "finished"
    assert row.locator("td").nth(1).inner_text().startswith("1. ")


def test_a_round_event_adds_its_rounds_results_to_those_the_page_has(live, browser):
    """A round event carries the results of its rounds only (``results_of``): the page
    keeps round 1's as it had them and adds round 2's, in round order."""
    page = open_page(browser, live.html)
    rounds = live.snapshot["rounds"]
    [first] = rounds["results"]
    played = {m["match"] for m in first["matches"] if m["status"] == "done"}
    assert played == {live.match.pk}
    tables = [
        {**m, "match": 10_000 + n, "status": "queued"} for n, m in enumerate(first["matches"])
    ]
    second = {"number": 2, "status": "running", "byes": [], "matches": tables}
    event = {
        "type": "round.started",
        "competition": live.competition.pk,
        "round": {"number": 2, "status": "running", "matches": 2, "done": 0},
        "rounds": {**rounds, "results_of": [2], "results": [second]},
    }

    deliver(page, event)

    numbers = _attrs(page.locator("#round-results .round-results"), "data-round")
    assert numbers == ["1", "2"]
    kept = page.locator(f'#round-results tr[data-match="{live.match.pk}"]')
    assert kept.locator("td").nth(3).inner_text() == "finished"  # round 1 as it was
    assert page.locator('#round-results tr[data-match="10000"]').count() == 1

    deliver(page, {**event, "rounds": {**rounds, "results": [first, second]}})  # a full view
    assert _attrs(page.locator("#round-results .round-results"), "data-round") == ["1", "2"]


def _attrs(locator, name: str) -> list[str]:
    return [locator.nth(i).get_attribute(name) for i in range(locator.count())]
