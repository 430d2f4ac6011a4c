"""bench.bulk's breakdown of where a match's bookkeeping time goes (bench/bookkeeping.py)."""

from __future__ import annotations

import argparse

import pytest

from bench import bookkeeping
from bench.bulk import new_competition
from tournaments import services
from tournaments.services import record_statements as recording
from tournaments.worker import execution

pytestmark = pytest.mark.django_db


def test_the_steps_and_the_referee_make_up_the_match_and_the_timers_go_afterwards():
    originals = (
        execution.match_claim_with_seats,
        services.match_record,
        recording.match_store_rated,
    )
    args = argparse.Namespace(variant="manni-basic", entries=4, games=1, seed=5)

    b = bookkeeping.measure(args, new_competition)

    assert b["matches"] == 4  # every table of three of four entries, once
    steps = b["steps"]
    assert b["referee_ms"] + sum(s["ms"] for s in steps.values()) == pytest.approx(b["match_ms"])
    assert all(s["ms"] > 0 for name, s in steps.items() if name != "watchers and seating")
    assert b["round_closings"] >= 1
    assert (execution.match_claim_with_seats, services.match_record,
            recording.match_store_rated) == originals  # fmt: skip
