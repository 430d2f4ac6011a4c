"""The Django project boots, reaches its database and, when configured, Redis."""

from __future__ import annotations

import os

import pytest
from django.core.management import call_command
from django.db import connection


def test_system_checks_pass():
    call_command("check", fail_level="WARNING")


@pytest.mark.django_db
def test_database_round_trip():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 + 1")
        assert cursor.fetchone()[0] == 2
    if os.environ.get("CI"):
        assert connection.vendor == "postgresql", "CI must run against PostgreSQL"


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="REDIS_URL not set")
def test_redis_answers():
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    assert client.ping()
