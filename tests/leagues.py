"""A club's league season of house bots, as the league tests build it (docs/leagues.md)."""

from __future__ import annotations

from collections.abc import Callable

from bots.models import Bot
from tournaments import services
from tournaments.models import Competition


def league_season(
    organiser,
    *,
    entries: int,
    division_size: int,
    builtin: Callable[[int], str] = lambda i: "random",
) -> Competition:
    """A draft money-jordan league season, round robins of two-game matches in divisions
    of ``division_size``, one up and one down, with ``entries`` house bots ``house-0``...
    (``builtin(i)``: the built-in of the i-th)."""
    season = services.competition_create(
        created_by=organiser,
        name="Club league",
        kind="league-season",
        variant="money-jordan",
        format="round-robin",
        games_per_match=2,
        division_size=division_size,
        promote=1,
    )
    for i in range(entries):
        bot = Bot.objects.create(name=f"house-{i}", builtin=builtin(i))
        services.entry_create(competition=season, bot=bot)
    return season
