"""Bots and their versions: list, create, upload, inspect, download.

Each user sees their own bots and the platform's built-in ones (staff see
every bot); another user's bot is a 404. Only the owner (or staff) uploads
versions and downloads them. Writes call ``bots.services`` in a transaction.
"""

from __future__ import annotations

import io

import django_filters
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api.bots.permissions import IsBotOwnerOrStaff, is_owner_or_staff
from api.bots.serializers import (
    BotCreateSerializer,
    BotPlaySerializer,
    BotSerializer,
    BotVersionDetailSerializer,
    BotVersionSerializer,
    BotVersionUploadSerializer,
    BotVersionValidateSerializer,
)
from api.defaults import ApiDefaults, PayloadTooLarge
from bots import selectors, services, store
from bots.archive import DEFAULT_LIMITS
from bots.models import Bot, BotVersion
from config.filters import FilterSet
from tournaments.selectors import version_records

#: Room for the multipart envelope around the file.
MULTIPART_OVERHEAD_BYTES = 64 * 1024


def visible_bots(user) -> QuerySet[Bot]:
    """The bots ``user`` may see: their own and the built-in ones (every bot, for staff)."""
    if user.is_staff:
        return Bot.objects.all()
    own = selectors.bots_for_user(user=user).values("pk")
    return Bot.objects.filter(Q(pk__in=own) | ~Q(builtin=""))


class StoreUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The bot store cannot be reached now; try again later."
    default_code = "store_unavailable"


class BotFilter(FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains", help_text="Part of the name.")
    builtin = django_filters.BooleanFilter(
        method="filter_builtin", help_text="Only the platform's built-in bots (or only others)."
    )

    class Meta:
        model = Bot
        fields = ["name", "builtin"]

    def filter_builtin(self, queryset: QuerySet[Bot], name: str, value: bool) -> QuerySet[Bot]:
        return queryset.exclude(builtin="") if value else queryset.filter(builtin="")


@extend_schema(tags=["bots"])
class BotViewSet(
    ApiDefaults,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Your bots. ``POST`` creates one; versions are uploaded under ``/versions/``."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = BotSerializer
    filterset_class = BotFilter
    ordering_fields = ["name", "created_at", "id"]

    def get_queryset(self) -> QuerySet[Bot]:
        return visible_bots(self.request.user).select_related("owner").order_by("name", "id")

    @extend_schema(request=BotCreateSerializer, responses={201: BotSerializer})
    def create(self, request: Request) -> Response:
        serializer = BotCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            bot = services.bot_create(owner=request.user, **serializer.validated_data)
        return Response(BotSerializer(bot).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=BotPlaySerializer, responses={200: BotPlaySerializer})
    @action(detail=True, methods=["get", "post"])
    def play(self, request: Request, pk: str) -> Response:
        """Which version plays (``plays``: the pinned one, else the newest ready one), whether
        the bot is ``active`` and ``challengeable``, and each version's record. ``POST``
        (owner or staff) pins a ready version (``pinned_version``: its number, null for the
        newest ready one), deactivates the bot (``active``; it applies to matches not yet
        started) or opts it out of other authors' challenges (``challengeable``)."""
        bot = self.get_object()
        if request.method == "POST":
            if not is_owner_or_staff(request.user, bot):
                raise exceptions.PermissionDenied(IsBotOwnerOrStaff.message)
            serializer = BotPlaySerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            pinned = bot.pinned_version.number if bot.pinned_version else None
            with transaction.atomic():
                services.bot_play_set(
                    bot=bot,
                    pinned_number=data.get("pinned_version", pinned),
                    active=data.get("active", bot.active),
                )
                if "challengeable" in data:
                    services.bot_challengeable_set(bot=bot, challengeable=data["challengeable"])
        plays = selectors.version_for_play(bot=bot)
        return Response(
            {
                "active": bot.active,
                "challengeable": bot.challengeable,
                "pinned_version": bot.pinned_version.number if bot.pinned_version else None,
                "plays": plays.number if plays else None,
                "versions": version_records(bot=bot, user=request.user),
            }
        )


class BotVersionFilter(FilterSet):
    class Meta:
        model = BotVersion
        fields = ["status", "runtime"]


BOT_PK = OpenApiParameter("bot_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="Bot id")
NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="Version number"
)


@extend_schema(tags=["bots"], parameters=[BOT_PK])
class BotVersionViewSet(
    ApiDefaults, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """The versions of one bot, newest first, with their validation outcome.

    ``POST`` uploads a new version (multipart, field ``file``); it answers at once
    with the version ``validating``, and a worker validates it by a smoke match
    (``ready`` or ``rejected``, with the ``validation_report``) before it can play.
    ``download`` returns the uploaded file, to the bot's owner and staff only.
    The upload may declare ``variants`` (else its ``bot.json`` does; none: every
    variant): the version is validated in each, and ``passed`` lists those it may
    play. ``validate`` asks for a ready version to be validated in more variants.
    """

    permission_classes = [permissions.IsAuthenticated, IsBotOwnerOrStaff]
    serializer_class = BotVersionSerializer
    filterset_class = BotVersionFilter
    ordering_fields = ["number", "created_at"]
    lookup_field = "number"
    lookup_value_regex = "[0-9]+"

    def get_bot(self) -> Bot:
        try:
            return visible_bots(self.request.user).get(pk=int(self.kwargs["bot_pk"]))
        except (Bot.DoesNotExist, ValueError, OverflowError):
            raise exceptions.NotFound("No such bot.") from None

    def get_queryset(self) -> QuerySet[BotVersion]:
        if getattr(self, "swagger_fake_view", False):
            return BotVersion.objects.none()
        return self.get_bot().versions.order_by("-number")

    def get_serializer_class(self):
        return BotVersionDetailSerializer if self.action == "retrieve" else BotVersionSerializer

    @extend_schema(parameters=[NUMBER])
    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": BotVersionUploadSerializer},
        responses={
            201: BotVersionDetailSerializer,
            413: OpenApiResponse(description="The upload is too large."),
            503: OpenApiResponse(description="The bot store cannot be written now."),
        },
    )
    def create(self, request: Request, bot_pk: str) -> Response:
        bot = self.get_bot()
        self.check_object_permissions(request, bot)
        max_bytes = DEFAULT_LIMITS.max_upload_bytes
        # Refuse an oversized body before reading it.
        length = request.META.get("CONTENT_LENGTH") or "0"
        if length.isdigit() and int(length) > max_bytes + MULTIPART_OVERHEAD_BYTES:
            raise PayloadTooLarge(f"A bot upload may be at most {max_bytes} bytes.")
        serializer = BotVersionUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        # The (slow) validation match never runs in the request: the version is stored
        # "validating" and a worker's task moves it to ready or rejected after commit.
        try:
            with transaction.atomic():
                version = services.bot_version_upload(
                    bot=bot,
                    filename=upload.name,
                    content=upload.read(),
                    variants=serializer.validated_data.get("variants"),
                )
                version = services.bot_version_queue(version=version)
        except store.StoreError as error:  # nothing was saved: the transaction rolled back
            raise StoreUnavailable(f"The bot store cannot be written now: {error}") from None
        return Response(BotVersionDetailSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[NUMBER],
        request=BotVersionValidateSerializer,
        responses={
            202: BotVersionDetailSerializer,
            400: OpenApiResponse(description="An unknown variant, or nothing to validate."),
            403: OpenApiResponse(description="Not the bot's owner."),
        },
    )
    @action(detail=True, methods=["post"])
    def validate(self, request: Request, bot_pk: str, number: str) -> Response:
        """Validate a ready version in more ``variants`` (a version validated before
        bots declared their variants passed ``manni-basic`` only). It keeps playing
        what it passed meanwhile; ``passed`` grows with each variant it passes."""
        version = self.get_object()
        if not is_owner_or_staff(request.user, version.bot):
            raise exceptions.PermissionDenied("Only the bot's owner (or staff) may validate it.")
        if version.runtime == BotVersion.Runtime.BUILTIN:
            raise exceptions.ValidationError({"variants": "a built-in plays every variant"})
        serializer = BotVersionValidateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            version = services.bot_version_validate_more(
                version=version, variants=serializer.validated_data["variants"]
            )
        return Response(BotVersionDetailSerializer(version).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        parameters=[NUMBER],
        responses={
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The file as uploaded."
            ),
            403: OpenApiResponse(description="Not the bot's owner."),
            503: OpenApiResponse(description="The bot store cannot be read now."),
            404: OpenApiResponse(description="No such version, or it has no stored file."),
        },
    )
    @action(detail=True, methods=["get"])
    def download(self, request: Request, bot_pk: str, number: str) -> FileResponse:
        version = self.get_object()
        if not is_owner_or_staff(request.user, version.bot):
            raise exceptions.PermissionDenied("Only the bot's owner (or staff) may download it.")
        if version.runtime == BotVersion.Runtime.BUILTIN:
            raise exceptions.NotFound("This version has no stored file.")
        try:
            content = services.bot_version_content(version=version)
        except store.BlobMissing:
            raise exceptions.NotFound("The stored file is missing.") from None
        except store.StoreError as error:
            raise StoreUnavailable(f"The bot store cannot be read now: {error}") from None
        handle = io.BytesIO(content)
        name = version.upload_name or version.archive.name.rsplit("/", 1)[-1] or "upload"
        return FileResponse(handle, as_attachment=True, filename=name)
