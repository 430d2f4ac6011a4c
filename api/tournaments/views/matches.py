"""The rounds', matches' and games' endpoints: a match watched while it is played, a
game's record and its transcript."""

from __future__ import annotations

import re

from django.db.models import Prefetch, QuerySet
from django.http import FileResponse, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

import games
from api.defaults import ApiDefaults, Conflict
from api.tournaments.serializers import (
    GameRecordDetailSerializer,
    GameRecordSerializer,
    LiveMatchSerializer,
    MatchSerializer,
    RoundSerializer,
)
from api.tournaments.views.competitions import (
    competition_filter,
    played_competitions,
    played_filter,
    visible_competitions,
)
from bots.referee.transcript import MEDIA_TYPE
from config.filters import FilterSet, IntegerFilter, id_filter
from config.throttles import (
    RECORD,
    TRANSCRIPT,
    RecordThrottle,
    TranscriptThrottle,
    too_often,
)
from tournaments import services
from tournaments.models import GameRecord, Match, MatchStderrLog, Round
from tournaments.selectors import transcripts
from tournaments.selectors.stderr_logs import seat_stderr_log
from tournaments.watching.live_match import live_match_view


class RoundFilter(FilterSet):
    competition = competition_filter()

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
    competition = played_filter()
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

    def get_throttles(self):
        """A match's transcripts are a heavy read, counted as transcripts are
        (``transcript`` rate; staff are not counted), then a 429 with ``Retry-After``."""
        if self.action == "transcripts":
            return [TranscriptThrottle()]
        return super().get_throttles()

    def throttled(self, request: Request, wait: float | None) -> None:
        if self.action != "transcripts":
            return super().throttled(request, wait)
        wait = int(wait or 1)
        raise exceptions.Throttled(wait=wait, detail=too_often(request, TRANSCRIPT, wait))

    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="A zip of the transcripts of your bots in every game of the "
                "match, `match-<id>/game-<index>-player-<seat>.jsonl` (as "
                "`GET /api/games/<id>/transcript/` gives one): `manage.py match --replay "
                "ZIP BOT` replays it as it is. The header `Cardroom-Games-Left-Out` lists "
                "the games (by index) that no longer replay under the rules, if any.",
            ),
            404: OpenApiResponse(
                description="No such match, it is not done, or it seats none of your bots: "
                "only a bot's owner gets its transcripts of a whole match."
            ),
            429: OpenApiResponse(description="Too many from this account or address."),
        },
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def transcripts(self, request: Request, pk: str) -> FileResponse:
        """Every transcript of your bots in this match, zipped: a regression run's input."""
        match = self.get_object()
        zipped = transcripts.match_transcripts_zip(match=match, user=request.user)
        if zipped is None:
            raise exceptions.NotFound("No transcripts of this match are yours to download.")
        return zipped.download()

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "seat", int, required=True, description="The match seat (as `seats[].seat`)."
            )
        ],
        responses={
            (200, "application/gzip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="Everything the bot at the seat wrote to stderr in the match, "
                "a gzip file (up to its first 8 MiB; `seats[].full_log` says how much "
                "was written and kept).",
            ),
            400: OpenApiResponse(description="`seat` is missing or not a seat of the match."),
            404: OpenApiResponse(
                description="No such match, it is not done, the bot at the seat is not "
                "yours, it wrote nothing, or its log was dropped to make room within your "
                "`stderr_log_bytes` allowance."
            ),
        },
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def stderr(self, request: Request, pk: str) -> HttpResponse:
        """The whole stderr of your bot at a seat of this match, gzip-compressed as it is
        kept: only the bot's owner gets it."""
        match = self.get_object()
        seat = _seat(request.query_params.get("seat"), match.seats.count(), "match")
        log = seat_stderr_log(match=match, seat=seat, user=request.user)
        if log is None:
            raise exceptions.NotFound("No full stderr of this seat is yours to download.")
        response = HttpResponse(bytes(log.data), content_type="application/gzip")
        name = f"match-{match.pk}-seat-{seat}-stderr.log.gz"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    def get_queryset(self) -> QuerySet[Match]:
        logs = MatchStderrLog.objects.defer("data")  # its size and dates, not its bytes
        return (
            Match.objects.filter(competition__in=played_competitions(self.request))
            .select_related("round", "competition")
            .prefetch_related(
                "seats__entry__bot__owner",
                "seats__entry__partner__owner",
                "seats__version",
                Prefetch("seats__stderr_log", queryset=logs),
            )
        )


class GameRecordFilter(FilterSet):
    match = id_filter(field_name="match_id", help_text="A match id.")
    competition = played_filter(field_name="match__competition")

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

    def get_throttles(self):
        """A whole record (``retrieve``) and a transcript are heavy reads: each account, and
        each anonymous address, has so many a minute (``record``, ``transcript`` rates;
        staff are not counted), then a 429 with ``Retry-After``. Lists are light."""
        heavy = {"retrieve": RecordThrottle, "transcript": TranscriptThrottle}
        throttle = heavy.get(self.action)
        return [throttle()] if throttle else super().get_throttles()

    def throttled(self, request: Request, wait: float | None) -> None:
        scope = RECORD if self.action == "retrieve" else TRANSCRIPT
        wait = int(wait or 1)
        raise exceptions.Throttled(wait=wait, detail=too_often(request, scope, wait))

    @extend_schema(
        responses={
            200: GameRecordDetailSerializer,
            429: OpenApiResponse(description="Too many from this account or address."),
        }
    )
    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        """A game record with its whole record (replayable). Each account, and each
        anonymous address, has so many a minute (``record`` rate), then a 429."""
        return super().retrieve(request, *args, **kwargs)

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
            429: OpenApiResponse(description="Too many from this account or address."),
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


def _seat(value: str | None, players: int, of: str = "game") -> int:
    """The ``seat`` query parameter as a seat of a game of ``players`` seats, else a 400."""
    if value is None or not re.fullmatch("[0-9]{1,6}", value) or int(value) >= players:
        raise serializers.ValidationError(
            {"seat": [f"a seat of the {of} is needed: 0 to {players - 1}, got {value!r:.40}"]}
        )
    return int(value)
