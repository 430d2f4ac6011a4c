"""Playing a match through the referee (no database writes): the players of its seats,
the match's games, and a level knockout match's play-off sets."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from django.core.exceptions import ValidationError

from bots.referee import Player, TimeControl, play_match
from bots.referee.match import GameResult
from bots.referee.seating import seat_player
from bots.sandbox import FULL_STDERR_BYTES
from bots.selectors import version_for_play
from bots.services import bot_version_path
from tournaments.integrity import deals
from tournaments.models import Competition, Match
from tournaments.services.competitions import KNOCKOUTS, match_wall_ms
from tournaments.services.results import (
    ClaimedSeat,
    PlayedMatch,
    PlayoffGame,
    match_decision,
    playoff_cap,
    playoff_set_size,
)


def _players(
    match: Match, seed: int, claimed: Sequence[ClaimedSeat] | None
) -> tuple[list[Player], list[int | None]]:
    """Fresh players for the seats of ``match`` (``bots.referee.seating.seat_player``:
    built-ins seeded from ``seed`` and their seat), and the bot version each uploaded bot
    plays (None for built-ins). A table of built-ins whose seats the claim read
    (``claimed``) is built from those, without a query."""
    if claimed and all(seat.builtin for seat in claimed):
        players = [
            seat_player(builtin=s.builtin, seed=seed, seat=s.seat, name=s.bot_name) for s in claimed
        ]
        return players, [None] * len(players)
    players, versions = [], []
    seats = match.seats.select_related("entry__bot__owner", "entry__partner__owner")
    for seat in seats.order_by("seat"):
        bot = seat.entry.bot_at(seat.seat)  # a team's partner at its side's second seat
        if bot.builtin:
            versions.append(None)
            players.append(
                seat_player(builtin=bot.builtin, seed=seed, seat=seat.seat, name=str(bot))
            )
            continue
        variant = match.competition.variant
        pinned = seat.entry.pinned_version if bot.pk == seat.entry.bot_id else None
        version = version_for_play(bot=bot, pinned=pinned, variant=variant)
        if version is None:
            raise ValidationError(f"{bot} has no ready version that passed {variant}")
        path = bot_version_path(version=version)
        players.append(
            seat_player(
                path=path, seed=seed, seat=seat.seat, stderr_archive_bytes=FULL_STDERR_BYTES
            )
        )
        versions.append(version.pk)
    return players, versions


def match_play(
    *,
    match: Match,
    claimed_seats: Sequence[ClaimedSeat] | None = None,
    on_game: Callable[[GameResult, int], None] | None = None,
    on_action: Callable[[int, Any], None] | None = None,
) -> PlayedMatch:
    """Play ``match`` with the referee (no database writes) and return it, typed.

    Built-in bots run in-process; uploaded bots run sandboxed from the version
    the entry pins, else the bot's newest ready version. ``claimed_seats``, if given,
    are the seats as the claim read them (``execution.match_claim_with_seats``): a
    table of built-ins is then seated without reading them again. A knockout match that is
    level at the cut after its games (on game points and total score) goes on with
    play-off sets in the same run, each on one fresh deal (played once per seat
    rotation if the competition is duplicate, by fresh players), until the cut is
    made or the competition's ``playoff_games_cap`` leaves no room for another set.
    The play-off games are :attr:`PlayedMatch.playoff`, numbered after the match's
    games and marked with their set (1, 2, ...).

    For watching the match while it is played: ``on_game(game, playoff_set)`` is called
    with each game as it finishes (0 for a game of the match) and ``on_action(index,
    state)`` after each action, play-off games numbered as they are stored.
    """
    competition = match.competition
    players, versions = _players(match, match.seed, claimed_seats)
    result = _play(
        competition, players, competition.games_per_match, match.seed,
        **_watchers(on_game, on_action, 0, 0),
    )  # fmt: skip
    out = PlayedMatch(result, versions, [], list(result.logs), list(result.full_stderr))
    if competition.format not in KNOCKOUTS:
        return out
    size, cap = playoff_set_size(competition), playoff_cap(competition)
    while len(out.playoff) + size <= cap:
        decision = match_decision(competition=competition, match=match, result=out, playing=True)
        if not decision.needs_playoff:
            break
        number = len(out.playoff) // size + 1
        seed = deals.playoff_seed(match.seed, number)
        fresh, _ = _players(match, seed, claimed_seats)
        first = len(result.games) + len(out.playoff)
        extra = _play(
            competition, fresh, size, seed, **_watchers(on_game, on_action, first, number)
        )
        for offset, game in enumerate(extra.games):
            game.index = first + offset
            out.playoff.append(PlayoffGame(number, game))
        out.logs = [a + b for a, b in zip(out.logs, extra.logs, strict=True)]
        out.full_stderr = [
            b if a is None else a if b is None else a + b
            for a, b in zip(out.full_stderr, extra.full_stderr, strict=True)
        ]
    return out


def _watchers(on_game, on_action, first: int, playoff_set: int) -> dict[str, Any]:
    """The referee's callbacks of :func:`match_play`'s, for games numbered from ``first``."""
    out: dict[str, Any] = {}
    if on_game is not None:
        out["on_game"] = lambda game: on_game(
            dataclasses.replace(game, index=first + game.index), playoff_set
        )
    if on_action is not None and first == 0:
        out["on_action"] = on_action  # (called after every action: no call more than needed)
    elif on_action is not None:
        out["on_action"] = lambda index, state: on_action(first + index, state)
    return out


def _play(competition: Competition, players: list, games_count: int, seed: int, **watchers: Any):
    return play_match(
        competition.variant,
        players,
        games_count=games_count,
        seed=seed,
        options=competition.options,
        duplicate=competition.duplicate,
        time_control=TimeControl(
            move_ms=competition.move_ms,
            bank_ms=max(1, competition.bank_ms),
            match_wall_ms=match_wall_ms(len(players)),
            pace_ms=competition.pace_ms,
        ),
        **watchers,
    )
