"""The bracket of a knockout in a real browser: game scores, winners, tie-breaks, connector
lines and the champion, on a 1366 px wide screen.

The page is the server's own HTML (Django test client) with its script, as in
``test_live_script``; a screenshot is left in ``BRACKET_SCREENSHOT`` if that is set.
"""

from __future__ import annotations

import json
import os
import re
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from bots.models import Bot
from tests.browser import deliver, open_page
from tournaments import selectors, services
from tournaments.formats.match_result import points_text
from tournaments.models import Match

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def knockout(format: str, entries: int = 8) -> object:
    """A finished duplicate Money knockout of greedy and random copies (two greedy
    copies tie every duplicate match: tie-breaks are certain to be needed)."""
    organiser = get_user_model().objects.create_user("olga", password="pw-123456")
    competition = services.competition_create(
        created_by=organiser,
        name="Knockout night",
        kind="tournament",
        variant="money-jordan",
        format=format,
        games_per_match=2,
        duplicate=True,
        seed=11,
        playoff_games_cap=2,
    )
    for i in range(entries):
        kind = "greedy" if i % 2 == 0 else "random"
        bot = Bot.objects.create(name=f"{kind}-{i}", builtin=kind)
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)
    while match := competition.matches.filter(status=Match.Status.PENDING).order_by("id").first():
        result = services.match_play(match=match)
        assert services.match_record(match=match, played=result, send=None)
    competition.refresh_from_db()
    assert competition.status == "finished"
    return competition


@pytest.fixture(params=["double-elimination", "single-elimination"])
def finished(request) -> SimpleNamespace:
    """A finished knockout, its page, and what each box must show (all read before the
    browser starts: the database is not used from Playwright's event loop)."""
    competition = knockout(request.param)
    html = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()
    boxes = []
    for match in competition.matches.filter(status=Match.Status.DONE).order_by("id"):
        seats = list(match.seats.select_related("entry__bot").order_by("seat"))
        boxes.append(
            SimpleNamespace(
                id=match.pk,
                score="-".join(points_text(s.points) for s in seats),
                winner=next(s.entry.bot.name for s in seats if s.rank == 1),
                rule=match.decided_by["rule"],
            )
        )
    champion = selectors.standings_for_competition(competition=competition)[0]["name"]
    return SimpleNamespace(format=request.param, html=html, boxes=boxes, champion=champion)


WORDS = {"score": "total score", "play-off": "play-off", "lot": "decided by lot"}


def test_the_bracket_shows_scores_winners_tiebreaks_lines_and_the_champion(finished, browser):
    page = open_page(browser, finished.html)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.evaluate("() => window.dispatchEvent(new Event('resize'))")

    assert page.inner_text("#bracket .champion") == f"Champion: {finished.champion}"
    for box in finished.boxes:
        node = page.locator(f'#bracket .node[data-match="{box.id}"]')
        assert node.locator(".node-head span").nth(1).inner_text() == box.score
        assert node.locator(".seat.winner").inner_text().startswith(box.winner)
        if box.rule == "games":
            assert node.locator(".tiebreak").count() == 0
        else:
            assert WORDS[box.rule] in node.locator(".tiebreak").inner_text()
    assert any(box.rule != "games" for box in finished.boxes), "greedy copies tie in duplicate"
    lines = page.locator("#bracket svg.connectors polyline").count()
    joined = sum(1 for _ in page.locator("#bracket .node[data-from]").all())
    assert lines >= joined > 0
    # The page never scrolls sideways: a wide bracket scrolls inside its own box.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1366
    if os.environ.get("BRACKET_SCREENSHOT"):
        path = os.environ["BRACKET_SCREENSHOT"].replace(".png", f"-{finished.format}.png")
        page.locator("#rounds-view").screenshot(path=path)

    # A reconnection draws the same bracket again from the snapshot.
    before = re.sub(r"\s+", "", page.inner_html("#bracket"))
    deliver(page, _snapshot(finished.html))
    assert re.sub(r"\s+", "", page.inner_html("#bracket")) == before


def _snapshot(html: str) -> dict:
    start = html.index('<script id="snapshot" type="application/json">')
    end = html.index("</script>", start)
    return json.loads(html[html.index(">", start) + 1 : end])


def test_a_finished_match_event_redraws_its_box_with_score_and_tiebreak(finished, browser):
    page = open_page(browser, finished.html)
    snapshot = _snapshot(finished.html)
    box = next(
        b
        for s in snapshot["rounds"]["bracket"]["sections"]
        for c in s["columns"]
        for b in c["nodes"]
        if b["match"]
    )
    seats = [
        {**seat, "rank": rank, "points": points, "score": 10}
        for seat, rank, points in zip(box["seats"], (2, 1), (1.5, 1.5), strict=True)
    ]
    match = {
        "id": box["match"],
        "round": 1,
        "table": 0,
        "node": box["node"],
        "status": "done",
        "seats": seats,
        "decided_by": {"rule": "lot", "level": [0, 1], "games": 2, "draw": [1, 0]},
        "tiebreak": "level after 2 play-off games; decided by lot (x drawn)",
        "games": [],
    }
    event = {"type": "match.finished", "competition": 1, "match": match, "ratings": []}

    deliver(page, event)

    node = page.locator(f'#bracket .node[data-node="{box["node"]}"]')
    assert node.locator(".node-head span").nth(1).inner_text() == "1½-1½"
    assert node.locator(".seat.winner").inner_text().startswith(seats[1]["name"])
    assert node.locator(".tiebreak").inner_text() == match["tiebreak"]
    assert page.locator("#bracket svg.connectors polyline").count() > 0
