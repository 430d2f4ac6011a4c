"""``/api/bots/{bot_pk}/sprt/``: is my new version better than my old one?

``POST`` asks for a version test (an SPRT over duplicate deals played by a
worker, ``tournaments.services.version_tests``) and answers 201 at once with the test
pending; ``GET`` lists the bot's tests, and ``GET .../{id}/`` shows one as it
goes: deals played, the LLR between its bounds, the decision once there is one;
``POST .../{id}/cancel/`` stops a pending or running test for good. Only the bot's
owner (and staff) see, start and cancel its tests; for anyone else a private bot's
tests are a 404, as a bot that does not exist. The parameters are limited
(``version_tests.LIMITS``): a request outside them is a 400 naming the field and
the limit.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api.defaults import ApiDefaults
from api.tournaments.serializers import QueuePlaceSerializer
from bots.models import Bot
from config.filters import INT64_MAX
from tournaments.models import VersionTest
from tournaments.selectors import version_tests as version_test_reads
from tournaments.services import version_tests
from tournaments.worker import queue_places as waiting


class VersionTestCreateSerializer(serializers.Serializer):
    new = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="Version number (default: the newest ready version).",
    )
    old = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="Version number (default: the newest ready version before `new`); never "
        "`new` itself.",
    )
    variant = serializers.CharField(max_length=40)
    options = serializers.DictField(required=False, default=dict)
    elo0 = serializers.FloatField(
        default=0.0, help_text=f"H0: the new version is elo0 better. {version_tests.LIMITS}."
    )
    elo1 = serializers.FloatField(default=5.0, help_text="H1: it is elo1 better (> elo0).")
    alpha = serializers.FloatField(default=0.05, help_text="Chance to accept H1 when H0 holds.")
    beta = serializers.FloatField(default=0.05, help_text="Chance to accept H0 when H1 holds.")
    max_games = serializers.IntegerField(
        min_value=1, max_value=version_tests.MAX_GAMES, default=version_tests.MAX_GAMES
    )


class VersionTestSerializer(serializers.ModelSerializer):
    new = serializers.IntegerField(source="new.number")
    old = serializers.IntegerField(source="old.number")
    games = serializers.SerializerMethodField(help_text="Games played: deals x seats.")
    lower = serializers.SerializerMethodField(help_text="Accept H0 at or below: log(b/(1-a)).")
    upper = serializers.SerializerMethodField(help_text="Accept H1 at or above: log((1-b)/a).")
    score = serializers.SerializerMethodField(help_text="The new version's mean deal score.")
    decision = serializers.CharField(help_text='"H1" (better), "H0" (not), "" (undecided).')
    queue = serializers.SerializerMethodField(
        help_text="While it waits for its first slice: its place among the work of the "
        "users' lane (`position`, `ahead`: validations, challenges and earlier tests before "
        "it) and `estimated_start_s`. Null once it started."
    )

    class Meta:
        model = VersionTest
        fields = [
            "id",
            "bot",
            "new",
            "old",
            "variant",
            "options",
            "elo0",
            "elo1",
            "alpha",
            "beta",
            "max_games",
            "status",
            "trials",
            "games",
            "counts",
            "llr",
            "lower",
            "upper",
            "decision",
            "score",
            "error",
            "queue",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(QueuePlaceSerializer(allow_null=True))
    def get_queue(self, test: VersionTest) -> dict | None:
        return waiting.version_test_place(test)

    def get_games(self, test: VersionTest) -> int:
        return test.trials * version_test_reads.players_of(test)

    def get_lower(self, test: VersionTest) -> float:
        return version_test_reads.sprt_of(test).lower

    def get_upper(self, test: VersionTest) -> float:
        return version_test_reads.sprt_of(test).upper

    def get_score(self, test: VersionTest) -> float | None:
        return version_test_reads.result_of(test).score if test.trials else None


@extend_schema(tags=["bots"])
class VersionTestViewSet(
    ApiDefaults,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """SPRTs of a bot's new version against an old one, played on a worker."""

    serializer_class = VersionTestSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]

    def _bot(self) -> Bot:
        """The bot, if the user may see it (theirs, a built-in one, any for staff): a
        private bot of someone else is a 404, as a missing one."""
        bot_pk = int(self.kwargs["bot_pk"])
        user = self.request.user
        bots = Bot.objects.all()
        if not user.is_staff:
            mine = Q(owner=user) if user.is_authenticated else Q(pk__in=[])
            bots = bots.filter(mine | ~Q(builtin=""))
        return get_object_or_404(bots, pk=bot_pk if bot_pk <= INT64_MAX else 0)

    def get_queryset(self) -> QuerySet[VersionTest]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no bot
            return VersionTest.objects.none()
        bot, user = self._bot(), self.request.user
        mine = user.is_authenticated and (user.is_staff or bot.owner_id == user.pk)
        tests = VersionTest.objects.filter(bot=bot).select_related("new", "old")
        return tests if mine else tests.none()

    @extend_schema(request=None, responses={200: VersionTestSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, bot_pk: str, pk: str) -> Response:
        """Stop a pending or running test for good (its owner or staff): no more of its
        deals are played. 400 for a test already over."""
        test = self.get_object()
        try:
            test = version_tests.version_test_cancel(test=test, by=request.user)
        except DjangoValidationError as error:
            raise exceptions.ValidationError({"status": error.messages}) from None
        return Response(VersionTestSerializer(test).data)

    @extend_schema(request=VersionTestCreateSerializer, responses={201: VersionTestSerializer})
    def create(self, request: Request, bot_pk: str) -> Response:
        """Start a test: H0 "new is elo0 better" against H1 "elo1 better" (docs/ratings.md)."""
        serializer = VersionTestCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            test = version_tests.version_test_create(
                bot=self._bot(), by=request.user, **serializer.validated_data
            )
        test = self.get_queryset().get(pk=test.pk)
        return Response(VersionTestSerializer(test).data, status=status.HTTP_201_CREATED)
