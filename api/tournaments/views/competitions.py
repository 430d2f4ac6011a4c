"""The competitions' endpoints: the list and the detail, creating, changing and running
a competition, its standings, results, crosstable, deals and CSV exports."""

from __future__ import annotations

import django_filters
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from api.defaults import ApiDefaults
from api.tournaments.permissions import CanManageCompetition, IsOrganiserOrReadOnly
from api.tournaments.serializers import (
    CloseSerializer,
    CollusionReportSerializer,
    CompetitionCreateSerializer,
    CompetitionDetailSerializer,
    CompetitionSerializer,
    CompetitionUpdateSerializer,
    CrosstableSerializer,
    EntrySerializer,
    HeadToHeadSerializer,
    KeepApartSerializer,
    MatchResultSerializer,
    NextSeasonSerializer,
    ProgressSerializer,
    RoundResultsSerializer,
    SeedingSerializer,
    StandingSerializer,
)
from config.filters import FilterSet
from config.throttles import (
    DOWNLOAD,
    download_wait,
    too_often,
)
from tournaments import selectors, services
from tournaments.models import Competition
from tournaments.permissions import can_manage
from tournaments.selectors import competition_progress


class CSVRenderer(BaseRenderer):
    """``?format=csv`` of the results downloads (the view writes the text itself)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if isinstance(data, dict):  # an error: what was wrong, in words ("field: message")
            said = (
                f"{field}: {message}"
                for field, messages in data.items()
                for message in (messages if isinstance(messages, list) else [messages])
            )
            return "\n".join(said).encode()
        return data.encode() if isinstance(data, str) else b""


#: The renderers of the views that also answer ``?format=csv``.
WITH_CSV = [*api_settings.DEFAULT_RENDERER_CLASSES, CSVRenderer]


def _csv_download(text: str, name: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


#: The query parameters of the downloads that choose a league season's division.
DIVISION_PARAMETERS = [
    OpenApiParameter(
        "division_number",
        int,
        description="League seasons: only this division, from 1 (1 is the top one, the "
        "pages' Division 1).",
    ),
    OpenApiParameter(
        "division", int, description="League seasons: only this division, from 0 (0 the top one)."
    ),
]


def _file_name(competition: Competition, division: int | None, table: str) -> str:
    """The name a download is saved under; a division's says its number from 1."""
    part = "" if division is None else f"-division-{division + 1}"
    return f"competition-{competition.pk}{part}-{table}.csv"


def visible_competitions(request: Request | None) -> QuerySet[Competition]:
    user = getattr(request, "user", None)
    return selectors.competitions_visible_to(user=user)


def played_competitions(request: Request | None) -> QuerySet[Competition]:
    """:func:`visible_competitions` and the challenges' (their matches and games only)."""
    user = getattr(request, "user", None)
    return selectors.competitions_visible_to(user=user, challenges=True)


def competition_filter(**kwargs) -> django_filters.ModelChoiceFilter:
    return django_filters.ModelChoiceFilter(queryset=visible_competitions, **kwargs)


def played_filter(**kwargs) -> django_filters.ModelChoiceFilter:
    return django_filters.ModelChoiceFilter(queryset=played_competitions, **kwargs)


class CompetitionFilter(FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains", help_text="Part of the name.")
    mine = django_filters.BooleanFilter(
        method="filter_mine", help_text="Only the competitions you created or organise."
    )

    class Meta:
        model = Competition
        fields = ["name", "status", "kind", "format", "variant", "is_public", "mine"]

    def filter_mine(self, queryset: QuerySet, name: str, value: bool) -> QuerySet:
        user = self.request.user
        if not user.is_authenticated:
            return queryset.none() if value else queryset
        mine = Competition.objects.filter(Q(organisers=user) | Q(created_by=user)).values("pk")
        return queryset.filter(pk__in=mine) if value else queryset.exclude(pk__in=mine)


class RoundResultsQuery(serializers.Serializer):
    last = serializers.IntegerField(
        required=False, min_value=1, max_value=1_000_000, help_text="Only the latest N rounds."
    )


@extend_schema(tags=["competitions"])
class CompetitionViewSet(
    ApiDefaults,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """League seasons, tournaments and ladders; organisers create and run them."""

    filterset_class = CompetitionFilter
    ordering_fields = ["created_at", "name", "id"]

    def get_queryset(self) -> QuerySet[Competition]:
        return visible_competitions(self.request).select_related("created_by")

    def get_permissions(self):
        if self.action == "create":
            return [IsOrganiserOrReadOnly()]
        return [permissions.IsAuthenticatedOrReadOnly(), CanManageCompetition()]

    def get_serializer_class(self):
        if self.action == "list":
            return CompetitionSerializer
        return CompetitionDetailSerializer

    def _detail(self, competition: Competition, code: int = status.HTTP_200_OK) -> Response:
        competition = self.get_queryset().prefetch_related("organisers").get(pk=competition.pk)
        context = self.get_serializer_context()
        return Response(CompetitionDetailSerializer(competition, context=context).data, code)

    @extend_schema(
        request=CompetitionCreateSerializer, responses={201: CompetitionDetailSerializer}
    )
    def create(self, request: Request) -> Response:
        serializer = CompetitionCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            competition = services.competition_create(
                created_by=request.user, **serializer.validated_data
            )
        return self._detail(competition, status.HTTP_201_CREATED)

    @extend_schema(
        request=CompetitionUpdateSerializer, responses={200: CompetitionDetailSerializer}
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        """Rename it, make it public or private, or allow full replays after its end."""
        competition = self.get_object()
        serializer = CompetitionUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.competition_update(
            competition=competition, by=request.user, **serializer.validated_data
        )
        return self._detail(competition)

    @extend_schema(request=None, responses={200: CompetitionDetailSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        """Close entries, pair the first round and queue its matches (drafts only).

        The same door as ``manage.py run_competition``, the organise page and the
        demo (``services.competition_start``): the first matches go to the workers
        when the start commits.
        """
        competition = self.get_object()
        services.competition_start(competition=competition, by=request.user)
        return self._detail(competition)

    @extend_schema(
        request=None,
        responses={
            200: CompetitionDetailSerializer,
            400: OpenApiResponse(description="The competition is not running."),
        },
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str) -> Response:
        """Stop handing out matches (running competitions only).

        Matches waiting for a worker go back to ``pending`` and nothing is
        claimed until the competition is resumed; matches already being played
        finish and count.
        """
        competition = self.get_object()
        services.competition_pause(competition=competition, by=request.user)
        return self._detail(competition)

    @extend_schema(
        request=None,
        responses={
            200: CompetitionDetailSerializer,
            400: OpenApiResponse(description="The competition is not paused."),
        },
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str) -> Response:
        """Run a paused competition again; its pending matches go to the workers
        when the resume commits."""
        competition = self.get_object()
        services.competition_resume(competition=competition, by=request.user)
        return self._detail(competition)

    @extend_schema(
        request=CloseSerializer,
        responses={
            200: CompetitionDetailSerializer,
            400: OpenApiResponse(
                description="Already over; or a league season in play without "
                "`apply_promotion` (the message names the entries that played no game)."
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def close(self, request: Request, pk: str) -> Response:
        """End the competition now: a running one finishes, a draft is cancelled.

        A league season in play takes ``apply_promotion`` (true or false): whether its
        standings so far move entries up and down into the next season. The answer
        adds ``unplayed``: the entries (names) that had played no game when it closed."""
        competition = self.get_object()
        serializer = CloseSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            services.competition_close(
                competition=competition, by=request.user, **serializer.validated_data
            )
        response = self._detail(competition)
        response.data["unplayed"] = selectors.entries_without_games(competition=competition)
        return response

    @extend_schema(request=SeedingSerializer, responses={200: EntrySerializer(many=True)})
    @action(detail=True, methods=["post"])
    def seeding(self, request: Request, pk: str) -> Response:
        """Order a first league season's entries by hand (a draft created with
        ``seeding: manual``): ``order`` lists every entry id once, and the start cuts
        them into divisions in that order, the first into Division 1 (docs/leagues.md).
        Answers the entries in their new order."""
        competition = self.get_object()
        serializer = SeedingSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entries = services.league_seed_order(
            competition=competition, order=serializer.validated_data["order"], by=request.user
        )
        return Response(EntrySerializer(entries, many=True).data)

    @extend_schema(
        request=NextSeasonSerializer,
        responses={
            201: CompetitionDetailSerializer,
            400: OpenApiResponse(
                description="Not a league season, not finished, or it has its next season."
            ),
        },
    )
    @action(detail=True, methods=["post"], url_path="next-season")
    def next_season(self, request: Request, pk: str) -> Response:
        """Make the next season of a finished league season, as a draft: the same settings
        and entries (ratings carried over), the top ``promote`` of each division moved up
        and the bottom ``promote`` moved down by the final standings. Start it with
        ``start``; docs/leagues.md."""
        competition = self.get_object()
        serializer = NextSeasonSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        season = services.league_next_season(
            competition=competition, by=request.user, **serializer.validated_data
        )
        return self._detail(season, status.HTTP_201_CREATED)

    @extend_schema(
        parameters=DIVISION_PARAMETERS,
        responses={200: StandingSerializer(many=True)},
        filters=False,
    )
    @action(
        detail=True,
        methods=["get"],
        filter_backends=[],
        pagination_class=None,
        renderer_classes=WITH_CSV,
    )
    def standings(self, request: Request, pk: str) -> Response | HttpResponse:
        """The table: points first, then the displayed rating; equal rows share a rank.

        ``?format=csv``: the same rows as a CSV file to save (rank, bot, owner, points,
        games, rating...), as the competition page's download. ``?division_number=N``
        (from 1) or ``?division=N`` (from 0): a league season's division N alone."""
        competition = self.get_object()
        division = selectors.division_asked(competition=competition, params=request.query_params)
        if request.accepted_renderer.format == "csv":
            text = selectors.results_csv(
                competition=competition, table="standings", division=division
            )
            return _csv_download(text, _file_name(competition, division, "standings"))
        rows = selectors.standings_for_competition(competition=competition)
        if division is not None:
            rows = [row for row in rows if row["division"] == division]
        return Response(StandingSerializer(rows, many=True).data)

    @extend_schema(
        parameters=DIVISION_PARAMETERS,
        responses={
            200: MatchResultSerializer(many=True),
            429: OpenApiResponse(description="Too many from this account or address."),
        },
        filters=False,
    )
    @action(
        detail=True,
        methods=["get"],
        filter_backends=[],
        pagination_class=None,
        renderer_classes=WITH_CSV,
    )
    def results(self, request: Request, pk: str) -> Response | HttpResponse:
        """Every finished match with its seats' places and scores, in playing order.

        ``?format=csv``: one row per seat of each match, as the competition page's
        download. ``?division_number=N`` (from 1) or ``?division=N`` (from 0): the
        matches of a league season's division N alone. Each account, and each anonymous
        address, has so many a minute (``download`` rate; staff are not counted), then a
        429 with ``Retry-After``."""
        competition = self.get_object()
        division = selectors.division_asked(competition=competition, params=request.query_params)
        if (wait := download_wait(request)) is not None:
            raise exceptions.Throttled(wait=wait, detail=too_often(request, DOWNLOAD, wait))
        if request.accepted_renderer.format == "csv":
            text = selectors.results_csv(
                competition=competition, table="matches", division=division
            )
            return _csv_download(text, _file_name(competition, division, "matches"))
        matches = selectors.match_results_export(competition=competition, division=division)
        return Response(MatchResultSerializer(matches, many=True).data)

    @extend_schema(
        parameters=DIVISION_PARAMETERS,
        responses={
            200: CrosstableSerializer,
            404: OpenApiResponse(description="Not a round robin (or not visible)."),
        },
        filters=False,
    )
    @action(
        detail=True,
        methods=["get"],
        filter_backends=[],
        pagination_class=None,
        renderer_classes=WITH_CSV,
    )
    def crosstable(self, request: Request, pk: str) -> Response | HttpResponse:
        """A round robin's crosstable: rows and columns in standings order; the cell of
        row A, column B is A's result against B (docs/competitions.md).

        ``?division_number=N`` (from 1) or ``?division=N`` (from 0): a league season's
        division N alone, its entries only. ``?format=csv``: the competition page's
        download (a row per entry, a ``vs <name>`` column per opponent)."""
        competition = self.get_object()
        if competition.format not in selectors.CROSSTABLE_FORMATS:
            raise exceptions.NotFound(
                f"a {competition.format} has no crosstable: only round robins have one"
            )
        division = selectors.division_asked(competition=competition, params=request.query_params)
        if request.accepted_renderer.format == "csv":
            text = selectors.results_csv(
                competition=competition, table="crosstable", division=division
            )
            return _csv_download(text, _file_name(competition, division, "crosstable"))
        table = selectors.crosstable_export(competition=competition, division=division)
        return Response(CrosstableSerializer(table).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "last", int, description="Only the latest this many rounds (a ladder has many)."
            )
        ],
        responses={200: RoundResultsSerializer(many=True)},
        filters=False,
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="rounds",
        url_name="rounds",
        filter_backends=[],
        pagination_class=None,
    )
    def round_results(self, request: Request, pk: str) -> Response:
        """Every round in order with every table (seats, places, scores) and its byes."""
        competition = self.get_object()
        query = RoundResultsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        last = query.validated_data.get("last")
        rows = selectors.round_results(competition=competition, last=last)
        return Response(RoundResultsSerializer(rows, many=True).data)

    @extend_schema(responses={200: HeadToHeadSerializer(many=True)}, filters=False)
    @action(
        detail=True,
        methods=["get"],
        url_path="head-to-head",
        filter_backends=[],
        pagination_class=None,
    )
    def head_to_head(self, request: Request, pk: str) -> Response:
        """Every pair of entries that met, and how often each finished ahead."""
        rows = selectors.head_to_head_for_competition(competition=self.get_object())
        return Response(HeadToHeadSerializer(rows, many=True).data)

    @extend_schema(responses={200: CollusionReportSerializer}, filters=False)
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def collusion(self, request: Request, pk: str) -> Response:
        """The collusion report (organisers and staff): every pair of entries that shared
        tables often enough, how each did together and apart, and whether the pair's joint
        effect is beyond chance (docs/fair-play.md). It flags; it does not punish."""
        competition = self.get_object()
        if not can_manage(competition=competition, user=request.user):
            raise PermissionDenied("only the competition's organisers and staff see this report")
        report = selectors.collusion_report_for_competition(competition=competition)
        return Response(CollusionReportSerializer(report).data)

    @extend_schema(request=KeepApartSerializer, responses={204: None})
    @action(detail=True, methods=["post"], url_path="keep-apart")
    def keep_apart(self, request: Request, pk: str) -> Response:
        """Keep two entries from sharing a table from the next pairing on."""
        competition = self.get_object()
        serializer = KeepApartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entries = competition.entries.in_bulk([v for v in serializer.validated_data.values()])
        for field, pk_ in serializer.validated_data.items():
            if pk_ not in entries:
                raise serializers.ValidationError({field: f"no entry {pk_} in this competition"})
        with transaction.atomic():
            services.table_exclusion_create(
                competition=competition,
                entry=entries[serializer.validated_data["entry"]],
                other=entries[serializer.validated_data["other"]],
                by=request.user,
            )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses={200: ProgressSerializer}, filters=False)
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def progress(self, request: Request, pk: str) -> Response:
        """Matches by status (pending, queued, running, done, failed), total and games played."""
        row = competition_progress(competition=self.get_object())
        return Response(ProgressSerializer(row).data)
