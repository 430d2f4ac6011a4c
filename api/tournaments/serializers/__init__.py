"""Input and output shapes of the competitions API, one module per resource:
competitions, entries, matches (rounds, matches, games, a match watched live), results
(standings, crosstable, rounds' results, head-to-head) and the fair-play reports.

Hidden information never leaves through these shapes. Every hand of a game
(a game record's decks, and the match and competition seeds they follow from)
is shown by the rule of the replay viewer's full view
(``tournaments.selectors.full_view_allowed``): to staff at any time, to the
organisers once the competition has ended, to everyone once it has ended if the
organisers allow full replays; organisers also see the seed they chose. A
seat's log goes only to the bot's owner and staff once the match is done, and
game records only of done matches (the views see to that). A record's decision
traces keep their stderr and notes only for those ``trace_readers`` names.
"""

from api.tournaments.serializers.competitions import (
    BIGINT_MAX,
    CloseSerializer,
    CompetitionCreateSerializer,
    CompetitionDetailSerializer,
    CompetitionSerializer,
    CompetitionUpdateSerializer,
    DealsSerializer,
    EntryDivisionSerializer,
    KeepApartSerializer,
    NextSeasonSerializer,
    QueuePlaceSerializer,
    ScheduleProgressSerializer,
    SeasonSerializer,
    SeedingSerializer,
    deals_view,
    full_view_for,
    request_user,
)
from api.tournaments.serializers.entries import (
    BotSummarySerializer,
    EntryCreateSerializer,
    EntrySerializer,
    RatingPointSerializer,
)
from api.tournaments.serializers.fair_play import (
    CollusionEntrySerializer,
    CollusionPairSerializer,
    CollusionReportSerializer,
    SoftPlayPairSerializer,
    SoftPlaySerializer,
)
from api.tournaments.serializers.matches import (
    HIDDEN_RECORD_KEYS,
    GameRecordDetailSerializer,
    GameRecordSerializer,
    LiveGameSeatSerializer,
    LiveGameSerializer,
    LiveGameSummarySerializer,
    LiveMatchSerializer,
    LiveMoveSerializer,
    MatchSeatSerializer,
    MatchSerializer,
    RoundSerializer,
)
from api.tournaments.serializers.results import (
    CrosstableCellSerializer,
    CrosstableEntrySerializer,
    CrosstableRowSerializer,
    CrosstableSerializer,
    HeadToHeadSerializer,
    MatchResultSeatSerializer,
    MatchResultSerializer,
    ProgressSerializer,
    RoundByeSerializer,
    RoundResultsSerializer,
    RoundSeatSerializer,
    RoundTableSerializer,
    StandingSerializer,
)

__all__ = [
    "BIGINT_MAX",
    "HIDDEN_RECORD_KEYS",
    "BotSummarySerializer",
    "CloseSerializer",
    "CollusionEntrySerializer",
    "CollusionPairSerializer",
    "CollusionReportSerializer",
    "CompetitionCreateSerializer",
    "CompetitionDetailSerializer",
    "CompetitionSerializer",
    "CompetitionUpdateSerializer",
    "CrosstableCellSerializer",
    "CrosstableEntrySerializer",
    "CrosstableRowSerializer",
    "CrosstableSerializer",
    "DealsSerializer",
    "EntryCreateSerializer",
    "EntryDivisionSerializer",
    "EntrySerializer",
    "GameRecordDetailSerializer",
    "GameRecordSerializer",
    "HeadToHeadSerializer",
    "KeepApartSerializer",
    "LiveGameSeatSerializer",
    "LiveGameSerializer",
    "LiveGameSummarySerializer",
    "LiveMatchSerializer",
    "LiveMoveSerializer",
    "MatchResultSeatSerializer",
    "MatchResultSerializer",
    "MatchSeatSerializer",
    "MatchSerializer",
    "NextSeasonSerializer",
    "ProgressSerializer",
    "QueuePlaceSerializer",
    "RatingPointSerializer",
    "RoundByeSerializer",
    "RoundResultsSerializer",
    "RoundSeatSerializer",
    "RoundSerializer",
    "RoundTableSerializer",
    "ScheduleProgressSerializer",
    "SeasonSerializer",
    "SeedingSerializer",
    "SoftPlayPairSerializer",
    "SoftPlaySerializer",
    "StandingSerializer",
    "deals_view",
    "full_view_for",
    "request_user",
]
