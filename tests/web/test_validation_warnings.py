"""A validation that came close to a time budget says so where its report is shown: the
warning is marked on the bot's page, and the API gives each variant's ``budget``."""

from __future__ import annotations

import pytest

from bots.models import BotVersion
from tests.factories import logged_in, make_bot, make_user

pytestmark = pytest.mark.django_db


def report_near_the_move_limit() -> dict:
    """A passed variant whose slowest decision used 95 % of the 2 s move."""
    budget = {
        "slowest": {"game": 2, "move": 14, "charged_ms": 1_900},
        "move": {"used_ms": 1_900, "limit_ms": 2_000, "share": 0.95},
        "bank": {"used_ms": 6_000, "limit_ms": 20_000, "share": 0.3},
        "match_wall": {"used_ms": 225_000, "limit_ms": 450_000, "share": 0.5},
        "close": ["move"],
    }
    found = {"ok": True, "games": 4, "opponents": ["builtin:random"], "duration_s": 1.0,
             "reasons": [], "budget": budget}  # fmt: skip
    return {"ok": True, "variants": {"manni-basic": found}}


def test_the_bots_page_marks_the_warning_and_the_api_gives_the_budget():
    owner = make_user("close-caller")
    bot = make_bot(owner, "close-call")
    BotVersion.objects.filter(bot=bot).update(validation_report=report_near_the_move_limit())
    client = logged_in(owner)

    page = client.get(f"/bots/{bot.pk}/").content.decode()
    detail = client.get(f"/api/bots/{bot.pk}/versions/1/").json()

    warning = "manni-basic: close to its limit: its slowest decision used 95 % of the move."
    assert f"<mark>{warning}</mark>" in page
    assert "<li>manni-basic: slowest decision 1,900 ms (game 2, move 14), 95 % of" in page
    variant = detail["validation_report"]["variants"]["manni-basic"]
    assert variant["budget"]["close"] == ["move"]
    assert variant["budget"]["move"]["share"] == 0.95
