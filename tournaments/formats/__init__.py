"""Tournament formats: pure, deterministic pairing, brackets, ladders and leagues.

No web or task framework here; inputs are explicit and outputs depend only
on them (randomness comes from :mod:`games.rng` keyed by a seed).
"""

from tournaments.formats.common import Entry, Round, Table, TableResult, partner_table
from tournaments.formats.elimination import (
    Bracket,
    double_elimination,
    layout,
    seed_order,
    single_elimination,
)
from tournaments.formats.ladder import LadderEntry, ladder_tables
from tournaments.formats.league import league_divisions, league_next_season, league_schedule
from tournaments.formats.round_robin import round_robin
from tournaments.formats.swiss import StandingRow, swiss_pair, swiss_standings

__all__ = [
    "Bracket",
    "Entry",
    "LadderEntry",
    "Round",
    "StandingRow",
    "Table",
    "TableResult",
    "double_elimination",
    "ladder_tables",
    "layout",
    "league_divisions",
    "league_next_season",
    "league_schedule",
    "partner_table",
    "round_robin",
    "seed_order",
    "single_elimination",
    "swiss_pair",
    "swiss_standings",
]
