"""What is played: a competition's rounds, its matches and their seats, each game's record, a
seat's stderr and the rating events a result writes.
"""

from __future__ import annotations

import json
import zlib

import orjson
from django.conf import settings
from django.db import models

from bots.models import BotVersion
from tournaments.models.competitions import Competition, Entry
from tournaments.ratings.skill import DISPLAY_SIGMAS


class Round(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        FINISHED = "finished"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    byes = models.ManyToManyField(Entry, blank=True, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["competition", "number"], name="round_unique_number"),
        ]
        ordering = ["competition_id", "number"]


class Match(models.Model):
    """One table: a fixed number of games between the entries of its seats."""

    class Status(models.TextChoices):
        PENDING = "pending"
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="matches")
    round = models.ForeignKey(
        Round, null=True, blank=True, on_delete=models.CASCADE, related_name="matches"
    )
    table = models.PositiveIntegerField(default=0)
    #: The bracket node this match plays (elimination formats), e.g. ``"R2-0"``.
    node = models.CharField(max_length=32, blank=True)
    seed = models.BigIntegerField()
    #: Knockouts: how the winner was found (``tournaments.formats.match_result``):
    #: ``{"rule": "games"}``, or ``{"rule": "score" | "play-off" | "lot", "level": [...],
    #: ...}`` naming the seats that were level. Empty for other formats.
    decided_by = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_until = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=120, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["competition", "status"]),
            models.Index(fields=["status", "lease_until"]),
        ]
        ordering = ["competition_id", "round_id", "table", "id"]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.pk} of {self.competition_id}"


class MatchSeat(models.Model):
    """An entry at a seat of a match, and its result once the match is done."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="seats")
    version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    score = models.FloatField(null=True, blank=True)
    #: Game points: per game 1 for each opponent beaten, 1/2 for each level (match_result).
    points = models.FloatField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    wins = models.PositiveIntegerField(default=0)
    statuses = models.JSONField(default=dict, blank=True)
    log = models.TextField(blank=True)

    class Meta:
        constraints = [
            # A team (fixed partnerships) is one entry at the two seats of its side.
            models.UniqueConstraint(fields=["match", "seat"], name="matchseat_unique_seat"),
        ]
        ordering = ["match_id", "seat"]


class MatchStderrLog(models.Model):
    """A seat's whole stderr over a match, gzip (``bots.sandbox.stderr_archive``), kept for
    its bot's owner within their ``stderr_log_bytes`` (``services.stderr_logs``)."""

    seat = models.OneToOneField(MatchSeat, on_delete=models.CASCADE, related_name="stderr_log")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    data = models.BinaryField(blank=True)  # the gzip file; empty once dropped
    size = models.PositiveBigIntegerField(default=0)  # len(data): what the allowance counts
    kept = models.PositiveBigIntegerField(default=0)  # bytes of stderr data holds
    written = models.PositiveBigIntegerField(default=0)  # bytes the bot wrote (kept or not)
    created_at = models.DateTimeField(auto_now_add=True)
    dropped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "dropped_at", "created_at"])]
        ordering = ["owner_id", "created_at", "id"]


class GameRecord(models.Model):
    """The replayable record of one game of a match, stored zlib-compressed."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="game_records")
    index = models.PositiveIntegerField()
    #: 0 for a game of the match; n for a game of the n-th play-off set of a level
    #: knockout match (indices follow the match's games).
    playoff = models.PositiveSmallIntegerField(default=0)
    scores = models.JSONField()
    ranking = models.JSONField()
    statuses = models.JSONField(default=list)
    data = models.BinaryField()
    #: The soft-play tally of the game (``tournaments.ratings.soft_play.tally``): per pair
    #: of seats, the chances one had to take the trick the other was winning and how many
    #: it let go; None for games without a signal (two seats, no tricks) or older records.
    chances = models.JSONField(null=True, blank=True, default=None)
    #: Each seat's first think times in the game, in charged milliseconds
    #: (``tournaments.ratings.think_times.seat_times``: what the collusion watch and the
    #: account links compare); None until counted with ``chances``, off the hot path.
    think_ms = models.JSONField(null=True, blank=True, default=None)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="gamerecord_unique_index"),
        ]
        ordering = ["match_id", "index"]

    @staticmethod
    def pack(record: dict) -> bytes:
        """The record as stored: compact JSON, compressed. ``orjson`` writes the same bytes
        as ``json.dumps`` for a record's plain values, about ten times as fast (a one-game
        match of quick bots spent a tenth of its bookkeeping here); what it refuses (a
        string with a lone surrogate, an integer over 64 bits) is written by ``json``."""
        try:
            text = orjson.dumps(record)
        except TypeError:
            text = json.dumps(record, separators=(",", ":")).encode()
        return zlib.compress(text, 6)

    def record(self) -> dict:
        return json.loads(zlib.decompress(bytes(self.data)))


def display_rating_expression(mu: str = "mu", sigma: str = "sigma") -> models.Expression:
    """The displayed rating (``tournaments.ratings.display_rating``) of the fields ``mu``
    and ``sigma``, computed by the database (to order or annotate by it)."""
    return models.F(mu) - DISPLAY_SIGMAS * models.F(sigma)


class RatingEvent(models.Model):
    """Append-only rating history: one row per entry per rated match."""

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="rating_events")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_events")
    sequence = models.PositiveBigIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "match"], name="ratingevent_once_per_match"),
        ]
        indexes = [models.Index(fields=["entry", "sequence"])]
        ordering = ["sequence", "id"]
