"""How the games of a match become its result: match ranks, and a knockout's tie-break chain.

One rule for every format (docs/competitions.md):

1. **Game points.** In each game a seat scores, against each opponent (partners are
   not opponents), 1 if its game rank is better, 1/2 if equal, 0 if worse. A match's
   game points are the sum over its games (two seats: games won, a drawn game 1/2).
2. **Total score.** Seats level on game points are ordered by the sum of their game
   scores (the variant's points, higher is better).
3. Seats level on both share a match rank (standard competition ranks, 1, 2, 2, 4).

So a seat with a total score of -33 ranks below one with -34 exactly when the -34
seat has more game points: the score only orders seats that are level on games.

A knockout match must have a strict cut: the sides that go on are ranked above the
rest. When the cut falls between level sides, :func:`knockout_decision` goes down
the chain: total score (step 2), then play-off games on fresh deals (compared by
game points, then score, over the play-off games only) up to the competition's cap,
then a draw seeded from the match seed, named as such ("decided by lot").

Pure: no web framework. A game here is the referee's game JSON: ``seats`` (the
player at each seat), ``ranking`` and ``scores`` per seat.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Game = dict[str, Any]
Side = tuple[int, ...]

GAMES, SCORE, PLAYOFF, LOT = "games", "score", "play-off", "lot"


def sides_of(players: int, teams: Sequence[Sequence[int]] | None = None) -> list[Side]:
    """The sides of a table: one per player, or the partnerships ``teams`` (player indices).

    Partners keep their seat group in every rotation of a duplicate match, so the
    seat groups of the first game are the player groups of every game.
    """
    if teams is None:
        return [(p,) for p in range(players)]
    sides = [tuple(team) for team in teams]
    if sorted(p for side in sides for p in side) != list(range(players)):
        raise ValueError(f"teams {sides} must cover players 0..{players - 1} exactly once")
    return sides


def game_points(
    games: Sequence[Game], players: int, teams: Sequence[Sequence[int]] | None = None
) -> list[float]:
    """Per player: pairwise game points summed over ``games`` (see the module docstring)."""
    side_of = {p: i for i, side in enumerate(sides_of(players, teams)) for p in side}
    out = [0.0] * players
    for game in games:
        seat_of = {player: seat for seat, player in enumerate(game["seats"])}
        ranking = game["ranking"]
        for p in range(players):
            mine = ranking[seat_of[p]]
            for o in range(players):
                if side_of[o] == side_of[p]:
                    continue
                theirs = ranking[seat_of[o]]
                out[p] += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return out


def total_scores(games: Sequence[Game], players: int) -> list[float]:
    """Per player: the sum of its game scores over ``games``."""
    out = [0.0] * players
    for game in games:
        for seat, player in enumerate(game["seats"]):
            out[player] += game["scores"][seat]
    return out


def _competition_ranks(keys: Sequence[Any]) -> list[int]:
    """1 + the number of strictly better keys (a higher key is better): ties share."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def match_ranks(
    games: Sequence[Game], players: int, teams: Sequence[Sequence[int]] | None = None
) -> list[int]:
    """Rank of each player in a match: game points, then total score; ties share.

    Raises ``ValueError`` if there are no games.
    """
    if not games:
        raise ValueError("a match result needs at least one game")
    points = game_points(games, players, teams)
    scores = total_scores(games, players)
    return _competition_ranks(list(zip(points, scores, strict=True)))


@dataclass(frozen=True)
class Decision:
    """A knockout match's ranks (per player, strict at the cut) and how the cut was made.

    ``decided_by`` is JSON-safe: ``{"rule": "games"}`` when game points made the cut,
    else ``{"rule": "score" | "play-off" | "lot", "level": [player, ...], ...}`` with
    the players that were level at the cut and what separated them.
    """

    ranks: tuple[int, ...]
    decided_by: dict[str, Any] = field(default_factory=dict)
    #: True while the cut is level and more play-off games may still decide it.
    needs_playoff: bool = False


def _level_at_cut(keys: list[tuple], cut: int) -> list[int]:
    """Indices of the sides whose key equals the key at the cut, if the cut is not strict."""
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    if cut >= len(keys) or keys[order[cut - 1]] != keys[order[cut]]:
        return []
    at_cut = keys[order[cut - 1]]
    return [i for i in range(len(keys)) if keys[i] == at_cut]


def lot_order(seed: int, contenders: Sequence[int]) -> list[int]:
    """``contenders`` in the order of a draw seeded by ``seed`` (deterministic, uniform enough).

    The draw is ``sha256(f"cardroom-lot:{seed}")``; its first 8 bytes pick, position by
    position, one of the contenders still in the hat (a Fisher-Yates shuffle).
    """
    draw = int.from_bytes(hashlib.sha256(f"cardroom-lot:{seed}".encode()).digest()[:8], "big")
    hat, out = list(contenders), []
    while hat:
        draw, pick = divmod(draw, len(hat))
        out.append(hat.pop(pick))
    return out


def _side_keys(games: Sequence[Game], players: int, sides: list[Side], teams) -> list[tuple]:
    points = game_points(games, players, teams)
    scores = total_scores(games, players)
    return [(points[side[0]], scores[side[0]]) for side in sides]


def knockout_decision(
    games: Sequence[Game],
    players: int,
    *,
    seed: int,
    playoff: Sequence[Game] = (),
    playoff_cap: int = 0,
    teams: Sequence[Sequence[int]] | None = None,
    cut: int = 1,
) -> Decision:
    """The ranks of a knockout match: the best ``cut`` sides strictly above the rest.

    ``games`` are the match's games, ``playoff`` the play-off games played so far,
    ``playoff_cap`` how many play-off games may be played in all, ``seed`` the match
    seed (for the lot). Sides below the cut keep their match order (ties share).
    ``needs_playoff`` is True when the cut is level after ``playoff`` and the cap
    leaves room for more play-off games; the ranks are then the level ones.
    """
    sides = sides_of(players, teams)
    if not 1 <= cut < len(sides):
        raise ValueError(f"a knockout cut must be in 1..{len(sides) - 1}, got {cut}")
    keys = _side_keys(games, players, sides, teams)
    if not _level_at_cut([k[:1] for k in keys], cut):
        return Decision(_expand(sides, _competition_ranks(keys), players), {"rule": GAMES})
    level = _level_at_cut(keys, cut)
    if not level:
        level = _level_at_cut([k[:1] for k in keys], cut)
        decided_by: dict[str, Any] = {"rule": SCORE, "level": _players(sides, level)}
        return Decision(_expand(sides, _competition_ranks(keys), players), decided_by)
    contenders = _players(sides, level)
    if playoff:  # play-off games refine the keys of everyone; only the level sides matter
        keys = [
            k + e for k, e in zip(keys, _side_keys(playoff, players, sides, teams), strict=True)
        ]
        if not _level_at_cut(keys, cut):
            points = game_points(playoff, players, teams)
            scores = total_scores(playoff, players)
            decided_by = {
                "rule": PLAYOFF,
                "level": contenders,
                "games": len(playoff),
                "points": [points[p] for p in contenders],
                "scores": [scores[p] for p in contenders],
            }
            return Decision(_expand(sides, _competition_ranks(keys), players), decided_by)
    if len(playoff) < playoff_cap:
        return Decision(_expand(sides, _competition_ranks(keys), players), {}, needs_playoff=True)
    still = _level_at_cut(keys, cut)
    order = lot_order(seed, still)
    decided_by = {
        "rule": LOT,
        "level": contenders,
        "games": len(playoff),
        "draw": _players(sides, order),
    }
    keys = [(*k, -order.index(i) if i in still else 0) for i, k in enumerate(keys)]
    return Decision(_expand(sides, _competition_ranks(keys), players), decided_by)


def _players(sides: list[Side], indices: Sequence[int]) -> list[int]:
    return [p for i in indices for p in sides[i]]


def _expand(sides: list[Side], side_ranks: list[int], players: int) -> tuple[int, ...]:
    out = [0] * players
    for side, rank in zip(sides, side_ranks, strict=True):
        for p in side:
            out[p] = rank
    return tuple(out)


def strict_cut(ranks: Sequence[int], cut_players: int) -> bool:
    """Whether exactly ``cut_players`` players are ranked above all the others."""
    ordered = sorted(ranks)
    return cut_players < len(ordered) and ordered[cut_players - 1] < ordered[cut_players]


def points_text(value: float) -> str:
    """A game-point or score total as people write it: 2, 1½, -33."""
    whole, half = divmod(round(value * 2), 2)
    if not half:
        return str(whole)
    return "½" if whole == 0 else "-½" if whole == -1 else f"{whole + (whole < 0)}½"


def describe_decision(
    decided_by: dict[str, Any], names: Sequence[str], scores: Sequence[float | None] = ()
) -> str | None:
    """One line saying how a level knockout match was decided; None if games decided it.

    ``names`` and ``scores`` (total scores) are the players' in player (seat) order.
    Examples: ``"level on games; decided on total score (150-146)"``, ``"level on games
    and score; decided
    by 2 play-off games (1½-½ on games, 3-1 on score)"``, ``"level after 2 play-off
    games; decided by lot (greedy-1 drawn)"``.
    """
    rule = decided_by.get("rule")
    level = decided_by.get("level") or []
    if rule in (None, GAMES):
        return None
    if rule == SCORE:
        totals = [scores[p] for p in level if p < len(scores) and scores[p] is not None]
        shown = (
            f" ({'-'.join(points_text(t) for t in totals)})" if len(totals) == len(level) else ""
        )
        return f"level on games; decided on total score{shown}"
    if rule == PLAYOFF:
        points = "-".join(points_text(p) for p in decided_by.get("points") or [])
        scores = "-".join(points_text(s) for s in decided_by.get("scores") or [])
        games = decided_by.get("games", 0)
        return (
            f"level on games and score; decided by {games} play-off game"
            f"{'s' if games != 1 else ''} ({points} on games, {scores} on score)"
        )
    drawn = (decided_by.get("draw") or level or [None])[0]
    who = names[drawn] if drawn is not None and drawn < len(names) else "?"
    games = decided_by.get("games", 0)
    after = f"after {games} play-off games" if games else "on games and score"
    return f"level {after}; decided by lot ({who} drawn)"
