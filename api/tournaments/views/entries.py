"""The entries' endpoints: entering a bot, withdrawing it, an entry's rating history and
its divisions across seasons."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q, QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from api.defaults import ApiDefaults
from api.tournaments.serializers import (
    EntryCreateSerializer,
    EntryDivisionSerializer,
    EntrySerializer,
    RatingPointSerializer,
    SeasonSerializer,
)
from api.tournaments.views.competitions import competition_filter, visible_competitions
from config.filters import FilterSet, id_filter
from tournaments import selectors, services
from tournaments.models import Entry


class EntryFilter(FilterSet):
    competition = competition_filter()
    bot = id_filter(field_name="bot_id", help_text="A bot id.")

    class Meta:
        model = Entry
        fields = ["competition", "bot", "withdrawn"]


class PaginatedRatingPointSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RatingPointSerializer(many=True)


@extend_schema(tags=["entries"])
class EntryViewSet(
    ApiDefaults,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Bots entered in competitions, with their rating and points there.

    ``POST`` enters a bot (yours or a built-in one) while the competition is a
    draft; ``withdraw`` takes it out again before the start (its owner or the
    organisers); ``seasons`` is a league entry's division history. A team whose
    partner is another member's bot waits for that owner: ``invitations`` lists
    theirs, ``accept`` and ``decline`` answer one.
    """

    serializer_class = EntrySerializer
    filterset_class = EntryFilter
    ordering_fields = ["seed_order", "mu", "points", "created_at", "id"]

    def get_queryset(self) -> QuerySet[Entry]:
        return (
            Entry.objects.filter(competition__in=visible_competitions(self.request))
            .select_related("bot__owner", "partner__owner", "pinned_version", "competition")
            .prefetch_related(*selectors.entries_with_outlook())
        )

    @extend_schema(request=EntryCreateSerializer, responses={201: EntrySerializer})
    def create(self, request: Request) -> Response:
        serializer = EntryCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            entry = services.entry_create(by=request.user, **serializer.validated_data)
        return Response(EntrySerializer(entry).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: EntrySerializer(many=True)}, filters=False)
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def invitations(self, request: Request) -> Response:
        """The teams waiting for you: entries of drafts whose partner is a bot of yours,
        entered by another member, not yet accepted or declined (empty when signed out)."""
        rows = selectors.team_invitations_for(user=request.user)
        return Response(EntrySerializer(rows, many=True).data)

    def _invitation(self, request: Request, pk: str) -> Entry:
        """An entry the user may see, or whose partner is theirs (in a competition they
        may not watch, the invitation is still theirs to answer)."""
        user = request.user
        mine = Q(partner__owner=user) if user.is_authenticated else Q(pk__in=[])
        entries = Entry.objects.filter(
            Q(competition__in=visible_competitions(request)) | mine
        ).select_related("bot__owner", "partner__owner")
        return get_object_or_404(entries, pk=pk)

    @extend_schema(
        request=None,
        responses={
            200: EntrySerializer,
            400: OpenApiResponse(description="Already accepted, or the competition started."),
            403: OpenApiResponse(description="The partner is not your bot."),
        },
    )
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, pk: str) -> Response:
        """Accept the invitation of a team whose partner is your bot: the team plays."""
        entry = services.entry_partner_accept(entry=self._invitation(request, pk), by=request.user)
        return Response(EntrySerializer(entry).data)

    @extend_schema(
        request=None,
        responses={
            204: OpenApiResponse(description="Declined: the team is not entered."),
            400: OpenApiResponse(description="Already accepted, or the competition started."),
            403: OpenApiResponse(description="The partner is not your bot."),
        },
    )
    @action(detail=True, methods=["post"])
    def decline(self, request: Request, pk: str) -> Response:
        """Decline the invitation of a team whose partner is your bot: the team is not
        entered (the entry goes)."""
        services.entry_partner_decline(entry=self._invitation(request, pk), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        request=None,
        responses={
            204: OpenApiResponse(description="Removed from the draft."),
            400: OpenApiResponse(description="The competition has started: entries stay."),
        },
    )
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: str) -> Response:
        """Take the entry out of a draft (its bot's owner or the organisers), as the
        organise page's *Remove*, or out of a ladder in play (withdrawn: paired no more,
        its results stay); refused with the same reason once any other competition has
        started, whose schedule and standings count it."""
        entry = self.get_object()
        services.entry_remove(entry=entry, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=EntryDivisionSerializer, responses={200: EntrySerializer})
    @action(detail=True, methods=["post"])
    def division(self, request: Request, pk: str) -> Response:
        """Move the entry to another division of its league season (the organisers),
        while that season is a draft following another; docs/leagues.md."""
        entry = self.get_object()
        serializer = EntryDivisionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entry = services.entry_move_division(
            entry=entry, division=serializer.validated_data["division"], by=request.user
        )
        return Response(EntrySerializer(entry).data)

    @extend_schema(responses={200: SeasonSerializer(many=True)}, filters=False)
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def seasons(self, request: Request, pk: str) -> Response:
        """The entry's division history: its bot in every season of its league that you
        may see, first to last, with its division, its place there and whether it went up
        or down. One row for an entry of any other competition."""
        rows = selectors.division_history_for_entry(entry=self.get_object(), user=request.user)
        return Response(SeasonSerializer(rows, many=True).data)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["post"])
    def disqualify(self, request: Request, pk: str) -> Response:
        """Disqualify the entry (organisers and staff): it plays no more, the standings
        say so."""
        entry = self.get_object()
        services.entry_disqualify(entry=entry, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses={200: PaginatedRatingPointSerializer}, filters=False)
    @action(detail=True, methods=["get"], filter_backends=[])
    def ratings(self, request: Request, pk: str) -> Response:
        """The entry's rating after each rated match, oldest first."""
        rows = selectors.rating_history_for_entry(entry=self.get_object())
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(RatingPointSerializer(page, many=True).data)
