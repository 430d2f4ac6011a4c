"""Rating math and standings arithmetic: plain Python, no web or task framework.

``skill`` rates games with openskill's Plackett-Luce model (displayed rating
``mu - 3 * sigma``); ``standings`` adds up points, wins and head-to-head.
"""

from tournaments.ratings.skill import (
    DEFAULT_WIDEN,
    INITIAL_MU,
    INITIAL_SIGMA,
    PARTNER_SEATS,
    Inheritance,
    RatedGame,
    Rating,
    apply_event,
    display_rating,
    inherit,
    rate_game,
    recompute,
    update_key,
)
from tournaments.ratings.standings import (
    HeadToHead,
    HeadToHeadTable,
    TableResult,
    Tally,
    head_to_head,
    pair_score,
    ranks_from_scores,
    table_points,
    tally,
)

__all__ = [
    "DEFAULT_WIDEN",
    "INITIAL_MU",
    "INITIAL_SIGMA",
    "PARTNER_SEATS",
    "HeadToHead",
    "HeadToHeadTable",
    "Inheritance",
    "RatedGame",
    "Rating",
    "TableResult",
    "Tally",
    "apply_event",
    "display_rating",
    "head_to_head",
    "inherit",
    "pair_score",
    "ranks_from_scores",
    "rate_game",
    "recompute",
    "table_points",
    "tally",
    "update_key",
]
