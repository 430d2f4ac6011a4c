"""Bots and their immutable uploaded versions."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Bot(models.Model):
    """A named bot of one author; it plays with its newest ready version."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="bots",
    )
    name = models.SlugField(max_length=64)
    description = models.TextField(blank=True)
    #: For the platform's own bots: the ``bots.builtin`` player it runs (no uploads).
    #: Several bots may run the same built-in (e.g. a table of random players).
    builtin = models.CharField(max_length=32, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="bot_unique_name_per_owner"),
        ]
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name if self.owner_id is None else f"{self.owner}/{self.name}"


class BotVersion(models.Model):
    """One upload of a bot: never changed after creation, except its validation outcome."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VALIDATING = "validating"
        READY = "ready"
        REJECTED = "rejected"

    class Runtime(models.TextChoices):
        PYTHON = "python"
        NODE = "node"
        EXECUTABLE = "executable"
        BUILTIN = "builtin"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    runtime = models.CharField(max_length=16, choices=Runtime.choices)
    entry_point = models.CharField(max_length=255, blank=True)
    size = models.PositiveIntegerField(default=0)
    #: The upload's file name (it decides how the upload unpacks: ``bots.archive``); the
    #: upload itself is in the bot store under ``sha256`` (``bots.store``).
    upload_name = models.CharField(max_length=255, blank=True)
    #: Uploads made before the bot store kept their file here (under ``MEDIA_ROOT``);
    #: migration 0004 copies them into the store, and a worker falls back to it.
    archive = models.FileField(upload_to="bots/", blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    validation_report = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
        ]
        ordering = ["bot_id", "-number"]
        indexes = [models.Index(fields=["bot", "status", "-number"])]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"


class BotBlob(models.Model):
    """An upload in the database bot store (``CARDROOM_BOT_STORE=db``), keyed by its SHA-256.

    Several versions with the same bytes share one blob. Written once, never changed.
    """

    sha256 = models.CharField(max_length=64, primary_key=True)
    content = models.BinaryField()
    size = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({self.size} bytes)"
