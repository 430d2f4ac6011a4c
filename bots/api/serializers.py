"""Input and output shapes of the bots API."""

from __future__ import annotations

from rest_framework import serializers

import games
from bots.archive import DEFAULT_LIMITS, check_variants
from bots.models import Bot, BotVersion
from bots.selectors import variants_passed


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
        help_text="The variants it passed validation in: it enters only competitions of these."
    )

    def get_passed(self, version: BotVersion) -> list[str]:
        return variants_passed(version=version)

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
        ]
        read_only_fields = fields


class BotVersionDetailSerializer(BotVersionSerializer):
    validation_report = serializers.JSONField(
        read_only=True, help_text="What the validation match found (empty until it has run)."
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
