"""Input and output shapes of the bots API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import games
from bots import waiting
from bots.archive import DEFAULT_LIMITS, check_variants
from bots.models import Bot, BotVersion
from bots.selectors import variants_passed, variants_playable


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "name", "description", "owner", "builtin", "challengeable", "created_at"]
        read_only_fields = fields


class VersionRecordSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    matches = serializers.IntegerField(help_text="Finished matches it played.")
    games = serializers.IntegerField(help_text="Games of those matches.")
    mean_rank = serializers.FloatField(
        allow_null=True, help_text="Its mean place at the table in a match (1 is best)."
    )


class BotPlaySerializer(serializers.Serializer):
    """Which version of a bot plays, and each version's record."""

    active = serializers.BooleanField(
        required=False, help_text="False: its entries are skipped by pairing, not forfeited."
    )
    pinned_version = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="The number of a ready version to play instead of the newest ready one "
        "(null: the newest ready one).",
    )
    challengeable = serializers.BooleanField(
        required=False,
        help_text="False: other authors may not challenge it (/api/challenges/).",
    )
    plays = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="The number of the version that plays now."
    )
    versions = VersionRecordSerializer(many=True, read_only=True)


class BotCreateSerializer(serializers.Serializer):
    name = serializers.SlugField(max_length=64, help_text="Unique among your bots: a-z, 0-9, - _")
    description = serializers.CharField(max_length=4000, required=False, allow_blank=True)


class BotVersionSerializer(serializers.ModelSerializer):
    variants = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="The variants the version declares it plays (empty: every variant).",
    )
    passed = serializers.SerializerMethodField(
        help_text="The variants it passed validation in: it enters only competitions of these. "
        "A rejected version plays none of them (it failed another): see `plays`."
    )
    plays = serializers.SerializerMethodField(
        help_text="The variants it plays: those it passed once it is ready; none while it is "
        "validated for the first time, and none once rejected."
    )

    queue = serializers.SerializerMethodField(
        help_text="While its validation waits for a worker: its place in the validations' "
        "queue (`position`, 1 is next; `ahead`, validations before it) and "
        "`estimated_start_s`, seconds until it starts; `resumed`, true if a worker that "
        "stopped had started it. Null once it started or when nothing is queued."
    )

    def get_passed(self, version: BotVersion) -> list[str]:
        return variants_passed(version=version)

    def get_plays(self, version: BotVersion) -> list[str]:
        return variants_playable(version=version)

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "properties": {
                "position": {"type": "integer"},
                "ahead": {"type": "integer"},
                "estimated_start_s": {"type": "number"},
                "resumed": {"type": "boolean"},
            },
        }
    )
    def get_queue(self, version: BotVersion) -> dict | None:
        found = waiting.validation_place(version)
        if found is None:
            return None
        resumed = bool(((version.validation_report or {}).get("queue") or {}).get("resumed_at"))
        return {**found, "resumed": resumed}

    class Meta:
        model = BotVersion
        fields = [
            "id",
            "bot",
            "number",
            "status",
            "runtime",
            "entry_point",
            "size",
            "sha256",
            "created_at",
            "variants",
            "passed",
            "plays",
            "queue",
        ]
        read_only_fields = fields


class BotVersionDetailSerializer(BotVersionSerializer):
    validation_report = serializers.JSONField(
        read_only=True,
        help_text="What the validation match found (empty until it has run); per variant, "
        "`budget` says how close the bot came to its time budgets (its slowest decision "
        "against the move, the bank, the match's wall clock) and which it used beyond 80 % "
        "(`close`).",
    )

    class Meta(BotVersionSerializer.Meta):
        fields = [*BotVersionSerializer.Meta.fields, "validation_report"]
        read_only_fields = fields


class BotVersionUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        allow_empty_file=False,
        help_text="The bot: a single source file or a zip/tar archive with its entry point.",
    )

    variants = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=len(games.variants()),
        help_text="The variant ids the bot plays (repeat the field for several); left out, "
        'the "variants" of its bot.json, else every variant. It is validated in each.',
    )

    def validate_variants(self, value: list[str]) -> list[str]:
        return _known_variants(value)

    def validate_file(self, upload):
        limit = DEFAULT_LIMITS.max_upload_bytes
        if upload.size > limit:
            raise serializers.ValidationError(
                f"The file is {upload.size} bytes; at most {limit} are accepted."
            )
        return upload


class BotVersionValidateSerializer(serializers.Serializer):
    variants = serializers.ListField(
        child=serializers.CharField(max_length=64),
        allow_empty=False,
        max_length=len(games.variants()),
        help_text="The variant ids to validate the version in as well.",
    )

    def validate_variants(self, value: list[str]) -> list[str]:
        return _known_variants(value)


def _known_variants(value: list[str]) -> list[str]:
    try:
        return check_variants(value)
    except ValueError as error:
        raise serializers.ValidationError(str(error)) from None
