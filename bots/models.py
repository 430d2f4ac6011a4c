"""Bots and their immutable uploaded versions."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models


def bot_display_name(name: str, owner: str | None) -> str:
    """How a bot is named to people: ``owner/name``, or ``name`` for a built-in (no owner).

    The one rule, for a :class:`Bot` (``str(bot)``) and for rows read as values
    (``bot__name``, ``bot__owner__username``)."""
    return name if owner is None else f"{owner}/{name}"


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
    #: The ready version its owner chose to play instead of the newest ready one
    #: (``bots.services.bot_play_set``; an entry's own pin still comes first).
    pinned_version = models.ForeignKey(
        "BotVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    #: False: its owner deactivated it; its entries are skipped by pairing, not forfeited.
    active = models.BooleanField(default=True)
    #: False: its owner opted it out of other authors' challenges (``tournaments.challenges``).
    challengeable = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="bot_unique_name_per_owner"),
        ]
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return bot_display_name(self.name, None if self.owner_id is None else str(self.owner))


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
    #: The variant ids the bot declares it plays (``variants`` in ``bot.json``, the upload
    #: form, the API); empty means every variant. Validation plays each of them; the ones
    #: passed are :class:`VersionVariantPass` rows (``passes``).
    variants = models.JSONField(default=list, blank=True)
    validation_report = models.JSONField(default=dict, blank=True)
    #: The bottom-k MinHash sketch of the main source's token shingles
    #: (``bots.similarity``): near-identical uploads of other accounts are flagged to staff.
    source_sketch = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
        ]
        ordering = ["bot_id", "-number"]
        indexes = [models.Index(fields=["bot", "status", "-number"])]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"


class VersionVariantPass(models.Model):
    """A variant a version passed validation in: it may play competitions of that variant.

    Built-in versions play every variant and have no rows. Written by the validation
    (``bots.services``), never changed; a later validation only adds rows.
    """

    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="passes")
    variant = models.CharField(max_length=64)
    passed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["version", "variant"], name="versionvariantpass_unique_variant"
            ),
        ]
        ordering = ["version_id", "variant"]

    def __str__(self) -> str:
        return f"{self.version} plays {self.variant}"


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


class UserAllowance(models.Model):
    """Staff's choice of one allowance for one user, instead of the setting's default
    (``bots.allowances``: the names, what they count, when they renew)."""

    ALLOWANCE_CHOICES = [
        ("bots", "Bots"),
        ("versions_per_day", "Versions a day"),
        ("upload_bytes_per_day", "Upload bytes a day"),
        ("version_test_games_per_day", "Version-test games a day"),
        ("open_version_tests", "Open version tests"),
        ("challenge_games_per_day", "Challenge games a day"),
        ("open_challenges", "Open challenges"),
        ("ladder_entries", "Entries in open ladders"),
    ]
    #: The largest value staff may set (the settings' defaults have the same ceiling).
    MAX_VALUE = 10**12

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="allowances"
    )
    allowance = models.CharField(max_length=40, choices=ALLOWANCE_CHOICES)
    value = models.PositiveBigIntegerField(validators=[MaxValueValidator(MAX_VALUE)])
    note = models.CharField(max_length=200, blank=True, help_text="Why, for the other staff.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "allowance"], name="userallowance_unique_per_user"
            ),
        ]
        ordering = ["user_id", "allowance"]

    def __str__(self) -> str:
        return f"{self.user}: {self.allowance} = {self.value}"


class AccountConfirmation(models.Model):
    """An account made by sign-up while the installation asks for a confirmed e-mail
    address (``CARDROOM_SIGNUP_CONFIRMATION``, ``bots.accounts``). Until ``confirmed_at``
    is set the account has no allowance at all; accounts without a row (made before, by
    staff or with confirmation off) count as confirmed."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="confirmation"
    )
    email = models.EmailField()
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        state = "confirmed" if self.confirmed_at else "waiting"
        return f"{self.user}: {self.email} ({state})"
