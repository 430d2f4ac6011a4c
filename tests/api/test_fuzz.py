"""Property-based fuzzing of every operation of the OpenAPI schema: no input gives a 5xx.

Schemathesis generates valid and invalid requests (wrong types, missing fields,
odd ids, unknown query values) from ``/api/schema/`` and sends them through the
WSGI application, anonymously and with a staff token (staff may call every
operation, so the deepest code paths are reached).
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error

from config.wsgi import application
from tests.factories import make_bot, make_competition

EXAMPLES_PER_OPERATION = 12


# Loading the schema needs no database: it is generated from the code.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """Django closes a connection that is not in autocommit at the end of each request,
    which would end the test's transaction; its own test client does the same as this."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def world(db, organiser, alice, staff):
    """Something for the generated ids to find: a bot with a version, a draft competition."""
    make_bot(alice, "fuzzed")
    make_competition(organiser, games=6)


FUZZ_SETTINGS = hypothesis_settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.slow
@schema.parametrize()
@FUZZ_SETTINGS
def test_no_anonymous_request_gets_a_server_error(case):
    case.call_and_validate(checks=[not_a_server_error])


@pytest.mark.slow
@schema.parametrize()
@FUZZ_SETTINGS
def test_no_staff_request_gets_a_server_error(case, staff):
    token, _ = Token.objects.get_or_create(user=staff)
    case.call_and_validate(
        headers={"Authorization": f"Token {token.key}"}, checks=[not_a_server_error]
    )
