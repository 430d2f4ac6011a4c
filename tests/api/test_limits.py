"""Hostile inputs get a 4xx naming the problem: deep JSON, huge or negative integers."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from config.parsers import json_depth
from tests.factories import make_bot

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999999"
OUT_OF_RANGE = [HUGE, f"-{HUGE}", str(2**63), "-1", "1e400", "1.5", "NaN", "Infinity", "٣"]


# --- JSON depth -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        (b"1", 0),
        (b'"[[[["', 0),
        (b"[]", 1),
        (b'{"a": [1, {"b": "[[[[ ]]"}]}', 3),
        (b'{"a\\"[[": [[]]}', 3),
        (b"[" * 10_000, 10_000),
    ],
)
def test_json_depth_counts_the_brackets_outside_strings(text, depth):
    assert json_depth(text) == depth


@pytest.mark.parametrize("body", ["[" * 10_000, '{"a":' * 10_000, "[" * 10_000 + "]" * 10_000])
def test_deeply_nested_json_is_a_400_saying_so(as_organiser, body):
    response = as_organiser.post("/api/competitions/", data=body, content_type="application/json")

    assert response.status_code == 400
    assert "levels deep" in response.json()["detail"]


def test_deep_json_is_refused_before_registration_and_login_too(anon):
    for url in ("/api/auth/register/", "/api/auth/token/"):
        response = anon.post(url, data="[" * 5_000, content_type="application/json")
        assert response.status_code == 400 and "levels deep" in response.json()["detail"]


def test_json_within_the_depth_limit_is_parsed(as_alice, settings):
    settings.CARDROOM_JSON_MAX_DEPTH = 3
    shallow = as_alice.post(
        "/api/bots/",
        data='{"name": "ok", "description": "[[[[[[[["}',
        content_type="application/json",
    )
    deep = as_alice.post(
        "/api/bots/", data='{"name": "no", "x": [[[1]]]}', content_type="application/json"
    )

    assert shallow.status_code == 201, shallow.content
    assert deep.status_code == 400 and "3 levels" in deep.json()["detail"]


# --- integers in filters and URLs -------------------------------------------------------


def list_operations(client: APIClient) -> dict[str, list[str]]:
    """Every list path of the schema (ids filled in) with its query parameters."""
    schema = client.get("/api/schema/?format=json").json()
    found = {}
    for path, item in schema["paths"].items():
        get = item.get("get")
        if get is None or "{id}" in path or "{number}" in path:
            continue
        names = [p["name"] for p in get.get("parameters", []) if p["in"] == "query"]
        found[path.replace("{bot_pk}", "BOT")] = names
    return found


def test_every_filter_of_every_list_refuses_out_of_range_integers(league, as_staff, staff):
    bot = make_bot(staff, "swept")
    as_staff.raise_request_exception = False
    operations = list_operations(as_staff)
    assert len(operations) >= 7 and "/api/matches/" in operations

    failures = []
    for path, names in operations.items():
        url = path.replace("BOT", str(bot.pk))
        for name in names:
            for value in OUT_OF_RANGE:
                response = as_staff.get(url, {name: value})
                if response.status_code >= 500:
                    failures.append((url, name, value, response.status_code))
    assert failures == []


@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        ("/api/entries/?bot=" + HUGE, "bot"),
        ("/api/entries/?bot=-1", "bot"),
        ("/api/matches/?entry=" + HUGE, "entry"),
        ("/api/matches/?round=" + HUGE, "round"),
        ("/api/games/?match=" + str(2**63), "match"),
        ("/api/games/?index=" + HUGE, "index"),
        ("/api/rounds/?number=-" + HUGE, "number"),
        ("/api/entries/?competition=" + HUGE, "competition"),
    ],
)
def test_an_out_of_range_filter_is_a_400_naming_it(as_staff, url, parameter):
    response = as_staff.get(url)

    assert response.status_code == 400, response.content
    assert parameter in response.json()


def test_the_largest_64_bit_id_is_accepted_and_finds_nothing(as_staff):
    response = as_staff.get(f"/api/entries/?bot={2**63 - 1}")

    assert response.status_code == 200 and response.json()["results"] == []


def test_detail_urls_with_huge_ids_are_404s(league, as_staff):
    as_staff.raise_request_exception = False
    schema = as_staff.get("/api/schema/?format=json").json()
    failures = []
    for path, item in schema["paths"].items():
        if "get" not in item or "{" not in path:
            continue
        for value in (HUGE, str(2**63), "-1"):
            url = re.sub(r"\{\w+\}", value, path)
            status = as_staff.get(url).status_code
            if status != 404:
                failures.append((url, status))
    assert failures == []
