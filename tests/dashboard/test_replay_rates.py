"""Replay pages are counted per account when signed in: an account past its rate gets a
429 page saying why while another account is still served; staff are not counted; a cold
replay is built once and every later viewer, signed in or not, is served it from the
cache."""

from __future__ import annotations

import random

import pytest
from django.test import Client

from tests.factories import logged_in, make_competition, make_user, play_one
from web.dashboard import views

pytestmark = pytest.mark.django_db


@pytest.fixture
def replay_urls(organiser) -> list[str]:
    match = play_one(make_competition(organiser, start=True, entries=3))
    return [f"/dashboard/games/{pk}/" for pk in match.game_records.values_list("pk", flat=True)]


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    counted: list[int] = []
    real = views.replay_steps

    def counting(record, *, full=False):
        counted.append(1)
        return real(record, full=full)

    monkeypatch.setattr(views, "replay_steps", counting)
    return counted


def an_address() -> str:
    return "10." + ".".join(str(random.randrange(1, 255)) for _ in range(3))


def test_an_account_past_its_replay_pages_gets_a_429_page_and_another_account_a_200(
    settings, replay_urls, one_rate_window
):
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "replay": "2/min"}
    address = an_address()  # both accounts behind one address: each is counted on its own
    greedy = Client(REMOTE_ADDR=address)
    greedy.force_login(make_user("greedy"))
    other = Client(REMOTE_ADDR=address)
    other.force_login(make_user("other"))

    seen = [greedy.get(url).status_code for url in replay_urls[:2]]
    refused = greedy.get(replay_urls[2])

    assert seen == [200, 200]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert refused["Content-Type"].startswith("text/html")
    page = refused.content.decode()
    assert 'id="refusal"' in page and "Too many replays" in page
    assert "sign in" not in page.lower()
    assert greedy.get(replay_urls[0]).status_code == 429  # cached pages count too
    assert other.get(replay_urls[2]).status_code == 200


def test_staff_are_not_counted(settings, replay_urls):
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "replay": "1/min"}
    boss = logged_in(make_user("boss", is_staff=True))

    assert [boss.get(url).status_code for url in replay_urls * 2] == [200] * 6


def test_a_cold_replay_is_built_once_for_every_viewer_allowed_to_see_it(replay_urls, builds):
    url = replay_urls[0]
    viewers = [logged_in(make_user(f"reader-{i}")) for i in range(3)]
    viewers.append(Client(REMOTE_ADDR=an_address()))

    pages = [viewer.get(url) for viewer in viewers]

    assert [p.status_code for p in pages] == [200] * 4
    assert len(builds) == 1
    assert len({p.content.split(b'id="steps"')[1][:4000] for p in pages}) == 1
