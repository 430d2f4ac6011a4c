"""Input and output shapes of the competitions API.

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

from __future__ import annotations

from typing import Any

from django.db.models import Q
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import games
from bots.models import Bot, BotVersion
from bots.referee.traces import visible_traces
from tournaments.deals import SEEDED_WARNING, commitment
from tournaments.models import (
    ORGANISED_FORMATS,
    ORGANISED_KINDS,
    Competition,
    Entry,
    GameRecord,
    Match,
    MatchSeat,
    Round,
)
from tournaments.permissions import can_manage
from tournaments.ratings.tiebreaks import STEP_LABELS
from tournaments.selectors import (
    ENDED,
    competition_progress,
    competitions_visible_to,
    full_view_allowed,
    standings_chain,
    trace_readers,
)
from tournaments.services import PLAYOFF_GAMES_MAX

BIGINT_MAX = 2**63 - 1


def _full_view(serializer: serializers.Serializer, competition: Competition) -> bool:
    """``full_view_allowed`` for the request's user, read once per competition per response."""
    cache = serializer.context.setdefault("_full_view", {})
    if competition.pk not in cache:
        cache[competition.pk] = full_view_allowed(competition=competition, user=_user(serializer))
    return cache[competition.pk]


def _user(serializer: serializers.Serializer):
    request = serializer.context.get("request")
    return getattr(request, "user", None)


# --- competitions -----------------------------------------------------------------------


class CompetitionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Competition
        fields = [
            "id",
            "name",
            "kind",
            "variant",
            "options",
            "format",
            "rounds_planned",
            "games_per_match",
            "duplicate",
            "seats_per_table",
            "playoff_games_cap",
            "move_ms",
            "bank_ms",
            "pace_ms",
            "status",
            "closed_early",
            "is_public",
            "full_replays_after_end",
            "same_owner_tables",
            "division_size",
            "promote",
            "season",
            "previous_season",
            "partnerships",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class DealsSerializer(serializers.Serializer):
    """Where the competition's deals come from, and how to check them (``tournaments.deals``)."""

    mode = serializers.ChoiceField(
        choices=["secret", "seeded"],
        help_text="`secret`: drawn from a hidden 256-bit secret, published at the end; "
        "`seeded`: from a seed its organiser chose (predictable to whoever knows it).",
    )
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 of the secret's 32 bytes, published from the start."
    )
    secret = serializers.CharField(
        allow_null=True,
        help_text="The secret, once the competition has ended, to whoever may see every "
        "hand of its games (the full-view rule): match seeds are HMAC-SHA256 of it.",
    )
    warning = serializers.CharField(allow_null=True)


def deals_view(competition: Competition, *, full_view: bool) -> dict[str, Any]:
    """The ``deals`` block of a competition: the secret only after the end, with full view."""
    if not competition.deal_secret:
        return {"mode": "seeded", "commitment": None, "secret": None, "warning": SEEDED_WARNING}
    ended = competition.status in ENDED
    return {
        "mode": "secret",
        "commitment": commitment(competition.deal_secret),
        "secret": competition.deal_secret if ended and full_view else None,
        "warning": None,
    }


class ScheduleProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Matches finished.")
    total = serializers.IntegerField(
        help_text="Matches of the whole schedule (a knockout's most); with total_known "
        "false (a ladder), the matches so far: at least this many."
    )
    total_known = serializers.BooleanField(help_text="Whether the format fixes the total.")


class CompetitionDetailSerializer(CompetitionSerializer):
    organisers = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)
    deals = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField(
        help_text="Shown once the competition is over, and to its organisers."
    )
    can_manage = serializers.SerializerMethodField(
        help_text="Whether you may start, close or otherwise change it."
    )
    progress = serializers.SerializerMethodField(
        help_text="Matches done out of the whole schedule (see the progress action)."
    )
    tiebreak_chain = serializers.SerializerMethodField(
        help_text="The steps that order the standings, in order: each later step orders "
        "only the rows level on every step before it (docs/competitions.md)."
    )
    next_season = serializers.SerializerMethodField(
        help_text="League seasons: the id of the season made from this one's end "
        "(`next-season`), if any and visible to you."
    )

    class Meta(CompetitionSerializer.Meta):
        fields = [
            *CompetitionSerializer.Meta.fields,
            "next_season",
            "organisers",
            "seed",
            "deals",
            "can_manage",
            "progress",
            "tiebreak_chain",
        ]
        read_only_fields = fields

    def get_tiebreak_chain(self, competition: Competition) -> list[str]:
        return list(standings_chain(competition))

    @extend_schema_field(ScheduleProgressSerializer)
    def get_progress(self, competition: Competition) -> dict[str, Any]:
        return competition_progress(competition=competition)["schedule"]

    def get_next_season(self, competition: Competition) -> int | None:
        following = competitions_visible_to(user=_user(self)).filter(previous_season=competition)
        return following.values_list("pk", flat=True).first()

    @extend_schema_field(DealsSerializer)
    def get_deals(self, competition: Competition) -> dict[str, Any]:
        return deals_view(competition, full_view=_full_view(self, competition))

    def get_can_manage(self, competition: Competition) -> bool:
        return can_manage(competition=competition, user=_user(self))

    def get_seed(self, competition: Competition) -> int | None:
        # Match seeds, and so every deck, follow from this seed (hidden information).
        if self.get_can_manage(competition) or _full_view(self, competition):
            return competition.seed
        return None


class CompetitionCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    kind = serializers.ChoiceField(choices=ORGANISED_KINDS)
    variant = serializers.ChoiceField(choices=games.variants())
    options = serializers.DictField(
        required=False, default=dict, help_text="Variant options by name, as in RULES.md."
    )
    format = serializers.ChoiceField(choices=ORGANISED_FORMATS)
    games_per_match = serializers.IntegerField(min_value=1, max_value=1000, default=6)
    duplicate = serializers.BooleanField(
        default=True,
        help_text="Duplicate matches play every deal once per seat rotation (any format).",
    )
    seats_per_table = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Optional: must be the variant's number of players.",
    )
    playoff_games_cap = serializers.IntegerField(
        min_value=0,
        max_value=PLAYOFF_GAMES_MAX,
        default=4,
        help_text="Knockouts: the most play-off games (on fresh deals, in sets of one deal "
        "per seat rotation when duplicate) a match level on game points and total score "
        "may take before it is decided by lot.",
    )
    move_ms = serializers.IntegerField(min_value=1, max_value=600_000, default=2_000)
    bank_ms = serializers.IntegerField(min_value=0, max_value=3_600_000, default=20_000)
    pace_ms = serializers.IntegerField(
        min_value=0,
        max_value=1_000,
        default=0,
        help_text="Pacing quantum (0: off): every turn of a game comes a whole number of "
        "quanta after the one before it, so the time between a bot's turns does not tell "
        "it how long the other bots thought (a timing channel between colluders). Costs "
        "the match up to one quantum a decision.",
    )
    rounds_planned = serializers.IntegerField(
        min_value=1, max_value=1000, required=False, allow_null=True, default=None
    )
    is_public = serializers.BooleanField(default=True)
    full_replays_after_end = serializers.BooleanField(
        default=False,
        help_text="Once the competition has ended, show every hand in its game replays "
        "(the dashboard's full view) to everyone who may watch it. Staff always see "
        "every hand, the organisers once the competition has ended.",
    )
    same_owner_tables = serializers.BooleanField(
        default=False,
        help_text="Private competitions only: let bots of one owner (or of owners linked "
        "as one person) share a table. By default pairing never seats them together "
        "(docs/fair-play.md).",
    )
    seed = serializers.IntegerField(
        min_value=0,
        max_value=BIGINT_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="Leave out (the default) to draw the deals from a secret published at the "
        "end. A chosen seed makes every deal reproducible, and predictable to whoever "
        "knows it.",
    )
    partnerships = serializers.ChoiceField(
        choices=Competition.Partnerships.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="Partnership variants only (maniglia-4-partners): rotating (the default; "
        "an entry is one bot and pairing makes new partners at every table) or fixed (an "
        "entry is a team of two bots, or of one bot at both seats of its side; round "
        "robins, league seasons and Swiss). Leave out for other variants. "
        "docs/round-robin.md.",
    )
    division_size = serializers.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        allow_null=True,
        default=None,
        help_text="League seasons: the most entries a division holds. At the start the "
        "entries, strongest by rating first, are cut into divisions whose sizes differ by "
        "at most one; left out: one division (docs/leagues.md).",
    )
    promote = serializers.IntegerField(
        min_value=0,
        max_value=1000,
        default=0,
        help_text="League seasons with divisions: how many of each division go up, and of "
        "the division above go down, into the next season.",
    )
    relegate = serializers.IntegerField(
        min_value=0,
        max_value=1000,
        required=False,
        allow_null=True,
        default=None,
        help_text="Optional: must equal `promote` (division sizes stay from season to season).",
    )


class EntryDivisionSerializer(serializers.Serializer):
    division = serializers.IntegerField(
        min_value=0, max_value=1000, help_text="The division to move to: 0 is the top one."
    )


class NextSeasonSerializer(serializers.Serializer):
    """The next season of a finished league season; everything else is carried over."""

    name = serializers.CharField(
        max_length=120,
        required=False,
        allow_null=True,
        default=None,
        help_text="Left out: the league's name with the season's number.",
    )
    promote = serializers.IntegerField(
        min_value=0,
        max_value=1000,
        required=False,
        allow_null=True,
        default=None,
        help_text="How many go up from each division and down from the one above; left "
        "out: the finished season's `promote`. The next season keeps it.",
    )


class SeasonSerializer(serializers.Serializer):
    """One season of an entry's league: where its bot played and how it ended."""

    competition = serializers.IntegerField()
    name = serializers.CharField()
    season = serializers.IntegerField(help_text="1 for the league's first season.")
    status = serializers.CharField()
    entry = serializers.IntegerField(help_text="The bot's entry in that season.")
    division = serializers.IntegerField(
        allow_null=True, help_text="0 for the top division; null outside league seasons."
    )
    rank = serializers.IntegerField(help_text="Its place within the division.")
    move = serializers.ChoiceField(
        choices=["up", "down"],
        allow_null=True,
        help_text="Whether it went (or, unfinished, stands to go) up or down.",
    )


class CompetitionUpdateSerializer(serializers.Serializer):
    """PATCH: what organisers may change at any time; any other field is refused."""

    name = serializers.CharField(max_length=120, required=False)
    is_public = serializers.BooleanField(required=False)
    full_replays_after_end = serializers.BooleanField(
        required=False,
        help_text="Once it has ended, show every hand of its games to everyone who may "
        "watch it (replays and game records).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = set(self.initial_data) - set(self.fields)
        if unknown:
            raise serializers.ValidationError(
                {name: "cannot be changed after creation" for name in sorted(unknown)}
            )
        return attrs


# --- entries ----------------------------------------------------------------------------


class BotSummarySerializer(serializers.ModelSerializer):
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "name", "owner", "builtin"]
        read_only_fields = fields


class EntrySerializer(serializers.ModelSerializer):
    bot = BotSummarySerializer(read_only=True)
    partner = BotSummarySerializer(
        read_only=True,
        allow_null=True,
        help_text="Fixed teams: the team's second bot (the bot itself when it plays both "
        "seats of its side); null in other competitions.",
    )
    name = serializers.CharField(
        read_only=True, help_text="The bot, or a team's two bots joined by ' & '."
    )
    pinned_version = serializers.SlugRelatedField(slug_field="number", read_only=True)

    class Meta:
        model = Entry
        fields = [
            "id",
            "competition",
            "bot",
            "partner",
            "name",
            "pinned_version",
            "seed_order",
            "division",
            "mu",
            "sigma",
            "games",
            "points",
            "withdrawn",
            "created_at",
        ]
        read_only_fields = fields


class EntryCreateSerializer(serializers.Serializer):
    """Enter a bot: your own, a built-in one, or any for staff; pin a version if you like."""

    competition = serializers.PrimaryKeyRelatedField(queryset=Competition.objects.none())
    bot = serializers.PrimaryKeyRelatedField(queryset=Bot.objects.none())
    pinned_version = serializers.PrimaryKeyRelatedField(
        queryset=BotVersion.objects.none(),
        required=False,
        allow_null=True,
        default=None,
        help_text="A version id of the bot; without one the newest ready version plays.",
    )
    partner = serializers.PrimaryKeyRelatedField(
        queryset=Bot.objects.none(),
        required=False,
        allow_null=True,
        default=None,
        help_text="Competitions of fixed teams only: the team's second bot, at the second "
        "seat of its side (leave out: the bot plays both seats). It plays its newest ready "
        "version (or the one its owner pins).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        user = _user(self)
        if user is None or not user.is_authenticated:
            return
        bots = Bot.objects.all()
        if not user.is_staff:
            bots = bots.filter(Q(owner=user) | ~Q(builtin=""))
        self.fields["competition"].queryset = competitions_visible_to(user=user)
        self.fields["bot"].queryset = bots
        self.fields["partner"].queryset = bots
        self.fields["pinned_version"].queryset = BotVersion.objects.filter(bot__in=bots)


class RatingPointSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    sequence = serializers.IntegerField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating = serializers.FloatField(help_text="mu - 3 sigma, the displayed rating.")
    at = serializers.DateTimeField()


# --- rounds, matches, games --------------------------------------------------------------


class RoundSerializer(serializers.ModelSerializer):
    byes = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Round
        fields = ["id", "competition", "number", "status", "byes"]
        read_only_fields = fields


class MatchSeatSerializer(serializers.ModelSerializer):
    bot = serializers.SerializerMethodField()
    version = serializers.SlugRelatedField(slug_field="number", read_only=True)
    log = serializers.SerializerMethodField(
        help_text="The bot's stderr: to its owner and staff, once the match is done."
    )

    class Meta:
        model = MatchSeat
        fields = [
            "seat",
            "entry",
            "bot",
            "version",
            "score",
            "points",
            "rank",
            "wins",
            "statuses",
            "log",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "seat": {"help_text": "The protocol's seat index, from 0 (the site shows seat + 1)."}
        }

    def get_bot(self, seat: MatchSeat) -> str:
        return str(seat.entry.bot_at(seat.seat))  # a team's partner at its second seat

    def get_log(self, seat: MatchSeat) -> str | None:
        user = _user(self)
        done = seat.match.status == Match.Status.DONE
        owner = seat.entry.bot_at(seat.seat).owner_id
        if done and user is not None and (user.is_staff or owner == user.pk):
            return seat.log
        return None


class MatchSerializer(serializers.ModelSerializer):
    round = serializers.SlugRelatedField(slug_field="number", read_only=True)
    seats = MatchSeatSerializer(many=True, read_only=True)
    seed = serializers.SerializerMethodField(help_text="Shown once the match is done.")
    games = serializers.SerializerMethodField(help_text="Number of stored game records.")

    class Meta:
        model = Match
        fields = [
            "id",
            "competition",
            "round",
            "table",
            "node",
            "status",
            "decided_by",
            "seed",
            "seats",
            "games",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_seed(self, match: Match) -> int | None:
        # The decks follow from the seed: every hand of the match (the full-view rule).
        if match.status == Match.Status.DONE and _full_view(self, match.competition):
            return match.seed
        return None

    def get_games(self, match: Match) -> int:
        if match.status != Match.Status.DONE:
            return 0
        return len(match.game_records.all())


class GameRecordSerializer(serializers.ModelSerializer):
    class Meta:
        model = GameRecord
        fields = ["id", "match", "index", "playoff", "scores", "ranking", "statuses"]
        read_only_fields = fields


#: Keys of a game record that reveal every hand (see ``full_view_allowed``).
HIDDEN_RECORD_KEYS = ("seed", "decks")


class GameRecordDetailSerializer(GameRecordSerializer):
    record = serializers.SerializerMethodField(
        help_text="The replayable record: variant, options, seed, dealer, decks, actions, "
        "and the decision traces (bots/referee/traces.py): their stderr only to the seat's "
        "owner and staff, their notes also to everyone with the full view once the "
        "competition has ended. Without seed and decks (every hand) unless `full` is true."
    )
    full = serializers.SerializerMethodField(
        help_text="Whether the record holds every hand: staff at any time; the "
        "organisers once the competition has ended; everyone once it has ended if "
        "the organisers allow full replays."
    )

    class Meta(GameRecordSerializer.Meta):
        fields = [*GameRecordSerializer.Meta.fields, "full", "record"]
        read_only_fields = fields

    def get_full(self, game: GameRecord) -> bool:
        return _full_view(self, game.match.competition)

    def get_record(self, game: GameRecord) -> dict[str, Any]:
        record = game.record()
        if "traces" in record:
            # Decision stderr and notes only to whom ``trace_readers`` names.
            stderr_seats, note_seats = trace_readers(game=game, record=record, user=_user(self))
            record["traces"] = visible_traces(
                record["traces"], stderr_seats=stderr_seats, note_seats=note_seats
            )
        if self.get_full(game):
            return record
        return {k: v for k, v in record.items() if k not in HIDDEN_RECORD_KEYS}


class LiveGameSeatSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The bot at this seat.")
    score = serializers.IntegerField()
    rank = serializers.IntegerField()
    fault = serializers.BooleanField()
    status = serializers.CharField(help_text="How the game ended for this seat, in words.")
    reason = serializers.CharField()


class LiveGameSummarySerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="From 1.")
    playoff = serializers.IntegerField(help_text="0, or the play-off set of a level knockout.")
    seats = LiveGameSeatSerializer(many=True)


class LiveMoveSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The step (1 for the first move).")
    actor = serializers.IntegerField(allow_null=True, help_text="The seat that moved.")
    action = serializers.CharField(help_text="As the other seats see it (a discard is hidden).")


class LiveGameSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    over = serializers.BooleanField(help_text="Whether the game is finished.")
    names = serializers.ListField(child=serializers.CharField(), help_text="Bot per seat.")
    moves = LiveMoveSerializer(many=True)
    view = serializers.DictField(help_text="The public view after the last move.")


class LiveMatchSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    status = serializers.CharField()
    games = LiveGameSummarySerializer(many=True, help_text="The games finished so far.")
    current = serializers.IntegerField(
        allow_null=True, help_text="The number of the game being played; null unless running."
    )
    game = LiveGameSerializer(allow_null=True, help_text="The game asked for, or the current one.")


# --- results ----------------------------------------------------------------------------


class MatchResultSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(
        help_text="The protocol's seat index, from 0 (the site shows seat + 1)."
    )
    bot = serializers.CharField()
    owner = serializers.CharField(help_text='The owner\'s username; "built-in" for ours.')
    rank = serializers.IntegerField(allow_null=True, help_text="1 = first.")
    score = serializers.FloatField(allow_null=True)
    points = serializers.FloatField(allow_null=True, help_text="Game points of the match.")
    entry = serializers.IntegerField()


class MatchResultSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True)
    table = serializers.IntegerField()
    node = serializers.CharField(help_text="The bracket node of a knockout match; else empty.")
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = MatchResultSeatSerializer(many=True)


class RoundSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(
        help_text="The protocol's seat index, from 0 (the site shows seat + 1)."
    )
    entry = serializers.IntegerField()
    name = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True, help_text="1 = first; null until done.")
    score = serializers.FloatField(allow_null=True)
    points = serializers.FloatField(allow_null=True, help_text="Game points of the match.")


class RoundTableSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    table = serializers.IntegerField(help_text="The table's index in its round, from 0.")
    node = serializers.CharField(help_text="The bracket node of a knockout match; else empty.")
    status = serializers.CharField()
    seats = RoundSeatSerializer(many=True)


class RoundByeSerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    name = serializers.CharField()


class RoundResultsSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    byes = RoundByeSerializer(many=True)
    matches = RoundTableSerializer(many=True, help_text="Every table of the round.")


class CrosstableEntrySerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    name = serializers.CharField()
    rank = serializers.IntegerField()
    shared = serializers.BooleanField()
    points = serializers.FloatField()


class CrosstableCellSerializer(serializers.Serializer):
    opponent = serializers.IntegerField()
    meetings = serializers.IntegerField(help_text="Finished tables the two shared.")
    results = serializers.ListField(
        child=serializers.FloatField(),
        help_text="The row entry's pairwise points against the opponent at each of them, "
        "in playing order: 1 ahead, 0.5 level, 0 behind.",
    )
    score = serializers.FloatField(allow_null=True, help_text="Their sum; null before they met.")


class CrosstableRowSerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    cells = CrosstableCellSerializer(
        many=True, help_text="One per entry, in the order of `entries`: this row's results."
    )


class CrosstableSerializer(serializers.Serializer):
    entries = CrosstableEntrySerializer(
        many=True, help_text="Rows and columns, in standings order."
    )
    rows = CrosstableRowSerializer(many=True)


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        help_text="Place in the table, 1 = top; rows no tie-break separates share it (1, 2, 2, 4)."
    )
    shared = serializers.BooleanField(
        required=False, help_text="Whether another row has the same rank (shown 2=)."
    )
    separated_by = serializers.ChoiceField(
        choices=sorted(STEP_LABELS),
        required=False,
        allow_null=True,
        help_text="The step of the competition's tie-break chain (`tiebreak_chain`) that put "
        "this row below the row above: points, head_to_head, sonneborn_berger, buchholz, "
        "median_buchholz, score, rating or placement; null for the first row and for a "
        "row sharing the rank above. docs/competitions.md.",
    )
    entry = serializers.IntegerField()
    bot = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.FloatField(help_text="mu - 3 sigma.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    points = serializers.FloatField()
    withdrawn = serializers.BooleanField()
    disqualified = serializers.BooleanField(
        help_text="Withdrawn by the organisers for unfair play (docs/fair-play.md)."
    )
    trend = serializers.FloatField(
        allow_null=True,
        help_text="Change of the rating over the entry's last 5 rated matches; null if unrated.",
    )
    tiebreaks = serializers.DictField(
        child=serializers.FloatField(),
        required=False,
        help_text="Swiss: buchholz, median_buchholz, sonneborn_berger, head_to_head. Round "
        "robins: head_to_head (points against the others level with it when that step "
        "was applied), then sonneborn_berger, or score (the duplicate score) for duplicate "
        "matches.",
    )
    rating_low = serializers.FloatField(
        help_text="Lower end of the 95 % interval of the skill mu: mu - 1.96 sigma."
    )
    rating_high = serializers.FloatField(help_text="Upper end of it: mu + 1.96 sigma.")
    p_above_next = serializers.FloatField(
        allow_null=True,
        help_text="The rating model's probability that this entry is stronger than the one "
        "ranked below it; null for the last row. See docs/ratings.md.",
    )
    division = serializers.IntegerField(
        allow_null=True,
        help_text="League seasons: the entry's division, 0 the top one (the pages say "
        "Division 1); rows come division by division and `rank` is the place within it. "
        "Null for other competitions.",
    )
    move = serializers.ChoiceField(
        choices=["up", "down"],
        allow_null=True,
        help_text="League seasons: `up` for a promotion place (the top `promote` of a "
        "division below the first), `down` for a relegation place (the bottom `promote` "
        "of a division above the last); final once the season has finished.",
    )
    order = serializers.ChoiceField(
        choices=["points", "swiss", "placement", "rating"],
        help_text="What orders the table: points (round robins), swiss (points and "
        "tie-breaks), placement (knockouts), rating (ladders). docs/competitions.md.",
    )
    duplicate = serializers.BooleanField(
        help_text="Whether the matches are duplicate: every deal once per seat rotation."
    )
    eliminated_round = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Knockouts: the schedule round of the entry's last table if it is out "
        "(the final for the runner-up); null for the champion and entries still in.",
    )
    eliminated_at = serializers.CharField(
        required=False, allow_null=True, help_text="Knockouts: that table's bracket node."
    )


class HeadToHeadSerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    name = serializers.CharField()
    opponent = serializers.IntegerField()
    opponent_name = serializers.CharField()
    matches = serializers.IntegerField()
    ahead = serializers.IntegerField(help_text="Matches the entry finished ahead of the opponent.")
    behind = serializers.IntegerField()
    level = serializers.IntegerField()
    games = serializers.IntegerField(help_text="Games the two played at one table.")
    score = serializers.FloatField(
        help_text="The entry's points over those games: 1 ahead, 1/2 level, 0 behind."
    )
    opponent_score = serializers.FloatField()
    trial = serializers.CharField(
        help_text="What one trial of the test is: a deal at every seat rotation (duplicate "
        "matches) or a match."
    )
    trials = serializers.IntegerField()
    trials_won = serializers.IntegerField()
    trials_lost = serializers.IntegerField()
    trials_level = serializers.IntegerField()
    p_value = serializers.FloatField(
        help_text="Two-sided sign test of trials won against lost (level ones left out)."
    )


class ProgressSerializer(serializers.Serializer):
    pending = serializers.IntegerField()
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    done = serializers.IntegerField()
    failed = serializers.IntegerField()
    total = serializers.IntegerField()
    games = serializers.IntegerField()
    competition = serializers.CharField(help_text="The competition's status.")
    schedule = ScheduleProgressSerializer(help_text="Matches done out of the whole schedule.")


class CollusionEntrySerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    name = serializers.CharField()


class SoftPlaySerializer(serializers.Serializer):
    """One direction of a pair's soft play (``tournaments.ratings.soft_play``): the
    chances the giver had to take a trick the other was winning, and how many it let go,
    against its chances with the other seats at the same tables."""

    chances = serializers.IntegerField()
    let_go = serializers.IntegerField()
    rate = serializers.FloatField(allow_null=True)
    chances_others = serializers.IntegerField()
    let_go_others = serializers.IntegerField()
    rate_others = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(help_text="One-sided, uncorrected.")


class SoftPlayPairSerializer(serializers.Serializer):
    a_to_b = SoftPlaySerializer(allow_null=True, help_text="a's chances against b.")
    b_to_a = SoftPlaySerializer(allow_null=True, help_text="b's chances against a.")


class CollusionPairSerializer(serializers.Serializer):
    """One pair of the collusion report (docs/fair-play.md): scores are shares of the
    comparisons with opponents won (0..1)."""

    a = CollusionEntrySerializer()
    b = CollusionEntrySerializer()
    tables_together = serializers.IntegerField()
    a_together = serializers.FloatField()
    a_apart = serializers.FloatField()
    b_together = serializers.FloatField()
    b_apart = serializers.FloatField()
    others_together = serializers.FloatField(
        help_text="The other seats' score at the pair's tables."
    )
    others_elsewhere = serializers.FloatField(help_text="The same seats' usual score.")
    together = serializers.FloatField(help_text="The pair's share of comparisons with the others.")
    expected = serializers.FloatField(help_text="The mean of the two scores apart.")
    effect = serializers.FloatField()
    se = serializers.FloatField()
    z = serializers.FloatField()
    p = serializers.FloatField()
    p_adjusted = serializers.FloatField(help_text="Holm-corrected for the pairs tested.")
    flagged = serializers.BooleanField()
    kept_apart = serializers.BooleanField()
    disqualified = serializers.ListField(child=serializers.IntegerField())
    soft_play = SoftPlayPairSerializer(
        help_text="Tricks each let the other take (null for games without tricks)."
    )


class CollusionReportSerializer(serializers.Serializer):
    competition = serializers.IntegerField()
    tables = serializers.IntegerField()
    min_tables = serializers.IntegerField()
    alpha = serializers.FloatField()
    same_owner_tables = serializers.BooleanField()
    flagged = serializers.IntegerField()
    pairs = CollusionPairSerializer(many=True)


class KeepApartSerializer(serializers.Serializer):
    entry = serializers.IntegerField(help_text="An entry of this competition.")
    other = serializers.IntegerField(help_text="Another entry of this competition.")
