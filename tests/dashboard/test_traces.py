"""Decision traces on the site and in the API: who sees the times, the stderr and the notes.

The seat's owner and staff see all three at once; everyone else sees the times only,
and, once the competition is over, the notes (never the stderr) if they may see the
full view. The server filters what it sends: the page's data and the API alike.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from bots.models import Bot
from tests.factories import logged_in, make_user, play_one
from tournaments import services
from tournaments.models import Competition, GameRecord
from tournaments.watching.replay import seat_names
from web.dashboard.pages import level_words


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def world(db):
    """A running round robin of alice's, bob's and a house bot; one match played, its
    records given stderr and notes named after each seat's bot."""
    organiser, alice, bob = make_user("olga"), make_user("alice"), make_user("bob")
    competition = services.competition_create(
        created_by=organiser,
        name="Traced",
        kind="tournament",
        variant="manni-basic",
        format="round-robin",
        games_per_match=3,
        is_public=True,
        duplicate=True,
    )
    for owner, name in ((alice, "alpha"), (bob, "bravo"), (None, "house")):
        bot = Bot.objects.create(owner=owner, name=name, builtin="random")
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)
    match = play_one(competition)
    match.seats.filter(entry__bot__name="alpha").update(log="whole log of alpha")
    for game in match.game_records.all():
        record = game.record()
        names = seat_names(game=game, record=record)
        for trace in record["traces"]:
            name = names[trace["seat"]].split("/")[-1]
            trace.update(stderr=f"stderr of {name}", note=f"note of {name}")
        game.data = GameRecord.pack(record)
        game.save(update_fields=["data"])
    return {"competition": competition, "match": match, "alice": alice, "bob": bob}


def page_traces(client: Client, game: GameRecord) -> dict:
    page = client.get(f"/dashboard/games/{game.pk}/").content.decode()
    start = page.index('<script id="replay-traces" type="application/json">')
    return json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])


def said(traces: list[dict]) -> set[str]:
    return {t[k] for t in traces for k in ("stderr", "note") if k in t}


def finish(world, *, full_replays: bool) -> None:
    Competition.objects.filter(pk=world["competition"].pk).update(
        status=Competition.Status.FINISHED, full_replays_after_end=full_replays
    )


@pytest.mark.slow
def test_the_owner_sees_times_stderr_and_notes_of_their_seat_only(world):
    # Two games: the duplicate match seats the bots differently in each.
    for game in world["match"].game_records.order_by("index")[:2]:
        names = [n.split("/")[-1] for n in seat_names(game=game, record=game.record())]
        alpha = names.index("alpha")

        shown = page_traces(logged_in(world["alice"]), game)

        assert shown["mine"] == [alpha]
        assert said(shown["traces"]) == {"stderr of alpha", "note of alpha"}
        assert {t["seat"] for t in shown["traces"]} == {0, 1, 2}  # every seat's times
        assert all("charged_ms" in t and "bank_ms" in t for t in shown["traces"])
        assert said(page_traces(logged_in(world["bob"]), game)["traces"]) == {
            "stderr of bravo",
            "note of bravo",
        }


def test_another_user_sees_no_stderr_nor_notes_until_the_end_then_notes_only(world):
    game = world["match"].game_records.order_by("index").first()
    url = f"/api/games/{game.pk}/"
    everyone = {f"{k} of {n}" for k in ("stderr", "note") for n in ("alpha", "bravo", "house")}
    notes = {f"note of {n}" for n in ("alpha", "bravo", "house")}

    assert said(page_traces(Client(), game)["traces"]) == set()
    assert said(api().get(url).json()["record"]["traces"]) == set()
    assert said(api(world["bob"]).get(url).json()["record"]["traces"]) == {
        "stderr of bravo",
        "note of bravo",
    }
    staff = make_user("stan", is_staff=True)
    assert said(page_traces(logged_in(staff), game)["traces"]) == everyone
    assert said(api(staff).get(url).json()["record"]["traces"]) == everyone

    finish(world, full_replays=False)  # over, but no full view for the public
    assert said(api().get(url).json()["record"]["traces"]) == set()

    finish(world, full_replays=True)
    assert said(page_traces(Client(), game)["traces"]) == notes
    assert said(api().get(url).json()["record"]["traces"]) == notes
    assert said(api(world["bob"]).get(url).json()["record"]["traces"]) == notes | {
        "stderr of bravo"
    }


def test_the_match_page_shows_each_seats_time_and_slowest_decision_and_the_owner_its_log(world):
    match = world["match"]
    url = f"/dashboard/matches/{match.pk}/"

    public = Client().get(url)
    alices = logged_in(world["alice"]).get(url).content.decode()

    page = public.content.decode()
    assert public.status_code == 200
    assert page.count('class="num seat-time"') == 3 and "decisions)" in page
    assert page.count('class="num seat-slowest"') == 3 and "#step-" in page
    assert "whole log of alpha" not in page and "whole log of alpha" not in (
        logged_in(world["bob"]).get(url).content.decode()
    )
    assert "whole log of alpha" in alices and 'class="seat-log"' in alices


def test_the_match_page_totals_are_those_of_the_traces(world):
    from web.dashboard.pages import match_page

    match = world["match"]
    rows = {r["name"].split("/")[-1]: r["times"] for r in match_page(match=match)["seats"]}
    expected = {n: [0, 0] for n in rows}
    for game in match.game_records.all():
        record = game.record()
        names = [n.split("/")[-1] for n in seat_names(game=game, record=record)]
        for trace in record["traces"]:
            expected[names[trace["seat"]]][0] += 1
            expected[names[trace["seat"]]][1] += trace["charged_ms"]
    assert {n: [r["decisions"], r["charged_ms"]] for n, r in rows.items()} == expected
    assert all(r["decisions"] > 0 and r["slowest"]["move"] >= 1 for r in rows.values())


def test_a_level_match_says_how_it_was_ranked():
    rows = [
        {"name": "alpha", "points": 10.0, "score": 1421.0, "rank": 1},
        {"name": "bravo", "points": 10.0, "score": 1378.0, "rank": 2},
        {"name": "charlie", "points": 4.0, "score": 900.0, "rank": 3},
    ]
    assert level_words(rows, {}) == [
        "alpha and bravo: 10-10 on points; decided on total score 1,421-1,378"
    ]
    rows[1]["score"] = 1421.0
    words = level_words(rows, {"rule": "lot", "level": [0, 1]})
    assert words[0] == "alpha and bravo: 10-10 on points and level on total score (1,421)"
    assert "decided by lot" in words[1]
    assert level_words(rows[:1] + rows[2:], {}) == []


@pytest.mark.slow
def test_the_replay_viewer_shows_a_decisions_trace_and_jumps_to_my_next_decision(world):
    """The page in a real browser (its script from the static files): the owner's next
    decision, its times, stderr and note beside the move."""
    from tests.browser import ORIGIN, chromium_browser, serve_site

    game = world["match"].game_records.order_by("index").first()
    names = [n.split("/")[-1] for n in seat_names(game=game, record=game.record())]
    first_mine = next(t for t in game.record()["traces"] if t["seat"] == names.index("alpha"))
    url = f"/dashboard/games/{game.pk}/"
    html = logged_in(world["alice"]).get(url).content.decode()

    with chromium_browser() as browser:
        page = browser.new_page()
        serve_site(page, html)
        page.goto(f"{ORIGIN}{url}")
        page.locator("#next-mine").click()

        assert page.locator("#position").inner_text().startswith(f"step {first_mine['ply'] + 1} ")
        trace = page.locator("#trace").inner_text()
        assert "note of alpha" in trace and "stderr of alpha" in trace and "bank left" in trace
        page.keyboard.press("n")
        assert page.locator("#trace .note").inner_text() == "note of alpha"
