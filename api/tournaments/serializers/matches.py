"""Serializers of rounds, matches and games: a match's seats, a game's record (its
hidden parts for those who may see them) and a match watched while it is played."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.reverse import reverse

from api.tournaments.serializers.competitions import full_view_for, request_user
from bots.referee.traces import visible_traces
from tournaments.models import (
    GameRecord,
    Match,
    MatchSeat,
    Round,
)
from tournaments.selectors import (
    trace_readers,
)


class RoundSerializer(serializers.ModelSerializer):
    byes = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Round
        fields = ["id", "competition", "number", "status", "byes"]
        read_only_fields = fields


class MatchSeatSerializer(serializers.ModelSerializer):
    bot = serializers.SerializerMethodField()
    version = serializers.SlugRelatedField(slug_field="number", read_only=True)
    log = serializers.SerializerMethodField(
        help_text="The bot's stderr: to its owner and staff, once the match is done."
    )
    full_log = serializers.SerializerMethodField(
        help_text="To the bot's owner only, once the match is done, if the bot wrote to "
        "stderr: its whole stderr as kept (`written` and `kept` bytes, `size` compressed, "
        "`dropped_at` if it was dropped to make room within the `stderr_log_bytes` "
        "allowance) and `url`, where to download it (gzip); else null."
    )

    class Meta:
        model = MatchSeat
        fields = [
            "seat",
            "entry",
            "bot",
            "version",
            "score",
            "points",
            "rank",
            "wins",
            "statuses",
            "log",
            "full_log",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "seat": {"help_text": "The protocol's seat index, from 0 (the site shows seat + 1)."}
        }

    def get_bot(self, seat: MatchSeat) -> str:
        return str(seat.entry.bot_at(seat.seat))  # a team's partner at its second seat

    def get_log(self, seat: MatchSeat) -> str | None:
        user = request_user(self)
        done = seat.match.status == Match.Status.DONE
        owner = seat.entry.bot_at(seat.seat).owner_id
        if done and user is not None and (user.is_staff or owner == user.pk):
            return seat.log
        return None

    def get_full_log(self, seat: MatchSeat) -> dict[str, Any] | None:
        user = request_user(self)
        done = seat.match.status == Match.Status.DONE
        if not done or user is None or seat.entry.bot_at(seat.seat).owner_id != user.pk:
            return None
        log = getattr(seat, "stderr_log", None)  # (prefetched without its bytes)
        if log is None:
            return None
        url = reverse("match-stderr", args=[seat.match_id], request=self.context.get("request"))
        return {
            "written": log.written,
            "kept": log.kept,
            "size": log.size,
            "dropped_at": log.dropped_at,
            "url": None if log.dropped_at else f"{url}?seat={seat.seat}",
        }


class MatchSerializer(serializers.ModelSerializer):
    round = serializers.SlugRelatedField(slug_field="number", read_only=True)
    seats = MatchSeatSerializer(many=True, read_only=True)
    seed = serializers.SerializerMethodField(help_text="Shown once the match is done.")
    games = serializers.SerializerMethodField(help_text="Number of stored game records.")

    class Meta:
        model = Match
        fields = [
            "id",
            "competition",
            "round",
            "table",
            "node",
            "status",
            "decided_by",
            "seed",
            "seats",
            "games",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_seed(self, match: Match) -> int | None:
        # The decks follow from the seed: every hand of the match (the full-view rule).
        if match.status == Match.Status.DONE and full_view_for(self, match.competition):
            return match.seed
        return None

    def get_games(self, match: Match) -> int:
        if match.status != Match.Status.DONE:
            return 0
        return len(match.game_records.all())


class GameRecordSerializer(serializers.ModelSerializer):
    class Meta:
        model = GameRecord
        fields = ["id", "match", "index", "playoff", "scores", "ranking", "statuses"]
        read_only_fields = fields


#: Keys of a game record that reveal every hand (see ``full_view_allowed``).
HIDDEN_RECORD_KEYS = ("seed", "decks")


class GameRecordDetailSerializer(GameRecordSerializer):
    record = serializers.SerializerMethodField(
        help_text="The replayable record: variant, options, seed, dealer, decks, actions, "
        "and the decision traces (bots/referee/traces.py): their stderr only to the seat's "
        "owner and staff, their notes also to everyone with the full view once the "
        "competition has ended. Without seed and decks (every hand) unless `full` is true."
    )
    full = serializers.SerializerMethodField(
        help_text="Whether the record holds every hand: staff at any time; the "
        "organisers once the competition has ended; everyone once it has ended if "
        "the organisers allow full replays."
    )

    class Meta(GameRecordSerializer.Meta):
        fields = [*GameRecordSerializer.Meta.fields, "full", "record"]
        read_only_fields = fields

    def get_full(self, game: GameRecord) -> bool:
        return full_view_for(self, game.match.competition)

    def get_record(self, game: GameRecord) -> dict[str, Any]:
        record = game.record()
        if "traces" in record:
            # Decision stderr and notes only to whom ``trace_readers`` names.
            stderr_seats, note_seats = trace_readers(
                game=game, record=record, user=request_user(self)
            )
            record["traces"] = visible_traces(
                record["traces"], stderr_seats=stderr_seats, note_seats=note_seats
            )
        if self.get_full(game):
            return record
        return {k: v for k, v in record.items() if k not in HIDDEN_RECORD_KEYS}


class LiveGameSeatSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The bot at this seat.")
    score = serializers.IntegerField()
    rank = serializers.IntegerField()
    fault = serializers.BooleanField()
    status = serializers.CharField(help_text="How the game ended for this seat, in words.")
    reason = serializers.CharField()


class LiveGameSummarySerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="From 1.")
    playoff = serializers.IntegerField(help_text="0, or the play-off set of a level knockout.")
    seats = LiveGameSeatSerializer(many=True)


class LiveMoveSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The step (1 for the first move).")
    actor = serializers.IntegerField(allow_null=True, help_text="The seat that moved.")
    action = serializers.CharField(help_text="As the other seats see it (a discard is hidden).")


class LiveGameSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    over = serializers.BooleanField(help_text="Whether the game is finished.")
    names = serializers.ListField(child=serializers.CharField(), help_text="Bot per seat.")
    moves = LiveMoveSerializer(many=True)
    view = serializers.DictField(help_text="The public view after the last move.")


class LiveMatchSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    status = serializers.CharField()
    games = LiveGameSummarySerializer(many=True, help_text="The games finished so far.")
    current = serializers.IntegerField(
        allow_null=True, help_text="The number of the game being played; null unless running."
    )
    game = LiveGameSerializer(allow_null=True, help_text="The game asked for, or the current one.")
