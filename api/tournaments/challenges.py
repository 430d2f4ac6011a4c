"""``/api/challenges/``: unrated games of your version against chosen bots.

``POST`` asks for a challenge (``tournaments.services.challenges``) and answers 201 at once with
its matches queued; ``GET`` lists the challenges you asked for and those your bots were
asked to play (``?bot=`` narrows to one bot's), ``GET .../{id}/`` shows one as it goes
(games played, each seat's record so far, its matches for ``/api/matches/?competition=``),
``POST .../{id}/cancel/`` stops it (the author who asked, or staff). An opponent you
may not see is a 404 as a missing bot; a bad request a 400 naming the field; a
request beyond an allowance a 429 naming it.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api.defaults import ApiDefaults
from api.tournaments.serializers import QueuePlaceSerializer
from bots.models import Bot
from config.filters import INT64_MAX, FilterSet, id_filter
from tournaments import selectors
from tournaments.models import Challenge
from tournaments.services import challenge_requests, challenges
from tournaments.worker import queue_places as waiting


class ChallengeCreateSerializer(serializers.Serializer):
    bot = serializers.IntegerField(
        min_value=1, max_value=INT64_MAX, help_text="Your bot whose version plays."
    )
    version = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="The number of a ready version of it (default: the one it plays now).",
    )
    opponents = serializers.ListField(
        child=serializers.CharField(max_length=64),
        max_length=8,
        help_text="One per other seat: builtin:<random|greedy|ismcts|ismcts-quick|"
        "ismcts-strong>, bot:<id> (the version "
        "it plays now, a bot playing in a competition you may watch, or yours) or "
        "bot:<id>@<number> (a version of your own bot).",
    )
    variant = serializers.CharField(max_length=40)
    options = serializers.DictField(required=False, default=dict)
    games = serializers.IntegerField(
        min_value=1,
        max_value=challenge_requests.GAMES_MAX,
        default=12,
        error_messages={
            "min_value": challenge_requests.GAMES_CAP_WORDS,
            "max_value": challenge_requests.GAMES_CAP_WORDS,
        },
        help_text=f"Games to play, from 1 to {challenge_requests.GAMES_MAX:,} a challenge "
        "(duplicate: "
        "a multiple of the seats; 1: a quick game, one "
        "deal, never duplicate, played as soon as a slot for people's work is free). Counted "
        "against your challenge games a day; beyond it the request is refused, never cut down.",
    )
    duplicate = serializers.BooleanField(
        default=True, help_text="Each deal played once per seat rotation (default)."
    )


class ChallengeSeatSerializer(serializers.Serializer):
    bot = serializers.CharField()
    bot_id = serializers.IntegerField()
    builtin = serializers.CharField(help_text="The built-in player it runs, if any.")
    version = serializers.IntegerField(allow_null=True, help_text="The version that plays.")
    games = serializers.IntegerField(help_text="Games it played (of the matches finished).")
    wins = serializers.IntegerField(help_text="Of those games, the ones it ranked first.")
    score = serializers.FloatField(help_text="Its total score over those games.")
    mean_rank = serializers.FloatField(
        allow_null=True,
        help_text="Its mean rank in a game (1 is best), over those games: every figure above "
        "counts games.",
    )
    matches = serializers.IntegerField(help_text="The matches it finished.")
    mean_match_rank = serializers.FloatField(
        allow_null=True,
        help_text="Its mean rank in a match (its place over a match's games together).",
    )


class ChallengeProgressSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Games asked for.")
    games_played = serializers.IntegerField()
    matches = serializers.IntegerField()
    matches_done = serializers.IntegerField()
    matches_failed = serializers.IntegerField()
    matches_open = serializers.IntegerField(help_text="Waiting or playing.")
    seats = ChallengeSeatSerializer(many=True, help_text="In seat order; yours first.")


class ChallengeSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.number")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    variant = serializers.CharField(source="competition.variant")
    options = serializers.JSONField(source="competition.options")
    duplicate = serializers.BooleanField(source="competition.duplicate")
    games_per_match = serializers.IntegerField(source="competition.games_per_match")
    competition = serializers.IntegerField(
        source="competition_id",
        help_text="Its hidden competition: its matches are /api/matches/?competition=<id>.",
    )
    progress = serializers.SerializerMethodField()
    queue = serializers.SerializerMethodField(
        help_text="While no match of it has started: its place among the work of the "
        "users' lane (`position`, 1 is next; `ahead`, the validations and earlier "
        "challenges before it) and `estimated_start_s`, seconds until its first match "
        "starts. Null once one started."
    )

    class Meta:
        model = Challenge
        fields = [
            "id",
            "bot",
            "version",
            "opponents",
            "variant",
            "options",
            "games",
            "duplicate",
            "games_per_match",
            "status",
            "competition",
            "progress",
            "queue",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(ChallengeProgressSerializer)
    def get_progress(self, challenge: Challenge) -> dict:
        return selectors.challenge_progress(challenge=challenge)

    @extend_schema_field(QueuePlaceSerializer(allow_null=True))
    def get_queue(self, challenge: Challenge) -> dict | None:
        return waiting.challenge_place(challenge)


class ChallengeFilter(FilterSet):
    bot = id_filter(
        field_name="competition__entries__bot",
        help_text="Only the challenges this bot plays in (asked for or asked to play).",
    )

    class Meta:
        model = Challenge
        fields = ["bot", "status"]


@extend_schema(tags=["challenges"])
class ChallengeViewSet(
    ApiDefaults,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Unrated games of your bot's version against chosen bots (never rated or ranked)."""

    serializer_class = ChallengeSerializer
    filterset_class = ChallengeFilter
    permission_classes = [permissions.IsAuthenticated]
    ordering_fields = ["created_at", "id"]

    def get_queryset(self) -> QuerySet[Challenge]:
        if getattr(self, "swagger_fake_view", False):
            return Challenge.objects.none()
        return (
            selectors.challenges_visible_to(user=self.request.user)
            .select_related("competition", "version", "created_by")
            .distinct()
        )

    @extend_schema(request=ChallengeCreateSerializer, responses={201: ChallengeSerializer})
    def create(self, request: Request) -> Response:
        """Ask for a challenge; its matches are queued at once (after every competition's)."""
        serializer = ChallengeCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        user = request.user  # another's bot is a 404, as a missing one
        bot = get_object_or_404(Bot.objects.filter(owner=user), pk=data.pop("bot"))
        try:
            challenge = challenges.challenge_create(bot=bot, by=user, **data)
        except challenge_requests.OpponentNotFound as exc:
            raise exceptions.NotFound(str(exc)) from None
        except DjangoPermissionDenied as exc:
            raise exceptions.PermissionDenied(str(exc)) from None
        challenge = self.get_queryset().get(pk=challenge.pk)
        return Response(ChallengeSerializer(challenge).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: ChallengeSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        """Stop a running challenge (the author who asked, or staff): matches not yet
        started are dropped. 400 for a challenge already over; 403 for the owner of an
        opponent (who sees it but did not ask for it)."""
        challenge = self.get_object()
        try:
            challenge = challenges.challenge_cancel(challenge=challenge, by=request.user)
        except DjangoPermissionDenied as exc:
            raise exceptions.PermissionDenied(str(exc)) from None
        except DjangoValidationError as error:
            raise exceptions.ValidationError({"status": error.messages}) from None
        return Response(ChallengeSerializer(challenge).data)
