"""Transcripts of stored games: who may have one, and building it (reads only).

A seat's transcript (``bots.referee.transcript``) is every line the bot at that
seat of a game was sent and what it answered. It shows nothing the bot did not
see, but its answers and timing are its owner's to study: the bot's owner and
staff get it at once; anyone who may see every hand of the game
(``selectors.full_view_allowed``: once the competition has ended) gets it then.
"""

from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass, field
from typing import IO

from django.http import FileResponse

import games
from bots.referee.match import TimeControl, schedule
from bots.referee.transcript import Transcript, game_transcript
from tournaments.models import Competition, GameRecord, Match, MatchSeat
from tournaments.selectors import full_view_allowed

#: A match's transcripts are written to a file once the zip is larger than this.
ZIP_IN_MEMORY_BYTES = 8 * 1024 * 1024


def game_seating(*, game: GameRecord) -> tuple[int, list[int]]:
    """The game's number as the referee counted it in the run that played it, and the
    match seat (``MatchSeat.seat``) of the bot at each of its seats.

    A match is one run of the referee, each play-off set of a knockout another (its
    games numbered from 0); in duplicate matches the bots move round the table
    (``bots.referee.match.schedule``). Raises ``ValueError`` for a game whose place
    in its match cannot be found.
    """
    match, competition = game.match, game.match.competition
    if game.playoff == 0:
        count, number = competition.games_per_match, game.index
    else:
        indices = list(
            match.game_records.filter(playoff=game.playoff)
            .order_by("index")
            .values_list("index", flat=True)
        )
        count, number = len(indices), indices.index(game.index)
    players = len(game.scores)
    plan = schedule(count, players, competition.duplicate)
    if not 0 <= number < len(plan):
        raise ValueError(f"game {game.index} is not in the match's schedule of {count} games")
    return number, plan[number][1]


def time_control(*, competition: Competition) -> TimeControl:
    """The time control a competition's matches are played under, as ``hello`` says it."""
    return TimeControl(move_ms=competition.move_ms, bank_ms=max(1, competition.bank_ms))


def transcript_seats(*, game: GameRecord, user) -> list[int]:
    """The seats of ``game`` whose transcripts ``user`` may get (the caller checks that
    the game is visible to them): every seat to staff and, once the competition has
    ended, to those who may see every hand; otherwise the seats of their own bots."""
    players = len(game.scores)
    if full_view_allowed(competition=game.match.competition, user=user):
        return list(range(players))
    if user is None or not user.is_authenticated:
        return []
    own = set(
        MatchSeat.objects.filter(match_id=game.match_id, entry__bot__owner=user).values_list(
            "seat", flat=True
        )
    )
    if not own:
        return []
    try:
        _, seats = game_seating(game=game)
    except ValueError:
        return []
    return [seat for seat, player in enumerate(seats) if player in own]


def seat_transcript(*, game: GameRecord, seat: int) -> Transcript:
    """The transcript of ``seat`` of ``game`` (a seat of the game, as its scores and
    statuses are indexed). Raises ``ValueError`` (or ``games.IllegalAction``) if the
    game no longer replays under the rules as implemented now."""
    number, seats = game_seating(game=game)
    match = game.match
    player = seats[seat]
    held = (
        MatchSeat.objects.filter(match=match, seat=player)
        .select_related("entry__bot", "entry__partner")
        .first()
    )
    bot = held.entry.bot_at(player).name if held is not None else None  # a team: its partner
    record = game.record()
    try:
        return game_transcript(
            record,
            game=number,
            seats=seats,
            player=player,
            time_control=time_control(competition=match.competition),
            scores=game.scores,
            ranking=game.ranking,
            statuses=game.statuses or [{"status": "ok", "reason": ""}] * len(seats),
            about={
                "game_id": game.pk,
                "match": match.pk,
                "competition": match.competition_id,
                "bot": bot,
            },
        )
    except (KeyError, TypeError, IndexError) as exc:  # a record stored otherwise
        raise ValueError(f"the record does not rebuild: {exc!r}") from None


def own_players(*, match: Match, user) -> set[int]:
    """The match seats (``MatchSeat.seat``) whose bot is ``user``'s: a team's partner's
    seats are its owner's, not the entry's."""
    if user is None or not user.is_authenticated:
        return set()
    seats = MatchSeat.objects.filter(match=match).select_related("entry__bot", "entry__partner")
    return {s.seat for s in seats if s.entry.bot_at(s.seat).owner_id == user.pk}


@dataclass
class MatchTranscripts:
    """A zip of a match's transcripts (``file``, at its start), and the games left out
    because they no longer replay under the rules as implemented now (their indices)."""

    file: IO[bytes]
    count: int
    left_out: list[int] = field(default_factory=list)
    #: The match's id: the file's name to save it as.
    match_id: int = 0

    def download(self) -> FileResponse:
        """The zip as a file to save (the site's and the API's answer alike), the games
        left out named in a ``Cardroom-Games-Left-Out`` header."""
        response = FileResponse(
            self.file,
            as_attachment=True,
            filename=f"match-{self.match_id}-transcripts.zip",
            content_type="application/zip",
        )
        if self.left_out:
            response["Cardroom-Games-Left-Out"] = ",".join(map(str, self.left_out))
        return response


def match_transcripts_zip(*, match: Match, user) -> MatchTranscripts | None:
    """Every transcript of ``user``'s bots in the games of the done ``match`` (the caller
    checks that the match is visible to them), zipped as ``match-<id>/game-<index>-
    player-<seat>.jsonl`` (``index`` as ``GameRecord.index``, ``seat`` the match seat):
    what ``manage.py match --replay ZIP BOT`` replays as it is. Only the user's own seats,
    whoever else may see the game: a transcript shows its seat's hand. None if the match
    is not done or seats none of their bots."""
    players = own_players(match=match, user=user)
    if match.status != Match.Status.DONE or not players:
        return None
    file = tempfile.SpooledTemporaryFile(max_size=ZIP_IN_MEMORY_BYTES)  # noqa: SIM115 (its response closes it)
    out = MatchTranscripts(file, 0, match_id=match.pk)
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for game in match.game_records.select_related("match__competition").order_by("index"):
            try:
                _, seats = game_seating(game=game)
                for seat, player in enumerate(seats):
                    if player in players:
                        text = seat_transcript(game=game, seat=seat).dumps()
                        zf.writestr(
                            f"match-{match.pk}/game-{game.index}-player-{player}.jsonl", text
                        )
                        out.count += 1
            except (ValueError, games.IllegalAction):
                out.left_out.append(game.index)
    file.seek(0)
    return out
