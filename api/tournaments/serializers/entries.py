"""Serializers of entries: an entry with its bot, entering a bot, a point of its rating
history."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.tournaments.serializers.competitions import request_user
from bots.models import Bot, BotVersion
from tournaments.models import (
    Competition,
    Entry,
)
from tournaments.selectors import (
    competitions_visible_to,
    entry_outlook,
)


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
    pinned_version = serializers.SlugRelatedField(
        slug_field="number",
        read_only=True,
        help_text="The version pinned for this entry when it was entered (null: none; the "
        "version that plays is `plays`).",
    )
    partner_status = serializers.SerializerMethodField(
        help_text="Fixed teams: `pending` while the partner's owner (another member) has "
        "not accepted the invitation (the team does not play, and the competition does not "
        "start, until they do), else `accepted`; null without a partner.",
    )

    plays = serializers.SerializerMethodField(
        help_text="The number of the version that plays now: the entry's pin, else the one "
        "its owner pins, else the newest ready version that passed the variant; while it "
        "waits (`play_status` waits), the version whose validation it waits for. Null for a "
        "built-in bot and when no version can play."
    )
    play_status = serializers.SerializerMethodField(
        help_text="plays, waits (for its version's validation: it starts playing once it "
        "passes), cannot-play (no version of it can: `play_words` says why), deactivated, "
        "withdrawn, disqualified, or over (its competition ended)."
    )
    play_words = serializers.SerializerMethodField(
        help_text='The same in words, as the pages say it ("Plays v3 (pinned by its '
        'owner).", "Waits for the validation of v1 in money-jordan: ...").'
    )

    @extend_schema_field(serializers.ChoiceField(choices=["pending", "accepted"], allow_null=True))
    def get_partner_status(self, entry: Entry) -> str | None:
        if entry.partner_id is None:
            return None
        return "pending" if entry.partner_pending else "accepted"

    def _outlook(self, entry: Entry) -> dict[str, Any]:
        cache = self.context.setdefault("outlooks", {})
        if entry.pk not in cache:
            cache[entry.pk] = entry_outlook(entry=entry)
        return cache[entry.pk]

    def get_plays(self, entry: Entry) -> int | None:
        return self._outlook(entry)["version"]

    def get_play_status(self, entry: Entry) -> str:
        return self._outlook(entry)["state"]

    def get_play_words(self, entry: Entry) -> str:
        return self._outlook(entry)["words"]

    class Meta:
        model = Entry
        fields = [
            "id",
            "competition",
            "bot",
            "partner",
            "partner_status",
            "name",
            "pinned_version",
            "plays",
            "play_status",
            "play_words",
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
        "version (or the one its owner pins). Another member's bot is invited: the entry "
        "is `pending` until its owner accepts (`POST /api/entries/<id>/accept/`).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        user = request_user(self)
        if user is None or not user.is_authenticated:
            return
        bots = Bot.objects.all()
        if not user.is_staff:
            bots = bots.filter(Q(owner=user) | ~Q(builtin=""))
        self.fields["competition"].queryset = competitions_visible_to(user=user)
        self.fields["bot"].queryset = bots
        # A partner may be any member's bot: its owner is asked (entry_create).
        self.fields["partner"].queryset = Bot.objects.all()
        self.fields["pinned_version"].queryset = BotVersion.objects.filter(bot__in=bots)


class RatingPointSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    sequence = serializers.IntegerField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating = serializers.FloatField(help_text="mu - 3 sigma, the displayed rating.")
    at = serializers.DateTimeField()
