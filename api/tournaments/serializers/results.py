"""Serializers of results: a round's tables and byes, the crosstable, the standings,
head-to-head and progress."""

from __future__ import annotations

from rest_framework import serializers

from api.tournaments.serializers.competitions import ScheduleProgressSerializer
from tournaments.ratings.tiebreaks import STEP_LABELS


class MatchResultSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(
        help_text="The protocol's seat index, from 0 (the site shows seat + 1)."
    )
    seat_number = serializers.IntegerField(help_text="The seat from 1, as the pages number it.")
    bot = serializers.CharField()
    owner = serializers.CharField(help_text='The owner\'s username; "built-in" for ours.')
    rank = serializers.IntegerField(allow_null=True, help_text="1 = first.")
    place = serializers.IntegerField(
        allow_null=True, help_text="The seat's place in the match, 1 = first: `rank` again."
    )
    score = serializers.FloatField(allow_null=True)
    points = serializers.FloatField(allow_null=True, help_text="Game points of the match.")
    game_points = serializers.FloatField(
        allow_null=True,
        help_text="Game points of the match (`points` again, under the downloads' name): "
        "per game 1 for each opponent beaten, 1/2 for each level.",
    )
    entry = serializers.IntegerField()


class MatchResultSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True, help_text="The round, from 1.")
    table = serializers.IntegerField(help_text="The table's index in its round, from 0.")
    table_number = serializers.IntegerField(
        help_text="The table from 1, as the pages number it (`table` + 1)."
    )
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
    division = serializers.IntegerField(
        allow_null=True, help_text="League seasons: the division, 0 the top one; else null."
    )
    division_number = serializers.IntegerField(
        allow_null=True,
        help_text="League seasons: the division from 1, as the pages say Division 1; else null.",
    )


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
    division_number = serializers.IntegerField(
        allow_null=True,
        help_text="League seasons: the entry's division from 1, as the pages and the CSV "
        "downloads count it (`division` + 1); null for other competitions.",
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
