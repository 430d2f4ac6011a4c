"""Fixtures shared across the test packages (none is used unless a test asks for it)."""

from __future__ import annotations

import pytest


@pytest.fixture
def challenge_world(monkeypatch) -> list:
    """The built-in bots a challenge may name, and the challenges' match tasks kept
    instead of sent (after commit): the tests play the worker. The messages kept."""
    from bots.services import builtin_bots_ensure
    from tournaments import tasks

    builtin_bots_ensure()
    messages: list = []
    for task in (tasks.match_run, tasks.matches_run):
        monkeypatch.setattr(task, "apply_async", lambda args, **kw: messages.append(args))
    return messages
