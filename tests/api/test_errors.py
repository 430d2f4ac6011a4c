"""Bad requests get a 4xx with a message, never a 500, and leave nothing half-written."""

from __future__ import annotations

import io

import pytest
from django.test import override_settings

from api.defaults import JSONParser, PayloadTooLarge
from bots.models import Bot
from tests.factories import make_competition
from tournaments.models import Competition

pytestmark = pytest.mark.django_db


def test_malformed_json_is_a_400(as_organiser):
    response = as_organiser.post(
        "/api/competitions/", data='{"name": "oops",', content_type="application/json"
    )

    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]


def test_a_json_body_that_is_not_an_object_is_a_400(as_alice):
    response = as_alice.post("/api/bots/", data="[1, 2]", content_type="application/json")

    assert response.status_code == 400
    assert response.json()


def test_wrong_types_are_a_400_per_field(as_organiser):
    response = as_organiser.post(
        "/api/competitions/",
        {"name": ["x"], "kind": 3, "variant": None, "format": "round-robin", "seed": "many"},
        format="json",
    )

    assert response.status_code == 400
    assert {"name", "kind", "variant", "seed"} <= set(response.json())


def test_unsupported_media_type_is_a_415(as_alice):
    response = as_alice.post("/api/bots/", data="name=x", content_type="text/plain")

    assert response.status_code == 415
    assert "text/plain" in response.json()["detail"]


@pytest.mark.parametrize(
    "url",
    [
        "/api/competitions/999999/",
        "/api/competitions/99999999999999999999999/",
        "/api/entries/123456/",
        "/api/matches/42/",
        "/api/games/42/",
        "/api/rounds/42/",
        "/api/competitions/abc/",
        "/api/bots/424242/versions/",
    ],
)
def test_unknown_ids_are_a_404(as_alice, url):
    assert as_alice.get(url).status_code == 404


@pytest.mark.parametrize("url", ["/api/nope/", "/api/competitions/1/nope/"])
def test_an_unknown_api_path_is_a_404_in_json(as_alice, url):
    response = as_alice.get(url)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": f"no such endpoint: {url}"}


def test_unknown_ids_in_a_body_are_a_400(organiser, as_alice):
    competition = make_competition(organiser, games=6)

    response = as_alice.post("/api/entries/", {"competition": competition.pk, "bot": 987654})

    assert response.status_code == 400
    assert "does not exist" in response.json()["bot"][0]


def test_filters_with_bad_values_are_a_400(anon):
    response = anon.get("/api/entries/?competition=abc&withdrawn=perhaps")

    assert response.status_code == 400
    assert "competition" in response.json()


def test_an_oversized_json_body_is_a_413(as_alice):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        response = as_alice.post(
            "/api/bots/", {"name": "big", "description": "x" * 2000}, format="json"
        )

    assert response.status_code == 413
    assert "at most 1000 bytes" in response.json()["detail"]
    assert not Bot.objects.filter(builtin="").exists()


def test_an_oversized_form_body_is_a_413(as_alice):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        response = as_alice.post("/api/bots/", {"name": "big", "description": "x" * 2000})

    assert response.status_code == 413
    assert "at most 1000 bytes" in response.json()["detail"]
    assert not Bot.objects.filter(builtin="").exists()


def test_methods_not_offered_are_a_405(organiser, as_staff):
    competition = make_competition(organiser, games=6)

    assert as_staff.delete(f"/api/competitions/{competition.pk}/").status_code == 405
    assert as_staff.put("/api/competitions/", {}).status_code == 405
    assert Competition.objects.count() == 1


def test_a_failed_service_call_writes_nothing(as_organiser):
    response = as_organiser.post(
        "/api/competitions/",
        {
            "name": "Half",
            "kind": "tournament",
            "variant": "manni-basic",
            "format": "double-elimination",
        },
        format="json",
    )

    assert response.status_code == 400 and "format" in response.json()
    assert not Competition.objects.exists()


def test_the_json_parser_stops_reading_past_the_limit():
    stream = io.BytesIO(b'{"a": "' + b"x" * 5000 + b'"}')

    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000), pytest.raises(PayloadTooLarge):
        JSONParser().parse(stream)
    assert stream.tell() == 1001
    assert JSONParser().parse(io.BytesIO(b'{"a": 1}')) == {"a": 1}
