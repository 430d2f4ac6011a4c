"""Competitions and everything in them: entries, rounds, matches, game records, results.

Reads go through ``competitions_visible_to``: a private competition, and all
that belongs to it, is a 404 to anyone who may not see it. Writes call one
service of ``tournaments.services`` each, in a transaction; the services
decide what a state allows and who may do it.
"""

from __future__ import annotations

import re

import django_filters
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

import games
from bots.referee.transcript import MEDIA_TYPE
from config.api import ApiDefaults, Conflict
from config.filters import FilterSet, IntegerFilter, id_filter
from config.throttles import DOWNLOADS_TOO_OFTEN, download_wait
from tournaments import selectors, services, transcripts
from tournaments.api.permissions import CanManageCompetition, IsOrganiserOrReadOnly
from tournaments.api.serializers import (
    CollusionReportSerializer,
    CompetitionCreateSerializer,
    CompetitionDetailSerializer,
    CompetitionSerializer,
    CompetitionUpdateSerializer,
    CrosstableSerializer,
    EntryCreateSerializer,
    EntryDivisionSerializer,
    EntrySerializer,
    GameRecordDetailSerializer,
    GameRecordSerializer,
    HeadToHeadSerializer,
    KeepApartSerializer,
    LiveMatchSerializer,
    MatchResultSerializer,
    MatchSerializer,
    NextSeasonSerializer,
    ProgressSerializer,
    RatingPointSerializer,
    RoundResultsSerializer,
    RoundSerializer,
    SeasonSerializer,
    StandingSerializer,
)
from tournaments.dashboard.live import live_match_view
from tournaments.models import Competition, Entry, GameRecord, Match, Round
from tournaments.permissions import can_manage
from tournaments.selectors import competition_progress


class CSVRenderer(BaseRenderer):
    """``?format=csv`` of the results downloads (the view writes the text itself)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        return data.encode() if isinstance(data, str) else b""


#: The renderers of the views that also answer ``?format=csv``.
WITH_CSV = [*api_settings.DEFAULT_RENDERER_CLASSES, CSVRenderer]


def _csv_download(text: str, name: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def visible_competitions(request: Request | None) -> QuerySet[Competition]:
    user = getattr(request, "user", None)
    return selectors.competitions_visible_to(user=user)


def played_competitions(request: Request | None) -> QuerySet[Competition]:
    """:func:`visible_competitions` and the challenges' (their matches and games only)."""
    user = getattr(request, "user", None)
    return selectors.competitions_visible_to(user=user, challenges=True)


def _competition_filter(**kwargs) -> django_filters.ModelChoiceFilter:
    return django_filters.ModelChoiceFilter(queryset=visible_competitions, **kwargs)


def _played_filter(**kwargs) -> django_filters.ModelChoiceFilter:
    return django_filters.ModelChoiceFilter(queryset=played_competitions, **kwargs)


# --- competitions -----------------------------------------------------------------------


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

    @extend_schema(request=None, responses={200: CompetitionDetailSerializer})
    @action(detail=True, methods=["post"])
    def close(self, request: Request, pk: str) -> Response:
        """End the competition now: a running one finishes, a draft is cancelled."""
        competition = self.get_object()
        with transaction.atomic():
            services.competition_close(competition=competition, by=request.user)
        return self._detail(competition)

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

    @extend_schema(responses={200: StandingSerializer(many=True)}, filters=False)
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
        games, rating...), as the competition page's download."""
        competition = self.get_object()
        if request.accepted_renderer.format == "csv":
            text = selectors.results_csv(competition=competition, table="standings")
            return _csv_download(text, f"competition-{competition.pk}-standings.csv")
        rows = selectors.standings_for_competition(competition=competition)
        return Response(StandingSerializer(rows, many=True).data)

    @extend_schema(
        responses={
            200: MatchResultSerializer(many=True),
            429: OpenApiResponse(description="Too many from this anonymous address."),
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
        download. Anonymous clients have so many a minute (``download`` rate), then a 429
        with ``Retry-After``."""
        competition = self.get_object()
        if (wait := download_wait(request)) is not None:
            raise exceptions.Throttled(wait=wait, detail=DOWNLOADS_TOO_OFTEN.format(wait=wait))
        if request.accepted_renderer.format == "csv":
            text = selectors.results_csv(competition=competition, table="matches")
            return _csv_download(text, f"competition-{competition.pk}-matches.csv")
        matches = selectors.match_results_export(competition=competition)
        return Response(MatchResultSerializer(matches, many=True).data)

    @extend_schema(
        responses={
            200: CrosstableSerializer,
            404: OpenApiResponse(description="Not a round robin (or not visible)."),
        },
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def crosstable(self, request: Request, pk: str) -> Response:
        """A round robin's crosstable: rows and columns in standings order; the cell of
        row A, column B is A's result against B (docs/competitions.md)."""
        competition = self.get_object()
        table = selectors.crosstable_for_competition(competition=competition)
        if table is None:
            raise exceptions.NotFound(
                f"a {competition.format} has no crosstable: only round robins have one"
            )
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


# --- entries ----------------------------------------------------------------------------


class EntryFilter(FilterSet):
    competition = _competition_filter()
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
    organisers); ``seasons`` is a league entry's division history.
    """

    serializer_class = EntrySerializer
    filterset_class = EntryFilter
    ordering_fields = ["seed_order", "mu", "points", "created_at", "id"]

    def get_queryset(self) -> QuerySet[Entry]:
        return Entry.objects.filter(
            competition__in=visible_competitions(self.request)
        ).select_related("bot__owner", "partner__owner", "pinned_version")

    @extend_schema(request=EntryCreateSerializer, responses={201: EntrySerializer})
    def create(self, request: Request) -> Response:
        serializer = EntryCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            entry = services.entry_create(by=request.user, **serializer.validated_data)
        return Response(EntrySerializer(entry).data, status=status.HTTP_201_CREATED)

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


# --- rounds, matches, game records ----------------------------------------------------------


class RoundFilter(FilterSet):
    competition = _competition_filter()

    class Meta:
        model = Round
        fields = ["competition", "status", "number"]


@extend_schema(tags=["matches"])
class RoundViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """The rounds of competitions, with their byes."""

    serializer_class = RoundSerializer
    filterset_class = RoundFilter
    ordering_fields = ["number", "id"]

    def get_queryset(self) -> QuerySet[Round]:
        return Round.objects.filter(
            competition__in=visible_competitions(self.request)
        ).prefetch_related("byes")


class MatchFilter(FilterSet):
    competition = _played_filter()
    round = IntegerFilter(field_name="round__number", min_value=0, help_text="Round number.")
    entry = id_filter(field_name="seats__entry", help_text="Only matches this entry plays in.")

    class Meta:
        model = Match
        fields = ["competition", "round", "status", "entry"]


@extend_schema(tags=["matches"])
class MatchViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Matches (tables) with their seats; results, seed and logs once done."""

    serializer_class = MatchSerializer
    filterset_class = MatchFilter
    ordering_fields = ["created_at", "finished_at", "table", "id"]

    @extend_schema(
        request=None,
        responses={
            200: MatchSerializer,
            400: OpenApiResponse(description="The match did not fail, or its competition ended."),
            403: OpenApiResponse(description="Not an organiser of its competition."),
        },
    )
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk: str) -> Response:
        """Play a failed match again (its competition's organisers): it goes to the
        workers when this commits, and its round goes on once it is recorded."""
        match = self.get_object()
        match = services.match_retry(match=match, by=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=match.pk)).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "game", int, description="The game to show (from 1); the current one if left out."
            )
        ],
        responses={
            200: LiveMatchSerializer,
            400: OpenApiResponse(description="`game` is not a positive integer."),
        },
    )
    @action(detail=True, methods=["get"])
    def live(self, request: Request, pk: str) -> Response:
        """A match while it is played: its finished games, the number of the game in
        progress, and one game's moves so far (``?game=N``, else the current one) with
        the position after the last, in the public view (no seat's hidden cards; a
        seat's owner also sees that seat's own cards where the competition's full-view
        rule allows it). Empty (``games`` [], ``current`` null) unless it is running."""
        match = self.get_object()
        raw = request.query_params.get("game")
        if raw is not None and (not raw.isdigit() or not 0 < int(raw) < 2**31):
            raise serializers.ValidationError({"game": f"game must be a game number, got {raw!r}"})
        return Response(live_match_view(match=match, user=request.user, number=raw and int(raw)))

    def get_queryset(self) -> QuerySet[Match]:
        return (
            Match.objects.filter(competition__in=played_competitions(self.request))
            .select_related("round", "competition")
            .prefetch_related(
                "seats__entry__bot__owner", "seats__entry__partner__owner", "seats__version"
            )
        )


class GameRecordFilter(FilterSet):
    match = id_filter(field_name="match_id", help_text="A match id.")
    competition = _played_filter(field_name="match__competition")

    class Meta:
        model = GameRecord
        fields = ["match", "competition", "index"]


@extend_schema(tags=["matches"])
class GameRecordViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Game records of done matches; the detail holds the replayable record.

    No record of an unfinished match is ever shown: its cards are hidden
    information while it is played.
    """

    filterset_class = GameRecordFilter
    ordering_fields = ["match", "index", "id"]

    def get_queryset(self) -> QuerySet[GameRecord]:
        records = GameRecord.objects.filter(
            match__status=Match.Status.DONE,
            match__competition__in=played_competitions(self.request),
        ).select_related("match__competition")
        return records.defer("data") if self.action == "list" else records

    def get_serializer_class(self):
        return GameRecordDetailSerializer if self.action == "retrieve" else GameRecordSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "seat",
                int,
                required=True,
                description="The seat of the game (as its `scores` and `statuses` are "
                "indexed; in duplicate matches the bots move round the table).",
            )
        ],
        responses={
            (200, MEDIA_TYPE): OpenApiResponse(
                OpenApiTypes.STR,
                description="The transcript, JSON lines (bots/protocol/PROTOCOL.md, "
                "Transcripts): a header, then every line the seat was sent and what it "
                "answered, with each decision's timing where the record has it.",
            ),
            400: OpenApiResponse(description="`seat` is missing or not a seat of the game."),
            404: OpenApiResponse(
                description="No such game, or its transcripts are not yours to see: they "
                "are the seat's bot owner's and staff's, and everyone's who may see every "
                "hand once the competition has ended."
            ),
            409: OpenApiResponse(description="The game no longer replays under the rules."),
        },
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def transcript(self, request: Request, pk: str) -> HttpResponse:
        """Every line one seat of the game was sent and what it answered, for replaying it
        against a bot (``manage.py match --replay``)."""
        game = self.get_object()
        seat = _seat(request.query_params.get("seat"), len(game.scores))
        if seat not in transcripts.transcript_seats(game=game, user=request.user):
            raise exceptions.NotFound("No transcript of this seat is yours to see.")
        try:
            transcript = transcripts.seat_transcript(game=game, seat=seat)
        except (ValueError, games.IllegalAction) as exc:
            raise Conflict(
                f"This game no longer replays under the rules as implemented now: {exc}"
            ) from None
        response = HttpResponse(transcript.dumps(), content_type=MEDIA_TYPE)
        name = f"game-{game.pk}-seat-{seat}.jsonl"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


def _seat(value: str | None, players: int) -> int:
    """The ``seat`` query parameter as a seat of a game of ``players`` seats, else a 400."""
    if value is None or not re.fullmatch("[0-9]{1,6}", value) or int(value) >= players:
        raise serializers.ValidationError(
            {"seat": [f"a seat of the game is needed: 0 to {players - 1}, got {value!r:.40}"]}
        )
    return int(value)
