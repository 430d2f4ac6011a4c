"""Serializers of competitions: the list and the detail, creation and changes, seasons,
the deals' commitment and a place in the queue."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import games
from tournaments.integrity.deals import SEEDED_WARNING, commitment
from tournaments.models import (
    ORGANISED_FORMATS,
    ORGANISED_KINDS,
    Competition,
)
from tournaments.permissions import can_manage
from tournaments.selectors import (
    ENDED,
    competition_progress,
    competitions_visible_to,
    full_view_allowed,
    standings_chain,
)
from tournaments.services import PLAYOFF_GAMES_MAX

BIGINT_MAX = 2**63 - 1


def full_view_for(serializer: serializers.Serializer, competition: Competition) -> bool:
    """``full_view_allowed`` for the request's user, read once per competition per response."""
    cache = serializer.context.setdefault("_full_view", {})
    if competition.pk not in cache:
        cache[competition.pk] = full_view_allowed(
            competition=competition, user=request_user(serializer)
        )
    return cache[competition.pk]


def request_user(serializer: serializers.Serializer):
    request = serializer.context.get("request")
    return getattr(request, "user", None)


class QueuePlaceSerializer(serializers.Serializer):
    """Where work that waits for a worker stands (``bots.waiting.Place``)."""

    position = serializers.IntegerField(help_text="1: it is next.")
    ahead = serializers.IntegerField(help_text="Pieces of work before it.")
    estimated_start_s = serializers.FloatField(help_text="About how many seconds until it starts.")
    resumed = serializers.BooleanField(
        help_text="True if a worker that stopped (killed, restarted) had started it and it "
        'waits again: its page says "resumed after a restart".'
    )


class CompetitionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    seeding_seed = serializers.SerializerMethodField(
        help_text="League seasons seeded at random: the seed of the shuffle that cut the "
        "first divisions, once the season has started (to its organisers from the "
        "creation: an entrant who knew it could time an entry into Division 1)."
    )

    def get_seeding_seed(self, competition: Competition) -> int | None:
        if competition.status == Competition.Status.DRAFT:
            return None
        return competition.seeding_seed

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
            "seeding",
            "seeding_seed",
            "promotion_applies",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class DealsSerializer(serializers.Serializer):
    """Where the competition's deals come from, and how to check them
    (``tournaments.integrity.deals``)."""

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
        following = competitions_visible_to(user=request_user(self)).filter(
            previous_season=competition
        )
        return following.values_list("pk", flat=True).first()

    @extend_schema_field(DealsSerializer)
    def get_deals(self, competition: Competition) -> dict[str, Any]:
        return deals_view(competition, full_view=full_view_for(self, competition))

    def get_can_manage(self, competition: Competition) -> bool:
        return can_manage(competition=competition, user=request_user(self))

    def get_seeding_seed(self, competition: Competition) -> int | None:
        if self.get_can_manage(competition):
            return competition.seeding_seed
        return super().get_seeding_seed(competition)

    def get_seed(self, competition: Competition) -> int | None:
        # Match seeds, and so every deck, follow from this seed (hidden information).
        if self.get_can_manage(competition) or full_view_for(self, competition):
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
        help_text="League seasons: the most entries a division holds, at least one table "
        "(the seats, or 2 teams with fixed teams). At the start the entries, in the order "
        "of the `seeding`, are cut into divisions whose sizes differ by at most one; left "
        "out: one division (docs/leagues.md).",
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
    seeding = serializers.ChoiceField(
        choices=Competition.Seeding.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="League seasons: the order a first season's entries are cut into "
        "divisions in: `rating` (the default; strongest first), `manual` (the order its "
        "organisers give: `POST /api/competitions/<id>/seeding/`) or `random` (shuffled "
        "from `seeding_seed`, drawn at the start if left out, and recorded).",
    )
    seeding_seed = serializers.IntegerField(
        min_value=0,
        max_value=BIGINT_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="Random seeding only: the seed of the shuffle (the same entries and seed "
        "give the same divisions).",
    )


class SeedingSerializer(serializers.Serializer):
    """A first league season's order, seeded by hand."""

    order = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=BIGINT_MAX),
        max_length=10_000,
        help_text="Every entry id of the draft once, the first cut into Division 1 first.",
    )


class OptionalBooleanField(serializers.BooleanField):
    """A boolean that may be left out, in JSON and in a form alike (None then)."""

    default_empty_html = serializers.empty


class CloseSerializer(serializers.Serializer):
    apply_promotion = OptionalBooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="League seasons closed before their schedule ended: whether the standings "
        "so far move entries up and down into the next season. Required there (a 400 "
        "naming it, and the entries that played no game, when left out); refused for "
        "other kinds.",
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


class KeepApartSerializer(serializers.Serializer):
    entry = serializers.IntegerField(help_text="An entry of this competition.")
    other = serializers.IntegerField(help_text="Another entry of this competition.")
