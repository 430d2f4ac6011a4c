"""Writes of the competition domain: create, enter, start, pair, record, close.

Every entry point (API, organise pages, admin, commands, Celery tasks) calls these
functions, one call per write. User errors raise
``django.core.exceptions.ValidationError`` with a message naming the problem; state
changes are guarded by row locks so that a second call (a retry, a redelivered task)
never changes anything twice.

One module per sub-domain; this package's names are its interface:

- :mod:`~tournaments.services.competitions`: create and update, the settings checked.
- :mod:`~tournaments.services.lifecycle`: start, pause, resume, close, retry a match.
- :mod:`~tournaments.services.entries`: enter, withdraw, remove, disqualify, exclusions.
- :mod:`~tournaments.services.leagues`: divisions and the next season.
- :mod:`~tournaments.services.rounds`: pairing, closing a round, pairing ahead.
- :mod:`~tournaments.services.results`: the result model and the ranks it records.
- :mod:`~tournaments.services.record` and :mod:`~tournaments.services.rating`:
  storing a result once, with its rating update, and closing what it completed
  (:func:`~tournaments.services.record.match_record`, the one door for every result).
- :mod:`~tournaments.services.play`: playing a match through the referee.
- :mod:`~tournaments.services.queue`: queuing matches for the workers. The services
  that pair or free matches (start, resume, retry, a round's closing, a ladder's
  batch) queue them themselves, once their transaction commits; their ``send``
  parameter is the sender (None leaves the matches pending, for a caller that plays
  them itself).
"""

from tournaments.services.competitions import (
    COMPETITION_UPDATABLE,
    KIND_FORMATS,
    KNOCKOUTS,
    PLAYOFF_GAMES_MAX,
    TEAM_FORMATS,
    competition_create,
    competition_update,
    is_partnership,
)
from tournaments.services.entries import (
    entries_open_statuses,
    entry_create,
    entry_disqualify,
    entry_partner_accept,
    entry_partner_decline,
    entry_remove,
    entry_withdraw,
    table_exclusion_create,
)
from tournaments.services.leagues import (
    entry_move_division,
    entry_seed_move,
    league_assign_divisions,
    league_next_season,
    league_seed_order,
)
from tournaments.services.lifecycle import (
    challenge_close_if_settled,
    competition_close,
    competition_pause,
    competition_resume,
    competition_start,
    match_retry,
)
from tournaments.services.play import match_play, match_wall_ms
from tournaments.services.record import is_rated, match_record
from tournaments.services.results import (
    ClaimedSeat,
    PlayedMatch,
    PlayoffGame,
    Recording,
    match_decision,
    match_ranks,
)
from tournaments.services.rounds import (
    PAIRED_AHEAD,
    RoundClosing,
    ladder_pair_batch,
    match_seed,
    round_close_if_complete,
    round_pair_ahead,
)

__all__ = [
    "COMPETITION_UPDATABLE",
    "KIND_FORMATS",
    "KNOCKOUTS",
    "PAIRED_AHEAD",
    "PLAYOFF_GAMES_MAX",
    "TEAM_FORMATS",
    "ClaimedSeat",
    "PlayedMatch",
    "PlayoffGame",
    "Recording",
    "RoundClosing",
    "challenge_close_if_settled",
    "competition_close",
    "competition_create",
    "competition_pause",
    "competition_resume",
    "competition_start",
    "competition_update",
    "entries_open_statuses",
    "entry_create",
    "entry_disqualify",
    "entry_move_division",
    "entry_partner_accept",
    "entry_partner_decline",
    "entry_remove",
    "entry_seed_move",
    "entry_withdraw",
    "is_partnership",
    "is_rated",
    "ladder_pair_batch",
    "league_assign_divisions",
    "league_next_season",
    "league_seed_order",
    "match_decision",
    "match_play",
    "match_ranks",
    "match_record",
    "match_retry",
    "match_seed",
    "match_wall_ms",
    "round_close_if_complete",
    "round_pair_ahead",
    "table_exclusion_create",
]
