"""The result model: a played match as it crosses from the referee to the recorder,
and the ranks it records (``tournaments.formats.match_result``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bots.referee.match import GameResult, MatchResult
from tournaments.formats import match_result
from tournaments.models import Competition, Match
from tournaments.ratings import PARTNER_SEATS
from tournaments.services.competitions import KNOCKOUTS, is_partnership


def match_ranks(result: PlayedMatch, players: int, teams=None) -> list[int]:
    """Rank of each player in a match: game points, then total score; ties share.

    The one rule of every format (``tournaments.formats.match_result``,
    docs/competitions.md); play-off games (``result.playoff``) never count here.
    """
    return match_result.match_ranks(result.games_json(), players, teams)


def playoff_set_size(competition: Competition) -> int:
    """Games of one play-off set: one fresh deal, once per seat rotation if duplicate."""
    return competition.seats_per_table if competition.duplicate else 1


def playoff_cap(competition: Competition) -> int:
    """The play-off games a level match may take: whole sets within the competition's cap."""
    size = playoff_set_size(competition)
    return competition.playoff_games_cap // size * size


def match_decision(
    *,
    competition: Competition,
    match: Match,
    result: PlayedMatch,
    playing: bool = False,
) -> match_result.Decision:
    """The ranks a match records and how its winner was found.

    Knockouts: :func:`tournaments.formats.match_result.knockout_decision` with the
    play-off games of ``result.playoff``. When recording, a match still level after
    them goes to the lot; while ``playing`` (:func:`match_play`), ``needs_playoff``
    says whether the competition's cap leaves room for another play-off set.
    Other formats: the match ranks, level seats sharing a rank.
    """
    players = len(result.players)
    teams = PARTNER_SEATS if is_partnership(competition.variant) else None
    if competition.format not in KNOCKOUTS:
        return match_result.Decision(tuple(match_ranks(result, players, teams)))
    playoff = result.playoff_json()
    return match_result.knockout_decision(
        result.games_json(),
        players,
        seed=match.seed,
        playoff=playoff,
        playoff_cap=playoff_cap(competition) if playing else len(playoff),
        teams=teams,
    )


@dataclass
class PlayoffGame:
    """One play-off game of a level knockout match: its set number and the game."""

    set: int
    game: GameResult


@dataclass
class PlayedMatch:
    """What crosses from the referee to the recorder: a played, not yet stored, match.

    ``result`` is the referee's :class:`bots.referee.match.MatchResult` of the match's
    own games (players in seat order); ``versions`` the bot version each player ran
    (None for built-ins); ``playoff`` a level knockout match's play-off games, numbered
    after the match's games; ``logs`` each player's captured stderr over all of them.
    """

    result: MatchResult
    versions: list[int | None] = dataclasses.field(default_factory=list)
    playoff: list[PlayoffGame] = dataclasses.field(default_factory=list)
    logs: list[str] = dataclasses.field(default_factory=list)
    #: Per player: its whole stderr over all of them, compressed (``bots.sandbox.FullStderr``),
    #: None for a built-in; stored for its owner (``services.stderr_logs``).
    full_stderr: list[Any] = dataclasses.field(default_factory=list)

    @property
    def players(self) -> list[str]:
        return self.result.players

    def games_json(self) -> list[dict[str, Any]]:
        """The match's own games as ``tournaments.formats.match_result`` reads them."""
        return [_game_json(g) for g in self.result.games]

    def playoff_json(self) -> list[dict[str, Any]]:
        return [{**_game_json(p.game), "playoff": p.set} for p in self.playoff]


def _game_json(game: GameResult) -> dict[str, Any]:
    return {
        "index": game.index,
        "seats": game.seats,
        "scores": game.scores,
        "ranking": game.ranking,
        "statuses": game.statuses,
    }


@dataclass(frozen=True)
class ClaimedSeat:
    """A seat of a claimed match as the claim read it (``execution.match_claim_with_seats``): its
    entry's rating then, and the entry's bot (its built-in player, if it is one, its
    name as ``str(bot)`` gives it, and its owner: None for a house bot)."""

    seat: int
    entry_id: int
    mu: float
    sigma: float
    builtin: str
    bot_name: str
    owner_id: int | None = None


@dataclass
class Recording:
    """What recording one result stored (the match and its round).

    ``round_complete``: True if no other match of the round was open when the result was
    stored, False if some were and none of them was running (the result of a running
    match may be the round's last), None if unknown (the round must be checked)."""

    competition: Competition
    match_id: int
    round_id: int | None = None
    round_complete: bool | None = None
