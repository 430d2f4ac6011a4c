"""The OpenAPI schema is valid and describes every route; the docs work offline."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.urls import get_resolver
from drf_spectacular.validation import validate_schema
from rest_framework.schemas.generators import EndpointEnumerator

pytestmark = pytest.mark.django_db

EXPECTED = {
    ("POST", "/api/auth/register/"),
    ("POST", "/api/auth/token/"),
    ("DELETE", "/api/auth/token/"),
    ("GET", "/api/auth/me/"),
    ("POST", "/api/auth/confirm/"),
    ("POST", "/api/auth/confirm/resend/"),
    ("GET", "/api/bots/"),
    ("POST", "/api/bots/"),
    ("GET", "/api/bots/{id}/"),
    ("GET", "/api/bots/{id}/play/"),
    ("POST", "/api/bots/{id}/play/"),
    ("GET", "/api/bots/{bot_pk}/versions/"),
    ("POST", "/api/bots/{bot_pk}/versions/"),
    ("GET", "/api/bots/{bot_pk}/versions/{number}/"),
    ("GET", "/api/bots/{bot_pk}/versions/{number}/download/"),
    ("POST", "/api/bots/{bot_pk}/versions/{number}/validate/"),
    ("GET", "/api/bots/{bot_pk}/sprt/"),
    ("POST", "/api/bots/{bot_pk}/sprt/"),
    ("GET", "/api/bots/{bot_pk}/sprt/{id}/"),
    ("POST", "/api/bots/{bot_pk}/sprt/{id}/cancel/"),
    ("GET", "/api/competitions/"),
    ("POST", "/api/competitions/"),
    ("GET", "/api/competitions/{id}/"),
    ("PATCH", "/api/competitions/{id}/"),
    ("POST", "/api/competitions/{id}/start/"),
    ("POST", "/api/competitions/{id}/close/"),
    ("POST", "/api/competitions/{id}/pause/"),
    ("POST", "/api/competitions/{id}/resume/"),
    ("GET", "/api/competitions/{id}/standings/"),
    ("GET", "/api/competitions/{id}/results/"),
    ("GET", "/api/competitions/{id}/progress/"),
    ("GET", "/api/competitions/{id}/head-to-head/"),
    ("GET", "/api/competitions/{id}/crosstable/"),
    ("GET", "/api/competitions/{id}/rounds/"),
    ("GET", "/api/competitions/{id}/collusion/"),
    ("POST", "/api/competitions/{id}/keep-apart/"),
    ("POST", "/api/competitions/{id}/next-season/"),
    ("POST", "/api/competitions/{id}/seeding/"),
    ("GET", "/api/competitions/{competition_pk}/compare/"),
    ("GET", "/api/entries/"),
    ("POST", "/api/entries/"),
    ("GET", "/api/entries/{id}/"),
    ("POST", "/api/entries/{id}/withdraw/"),
    ("POST", "/api/entries/{id}/disqualify/"),
    ("GET", "/api/entries/{id}/ratings/"),
    ("GET", "/api/entries/{id}/seasons/"),
    ("POST", "/api/entries/{id}/division/"),
    ("GET", "/api/entries/invitations/"),
    ("POST", "/api/entries/{id}/accept/"),
    ("POST", "/api/entries/{id}/decline/"),
    ("GET", "/api/rounds/"),
    ("GET", "/api/rounds/{id}/"),
    ("GET", "/api/matches/"),
    ("GET", "/api/matches/{id}/"),
    ("POST", "/api/matches/{id}/retry/"),
    ("GET", "/api/matches/{id}/live/"),
    ("GET", "/api/matches/{id}/transcripts/"),
    ("GET", "/api/matches/{id}/stderr/"),
    ("GET", "/api/games/"),
    ("GET", "/api/games/{id}/"),
    ("GET", "/api/games/{id}/transcript/"),
    ("GET", "/api/challenges/"),
    ("POST", "/api/challenges/"),
    ("GET", "/api/challenges/{id}/"),
    ("POST", "/api/challenges/{id}/cancel/"),
}
#: Routes that are the schema and its viewers, not operations of the API.
NOT_OPERATIONS = {"/api/", "/api/schema/", "/api/docs/", "/api/redoc/"}


def schema_operations(schema: dict) -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }


@pytest.fixture
def schema(anon) -> dict:
    response = anon.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def test_schema_is_valid_openapi(schema):
    validate_schema(schema)  # raises on any violation of the OpenAPI 3 specification

    assert schema["openapi"].startswith("3.")
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])


def test_schema_lists_exactly_the_api_operations(schema):
    assert schema_operations(schema) == EXPECTED


def test_every_routed_endpoint_is_in_the_schema(schema):
    routed = {
        (method, path.replace("{pk}", "{id}"))
        for path, method, _ in EndpointEnumerator(get_resolver().url_patterns).get_api_endpoints()
        if path.startswith("/api/") and path not in NOT_OPERATIONS
    }

    assert routed == schema_operations(schema)


def test_every_operation_is_described(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            assert (
                operation.get("description") or operation.get("summary") or operation["responses"]
            ), (method, path)
            assert operation["tags"], (method, path)


def test_swagger_ui_is_served_from_local_static_files(anon):
    response = anon.get("/api/docs/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "cdn." not in page and "unpkg" not in page
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")


def test_redoc_is_served_from_local_static_files(anon):
    response = anon.get("/api/redoc/")

    assert response.status_code == 200
    assert "drf_spectacular_sidecar/redoc" in response.content.decode()


def test_api_root_lists_the_resources(anon):
    response = anon.get("/api/")

    assert response.status_code == 200
    resources = {"bots", "competitions", "entries", "rounds", "matches", "games", "challenges"}
    assert resources <= set(response.json())
