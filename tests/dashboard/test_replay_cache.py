"""Finished replays are built once and served from the cache; anonymous clients cannot ask
for replay after replay."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.test import Client

from tests.factories import make_competition, make_user, play_one
from web.dashboard import replay_cache, views

pytestmark = pytest.mark.django_db


def steps_of(page: str) -> list[dict]:
    start = page.index('<script id="steps" type="application/json">')
    return json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])


@pytest.fixture
def games_played(organiser) -> list[int]:
    match = play_one(make_competition(organiser, start=True, entries=3))
    return list(match.game_records.order_by("index").values_list("pk", flat=True))


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """How many times a replay's steps were built (each build replays the whole game)."""
    counted: list[int] = []
    real = views.replay_steps

    def counting(record, *, full=False):
        counted.append(1)
        return real(record, full=full)

    monkeypatch.setattr(views, "replay_steps", counting)
    return counted


def test_a_finished_replay_is_built_once_and_then_served_from_the_cache(games_played, builds):
    url = f"/dashboard/games/{games_played[0]}/"

    first = Client(REMOTE_ADDR="10.0.0.1").get(url)
    again = [Client(REMOTE_ADDR=f"10.0.0.{i}").get(url) for i in range(2, 6)]

    assert first.status_code == 200 and all(a.status_code == 200 for a in again)
    assert len(builds) == 1
    assert all(steps_of(a.content.decode()) == steps_of(first.content.decode()) for a in again)


def test_the_full_view_is_kept_apart_from_the_public_one(organiser, games_played, builds):
    url = f"/dashboard/games/{games_played[0]}/"
    staff = Client()
    staff.force_login(organiser)

    public = Client().get(url).content.decode()
    full = staff.get(url + "?view=full").content.decode()

    assert len(builds) == 2
    assert all("hand seat 0" not in step["view"] for step in steps_of(public))
    assert all("hand seat 0" in step["view"] for step in steps_of(full))


def test_an_anonymous_address_has_only_so_many_replays_a_minute(settings, games_played):
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "replay": "2/min"}
    visitor = Client(REMOTE_ADDR="10.0.0.9")
    urls = [f"/dashboard/games/{pk}/" for pk in games_played]

    seen = [visitor.get(url).status_code for url in urls[:2]]
    refused = visitor.get(urls[2])
    cached = visitor.get(urls[0])
    signed_in = Client(REMOTE_ADDR="10.0.0.9")
    signed_in.force_login(make_user("reader"))

    assert seen == [200, 200]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many replays from here" in refused.content.decode()
    assert "sign in" in refused.content.decode()
    assert cached.status_code == 429  # a long game's page is heavy even from the cache
    assert signed_in.get(urls[2]).status_code == 200
    assert Client(REMOTE_ADDR="10.0.0.10").get(urls[2]).status_code == 200


def test_a_replay_being_built_by_another_request_is_not_built_twice(games_played, builds):
    game_id = games_played[0]
    cache.add(f"{replay_cache._key(game_id, False)}:building", 1, 60)

    answer = Client().get(f"/dashboard/games/{game_id}/")

    assert answer.status_code == 503 and answer["Retry-After"] == "3"
    assert "being prepared" in answer.content.decode() and builds == []
