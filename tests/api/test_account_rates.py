"""Heavy reads of the API are counted per account when signed in (per address otherwise):
one account past its rate of whole game records, transcripts or downloads of every match
result gets a 429 with ``Retry-After`` while another account is still served; staff are
not counted."""

from __future__ import annotations

import pytest

from tests.api.conftest import client_for
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings, one_rate_window):
    settings.CARDROOM_THROTTLE_RATES = {
        **settings.CARDROOM_THROTTLE_RATES,
        "record": "2/min",
        "transcript": "2/min",
        "download": "2/min",
    }
    return settings.CARDROOM_THROTTLE_RATES


def test_an_account_past_its_game_records_gets_429_and_another_account_is_served(
    league, as_alice, as_bob, rates
):
    game = league["done"].game_records.get(index=0)
    url = f"/api/games/{game.pk}/"

    served = [as_alice.get(url).status_code for _ in range(2)]
    refused = as_alice.get(url)

    assert served == [200, 200]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many game records" in refused.json()["detail"]
    assert "sign in" not in refused.json()["detail"]  # an account is counted on its own
    assert as_bob.get(url).status_code == 200
    assert as_alice.get("/api/games/").status_code == 200  # the list is light: not counted


def test_an_account_past_its_transcripts_gets_429(league, as_alice, rates):
    game = league["done"].game_records.get(index=1)
    url = f"/api/games/{game.pk}/transcript/?seat=0"

    served = [as_alice.get(url).status_code for _ in range(2)]
    refused = as_alice.get(url)

    assert served == [200, 200]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many transcripts" in refused.json()["detail"]


def test_downloads_of_every_match_result_are_limited_per_signed_in_account(
    league, as_alice, as_bob, rates
):
    url = f"/api/competitions/{league['competition'].pk}/results/"

    served = [as_alice.get(url).status_code, as_alice.get(url + "?format=csv").status_code]
    refused = as_alice.get(url)

    assert served == [200, 200]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many downloads of every match result" in refused.json()["detail"]
    assert as_bob.get(url).status_code == 200


def test_anonymous_records_are_counted_per_address_and_staff_not_at_all(league, anon, rates):
    game = league["done"].game_records.get(index=0)
    url = f"/api/games/{game.pk}/"
    boss = client_for(make_user("boss", is_staff=True))

    served = [anon.get(url, REMOTE_ADDR="10.1.0.1").status_code for _ in range(2)]
    refused = anon.get(url, REMOTE_ADDR="10.1.0.1")

    assert served == [200, 200] and refused.status_code == 429
    assert "sign in" in refused.json()["detail"]
    assert anon.get(url, REMOTE_ADDR="10.1.0.2").status_code == 200
    assert [boss.get(url).status_code for _ in range(5)] == [200] * 5
