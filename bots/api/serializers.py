"""Input and output shapes of the bots API."""

from __future__ import annotations

from rest_framework import serializers

from bots.archive import DEFAULT_LIMITS
from bots.models import Bot, BotVersion


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "name", "description", "owner", "builtin", "created_at"]
        read_only_fields = fields


class BotCreateSerializer(serializers.Serializer):
    name = serializers.SlugField(max_length=64, help_text="Unique among your bots: a-z, 0-9, - _")
    description = serializers.CharField(max_length=4000, required=False, allow_blank=True)


class BotVersionSerializer(serializers.ModelSerializer):
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

    def validate_file(self, upload):
        limit = DEFAULT_LIMITS.max_upload_bytes
        if upload.size > limit:
            raise serializers.ValidationError(
                f"The file is {upload.size} bytes; at most {limit} are accepted."
            )
        return upload
