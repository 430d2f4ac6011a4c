"""Fixtures of the tournament service tests."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model


@pytest.fixture
def organiser(db):
    """The user who creates the competitions (no permission needed by the services)."""
    return get_user_model().objects.create_user("org", password="pw-123456")
