"""A competition and its entries."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models

from bots.models import Bot, BotVersion
from tournaments.formats.common import PARTNER_TABLE_SIZE


class Competition(models.Model):
    """A league season, a tournament or a ladder for one variant and option set."""

    class Kind(models.TextChoices):
        LEAGUE_SEASON = "league-season"
        TOURNAMENT = "tournament"
        LADDER = "ladder"
        #: The hidden competition of one challenge (``tournaments.services.challenges``): never
        #: listed, rated or ranked; its matches are seen by the owners of its bots.
        CHALLENGE = "challenge"

    class Format(models.TextChoices):
        ROUND_ROBIN = "round-robin"
        DOUBLE_ROUND_ROBIN = "double-round-robin"
        SWISS = "swiss"
        SINGLE_ELIMINATION = "single-elimination"
        DOUBLE_ELIMINATION = "double-elimination"
        LADDER = "ladder"
        CHALLENGE = "challenge"

    class Partnerships(models.TextChoices):
        """Partnership variants only (``Variant.teams``): who plays beside whom."""

        #: Every entry is one bot; pairing makes new partners at every table.
        ROTATING = "rotating"
        #: Every entry is a team (:attr:`Entry.partner`), always seated on partner seats.
        FIXED = "fixed"

    class Seeding(models.TextChoices):  # a first league season's order (services.leagues)
        RATING = "rating"
        MANUAL = "manual"
        RANDOM = "random"

    class Status(models.TextChoices):
        DRAFT = "draft"
        RUNNING = "running"
        #: Running, but queueing no match until it is resumed (``web.organise``).
        PAUSED = "paused"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    variant = models.CharField(max_length=40)
    options = models.JSONField(default=dict, blank=True)
    format = models.CharField(max_length=24, choices=Format.choices)
    rounds_planned = models.PositiveIntegerField(null=True, blank=True)
    games_per_match = models.PositiveIntegerField(default=6)
    duplicate = models.BooleanField(default=True)
    seats_per_table = models.PositiveSmallIntegerField()
    move_ms = models.PositiveIntegerField(default=2_000)
    bank_ms = models.PositiveIntegerField(default=20_000)
    #: The referee's pacing quantum (``TimeControl.pace_ms``; 0: off): what a bot can read
    #: of another's think time from the time between its own turns.
    pace_ms = models.PositiveIntegerField(default=0)
    rating_settings = models.JSONField(default=dict, blank=True)
    #: Pairing tie-breaks follow from this seed; so do the deals when ``deal_secret`` is
    #: empty (an organiser chose the seed: deals anyone knowing it can compute).
    seed = models.BigIntegerField(default=0)
    #: 256 random bits (hex) the match seeds, and so every deal, follow from; hidden
    #: until the competition ends, its SHA-256 published from the start (``deals.py``).
    deal_secret = models.CharField(max_length=64, blank=True, default="", editable=False)
    #: Knockouts: how many play-off games (on fresh deals) may decide a match that is
    #: level on game points and total score before it is decided by lot (0: at once).
    playoff_games_cap = models.PositiveSmallIntegerField(
        default=4,
        validators=[MaxValueValidator(40)],  # services.PLAYOFF_GAMES_MAX
        help_text="Knockouts: the most play-off games a level match may take before it "
        "is decided by lot.",
    )
    #: The sequence number of the last rating update (RatingEvent.sequence).
    rating_sequence = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    is_public = models.BooleanField(default=True)
    #: Once the competition has ended, everyone who may watch it may also see every
    #: hand in its game replays (staff always may, its organisers once it has ended).
    full_replays_after_end = models.BooleanField(
        default=False,
        help_text="Once the competition has ended, show every hand in its game replays "
        "to everyone who may watch it.",
    )
    #: Private competitions only: the organisers waived "one bot per author per table"
    #: (docs/fair-play.md); the competition page says so.
    same_owner_tables = models.BooleanField(
        default=False,
        help_text="Private competitions: let bots of one owner (or of linked owners) share "
        "a table.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organised_competitions"
    )
    #: One of the installation's standing open ladders (``tournaments.selectors.ladders``): the
    #: variant it stands for ("manni-basic", ...); "" for every other competition.
    standing = models.CharField(max_length=24, blank=True, default="", editable=False)
    #: League seasons: the most entries a division holds (the entries are cut into divisions
    #: of sizes differing by at most one at the start, ``formats.league``); None: one division.
    division_size = models.PositiveSmallIntegerField(null=True, blank=True)
    #: League seasons: how many of each division go up, and of the one above go down, when
    #: the next season is made (``services.league_next_season``); 0: nobody moves.
    promote = models.PositiveSmallIntegerField(default=0)
    #: League seasons: the season this one follows (its divisions came from that one's
    #: final standings); None for a league's first season.
    previous_season = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="next_season"
    )
    #: League seasons: 1 for the first, one more for each next season.
    season = models.PositiveSmallIntegerField(default=1)
    #: Partnership variants: ``rotating`` (entries are bots) or ``fixed`` (entries are
    #: teams); "" for a variant where everyone plays alone.
    partnerships = models.CharField(
        max_length=8, choices=Partnerships.choices, blank=True, default=""
    )
    #: Closed by its organisers before its schedule ended (``services.competition_close``
    #: of a running or paused tournament): "closed early", not "finished".
    closed_early = models.BooleanField(default=False, editable=False)
    #: League seasons: the order a first season's entries are cut into divisions in.
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    #: Random seeding: the shuffle's seed, recorded at the start at the latest.
    seeding_seed = models.BigIntegerField(null=True, blank=True)
    #: False for a league season closed early without promotion and relegation.
    promotion_applies = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One standing ladder per variant that has not ended (``ladders ensure``).
            models.UniqueConstraint(
                fields=["standing"],
                condition=~models.Q(standing="")
                & models.Q(status__in=["draft", "running", "paused"]),
                name="competition_one_open_standing_ladder",
            ),
        ]
        permissions = [("organise_competitions", "Can create and run competitions")]

    @property
    def fixed_teams(self) -> bool:
        """Whether its entries are teams (:attr:`Partnerships.FIXED`)."""
        return self.partnerships == self.Partnerships.FIXED

    @property
    def shown_status(self) -> str:
        """The status as the pages show it: ``closed-early`` for a finished competition
        its organisers closed before its schedule ended, else :attr:`status`."""
        if self.status == self.Status.FINISHED and self.closed_early:
            return "closed-early"
        return self.status

    def __str__(self) -> str:
        return self.name


#: The kinds and formats an organiser creates (a challenge's competition is made by its
#: challenge alone: ``tournaments.services.challenges``).
ORGANISED_KINDS = [c for c in Competition.Kind.choices if c[0] != Competition.Kind.CHALLENGE]
ORGANISED_FORMATS = [c for c in Competition.Format.choices if c[0] != Competition.Format.CHALLENGE]


class Entry(models.Model):
    """A bot entered in a competition, with its current rating there; in a competition of
    fixed teams, a team: ``bot`` and its ``partner`` (the same bot when it plays both
    seats of its side)."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="entries")
    #: Fixed teams only: the bot at the second seat of the team's side (seats 2 and 3 of
    #: a partnership table, ``formats.common.partner_table``); None in every other entry.
    partner = models.ForeignKey(
        Bot, null=True, blank=True, on_delete=models.PROTECT, related_name="partnered_entries"
    )
    #: True while the partner's owner (another member) has not accepted: the team waits.
    partner_pending = models.BooleanField(default=False)
    pinned_version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    seed_order = models.PositiveIntegerField(default=0)
    division = models.PositiveSmallIntegerField(default=0)
    mu = models.FloatField(default=25.0)
    sigma = models.FloatField(default=25.0 / 3)
    games = models.PositiveIntegerField(default=0)
    points = models.FloatField(default=0)
    #: A challenge may seat one bot twice (two of its own versions): 0 for its first entry
    #: there, 1 for the second...; 0 in every other competition (one entry per bot).
    copy = models.PositiveSmallIntegerField(default=0, editable=False)
    withdrawn = models.BooleanField(default=False)
    #: Withdrawn by the organisers for unfair play (the standings say so).
    disqualified = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["competition", "bot", "copy"], name="entry_unique_bot"),
            models.UniqueConstraint(fields=["competition", "partner"], name="entry_unique_partner"),
        ]
        indexes = [models.Index(fields=["competition", "-mu"])]
        ordering = ["competition_id", "seed_order", "id"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.name} in {self.competition}"

    @property
    def name(self) -> str:
        """What the standings call it: its bot, or a team's two bots (``a & b``)."""
        return str(self.bot) if self.partner_id is None else f"{self.bot} & {self.partner}"

    def bot_at(self, seat: int) -> Bot:
        """The bot that plays ``seat`` of a match for this entry: a team's partner at the
        second seat of its side (a partnership table seats teams ``(a, b, a, b)``), its
        bot everywhere else."""
        if self.partner_id is not None and seat >= PARTNER_TABLE_SIZE // 2:
            return self.partner
        return self.bot
