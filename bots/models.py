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
    #: False: its owner opted it out of other authors' challenges
    #: (``tournaments.services.challenges``).
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
    #: The worker process whose validation of this version runs (``host/pid``), and until
    #: when its lease lives (``config.leases``: taken over once it runs out, or once that
    #: process stops beating); empty and null when no validation runs.
    claimed_by = models.CharField(max_length=120, blank=True, default="")
    lease_until = models.DateTimeField(null=True, blank=True)
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
        ("stored_bytes", "Stored bytes"),
        ("worker_seconds_per_day", "Seconds of the users' workers a day"),
        ("stderr_log_bytes", "Bytes of full stderr logs kept"),
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
    """An account made by sign-up (``bots.accounts``), whose e-mail address is unconfirmed
    until ``confirmed_at`` is set. While the installation asks for a confirmed address
    (``CARDROOM_SIGNUP_CONFIRMATION = email``: ``required``) the account has no allowance
    at all until then; one made with confirmation off works at once, with the smaller
    stored-bytes allowance of unconfirmed accounts. Accounts without a row (made before
    sign-ups were recorded, or by staff) count as confirmed."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="confirmation"
    )
    email = models.EmailField(blank=True)
    #: Made while confirmation was asked for: no allowance at all until confirmed.
    required = models.BooleanField(
        default=True,
        help_text="No allowance at all until confirmed (sign-up asked for a confirmed "
        "address); otherwise only the smaller stored-bytes allowance of unconfirmed accounts.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        state = "confirmed" if self.confirmed_at else "waiting"
        return f"{self.user}: {self.email} ({state})"


class AccountSignup(models.Model):
    """Where an account signed up from, kept only as a keyed hash (``bots.links``): the
    HMAC of the client's address (an IPv6 address's /64 network), so that accounts made
    from one place can be found without the address being stored."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="signup"
    )
    address_hash = models.CharField(max_length=64, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user}: from {self.address_hash[:12]}"


class AccountLink(models.Model):
    """Two accounts that signals suggest are one person, found automatically
    (``bots.links``): signed up from one address, or uploads of near-identical contents.
    Until staff dismiss it, a link keeps the two accounts' bots from sharing a table in
    public ladders (``tournaments.pairing``); staff judge it in the admin with its
    evidence, and link the accounts everywhere with an owner link if they agree."""

    class Reason(models.TextChoices):
        SIGNUP_ADDRESS = "signup-address", "signed up from one address"
        SIMILAR_UPLOADS = "similar-uploads", "near-identical uploads"
        THINK_TIMES = "think-times", "alike think times"

    #: The account of the smaller id; ``other`` has the larger.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    evidence = models.TextField(help_text="What was found, in words, when the link was made.")
    dismissed = models.BooleanField(
        default=False,
        help_text="Staff judged the two accounts to be two people: the link keeps nothing "
        "apart, and is not made again.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "other", "reason"], name="accountlink_unique_reason"
            ),
            models.CheckConstraint(
                condition=models.Q(user__lt=models.F("other")), name="accountlink_ordered"
            ),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.user} ~ {self.other} ({self.get_reason_display()})"
