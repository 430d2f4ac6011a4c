"""Standing open ladders are paced as the operator sets (``CARDROOM_LADDER_PACE_MS``), and
validations with them, so that a validation looks like a ladder's match."""

from __future__ import annotations

import pytest

from bots import validation
from bots.referee import OPEN_LADDER_PACE_MS
from tournaments.models import Competition
from tournaments.services import ladders

pytestmark = pytest.mark.django_db


def test_by_default_new_standing_ladders_are_paced_and_validations_with_them():
    made = ladders.standing_ladders_ensure(send=None)

    assert OPEN_LADDER_PACE_MS > 0
    assert {c.pace_ms for c, _ in made} == {OPEN_LADDER_PACE_MS}
    planned = validation.plan("maniglia-4", seed=1, match_time_limit_s=1800)
    assert planned.time_control.pace_ms == OPEN_LADDER_PACE_MS


def test_new_standing_ladders_and_validations_take_the_operators_pacing(settings):
    settings.CARDROOM_LADDER_PACE_MS = 5

    made = ladders.standing_ladders_ensure(send=None)

    assert made and all(created for _, created in made)
    assert {c.pace_ms for c, _ in made} == {5}
    planned = validation.plan("manni-basic", seed=1, match_time_limit_s=1800)
    assert planned.time_control.pace_ms == 5


def test_ladders_ensure_leaves_an_existing_ladders_pacing_as_it_is(settings):
    ladders.standing_ladders_ensure(send=None)
    Competition.objects.exclude(standing="").update(pace_ms=20)  # the admin changed it
    settings.CARDROOM_LADDER_PACE_MS = 0

    again = ladders.standing_ladders_ensure(send=None)

    assert not any(created for _, created in again)
    assert {c.pace_ms for c in Competition.objects.exclude(standing="")} == {20}
