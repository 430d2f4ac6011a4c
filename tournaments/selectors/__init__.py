"""Reads of the competition domain, one module per sub-domain: who may see what
(:mod:`~tournaments.selectors.visibility`), challenges, where an entry stands
(:mod:`~tournaments.selectors.entries`), a bot's record across competitions
(:mod:`~tournaments.selectors.bot_records`), standings and their order
(:mod:`~tournaments.selectors.standings`, :mod:`~tournaments.selectors.ranking`),
results (crosstable, rounds, head-to-head, rating history, deals), progress, fair play
and the CSV exports. Every read is importable from this package as it was from the one
module it replaces.
"""

from tournaments.selectors.bot_records import (
    entries_of_bot,
    played_seats,
    seats_played_by,
    team_invitations_for,
    version_records,
)
from tournaments.selectors.challenges import (
    challenge_progress,
    challenges_settled_but_running,
    challenges_visible_to,
)
from tournaments.selectors.entries import entries_with_outlook, entry_outlook
from tournaments.selectors.exports import (
    COLUMN_MEANINGS,
    CROSSTABLE_COLUMNS,
    JSON_ONLY_FIELDS,
    MATCH_COLUMNS,
    STANDINGS_COLUMNS,
    crosstable_export,
    division_asked,
    download_columns,
    match_results_export,
    match_results_rows,
    results_csv,
    rows_as_csv,
    standings_export,
)
from tournaments.selectors.fair_play import (
    collusion_report_for_competition,
    collusion_watch_for_competition,
    soft_play_of_competition,
    think_alike_entries,
    think_profiles_for_competition,
)
from tournaments.selectors.progress import (
    competition_progress,
    entries_without_games,
    ladders_idle,
    rounds_complete_but_running,
    schedule_progress,
)
from tournaments.selectors.ranking import (
    apply_chain,
    finished_tables,
    knockout_order,
    standings_chain,
    swiss_order,
)
from tournaments.selectors.results import (
    CROSSTABLE_FORMATS,
    crosstable_for_competition,
    deals_verification,
    division_history_for_entry,
    head_to_head_for_competition,
    league_seasons,
    rating_history_for_entry,
    round_results,
)
from tournaments.selectors.standings import (
    STANDINGS_ORDER,
    TREND_MATCHES,
    standings_for_competition,
)
from tournaments.selectors.visibility import (
    ENDED,
    competitions_visible_to,
    full_view_allowed,
    game_seat_players,
    owned_game_seats,
    trace_readers,
)

__all__ = [
    "COLUMN_MEANINGS",
    "CROSSTABLE_COLUMNS",
    "CROSSTABLE_FORMATS",
    "ENDED",
    "JSON_ONLY_FIELDS",
    "MATCH_COLUMNS",
    "STANDINGS_COLUMNS",
    "STANDINGS_ORDER",
    "TREND_MATCHES",
    "apply_chain",
    "challenge_progress",
    "challenges_settled_but_running",
    "challenges_visible_to",
    "collusion_report_for_competition",
    "collusion_watch_for_competition",
    "competition_progress",
    "competitions_visible_to",
    "crosstable_export",
    "crosstable_for_competition",
    "deals_verification",
    "division_asked",
    "division_history_for_entry",
    "download_columns",
    "entries_of_bot",
    "entries_with_outlook",
    "entries_without_games",
    "entry_outlook",
    "finished_tables",
    "full_view_allowed",
    "game_seat_players",
    "head_to_head_for_competition",
    "knockout_order",
    "ladders_idle",
    "league_seasons",
    "match_results_export",
    "match_results_rows",
    "owned_game_seats",
    "played_seats",
    "rating_history_for_entry",
    "results_csv",
    "round_results",
    "rounds_complete_but_running",
    "rows_as_csv",
    "schedule_progress",
    "seats_played_by",
    "soft_play_of_competition",
    "standings_chain",
    "standings_export",
    "standings_for_competition",
    "swiss_order",
    "team_invitations_for",
    "think_alike_entries",
    "think_profiles_for_competition",
    "trace_readers",
    "version_records",
]
