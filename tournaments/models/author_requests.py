"""What an author asks the platform to play: a version test (is a new version better than
an old one?) and a challenge (unrated games against chosen bots).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import Bot, BotVersion
from tournaments.models.competitions import Competition


class VersionTest(models.Model):
    """An SPRT of a bot's new version against its old one (``tournaments.services.version_tests``).

    ``counts`` maps each trial score (a fraction of the grid, such as ``"3/4"``) to its
    number of trials; ``trials``, ``llr`` and ``decision`` follow from it. A worker plays it in
    slices of deals and writes after each deal, so it can resume where it stopped.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="version_tests")
    new = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    old = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(max_length=40)
    options = models.JSONField(default=dict, blank=True)
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=5.0)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_games = models.PositiveIntegerField(default=20_000)
    seed = models.BigIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    lease_until = models.DateTimeField(null=True, blank=True)
    #: When the reaper sent it again because its worker stopped in the middle of a slice
    #: (its page says "resumed after a restart" until a worker takes it); cleared by a claim.
    resumed_at = models.DateTimeField(null=True, blank=True)
    trials = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)
    llr = models.FloatField(default=0.0)
    decision = models.CharField(max_length=2, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"SPRT {self.new} vs {self.old}"


class Challenge(models.Model):
    """An author's request for unrated games of one of their ready versions against chosen
    opponents (``tournaments.services.challenges``).

    Its games are the matches of its own hidden competition (kind and format
    ``challenge``): played like any other match, on the challenges' queue, never rated,
    never listed. ``opponents`` keeps what was asked (``builtin:greedy``, ``bot:12``,
    ``bot:12@3``), the competition's entries the versions that play.
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        CANCELLED = "cancelled"

    competition = models.OneToOneField(
        Competition, on_delete=models.CASCADE, related_name="challenge"
    )
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="challenges")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    opponents = models.JSONField(default=list)
    games = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RUNNING)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["created_by", "created_at"])]

    def __str__(self) -> str:
        return f"challenge {self.pk}: {self.version} ({self.games} games)"
