"""Soft-play signals: tricks one bot could have taken from another and let go.

At every card a seat plays to a trick that another seat is winning, the seat had a
*chance* against that seat if one of its legal cards would have taken the lead (the
trick's keys, COMMON-5), and it *let the chance go* if the card it played did not.
Partners the rules make (``Variant.teams``) are not opponents: letting a partner's
trick go is the game.

An honest player lets chances go about as often whoever is winning the trick (it
ducks to keep a high card, or because the contract is to lose tricks, the same
against everyone); a bot that plays for another lets that one's tricks go more often
than the outsiders'. So for an ordered pair (a, b) the counts come from the tables the
two shared only: a's chances against b and how many it let go, against a's chances
against the other seats at the same tables and how many it let go: the same deals
and situations on both sides. The test is one-sided (b's tricks let go more often),
two proportions with the pooled standard error: z = (p_b - p_others) / se,
p = 1 - Phi(z). These are signals beside the collusion report's verdict
(``tournaments.ratings.collusion``), not a verdict of their own: each ordered pair's
p-value is uncorrected.

Games without tricks (Money) have no chances. Pure: no framework; deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import games
from games.tricks import P_PLAY, TrickState

#: A chance: (the seat that had it, the seat winning the trick, whether it was let go).
Chance = tuple[int, int, bool]


def chances(record: dict[str, Any]) -> list[Chance]:
    """Every chance of one game, replayed from its record (``State.record()``);
    ``[]`` for a game without tricks."""
    game = games.load(record["variant"], **record["options"])
    state = game.new_game(record["seed"], dealer=record["dealer"], decks=record["decks"])
    if not isinstance(state, TrickState):
        return []
    partner = {s: set(team) - {s} for team in game.variant.teams for s in team}
    found: list[Chance] = []
    for label in record["actions"]:
        if state.phase == P_PLAY and state.trick:
            seat, winner = state.to_move, state.win_seat
            if winner not in partner.get(seat, ()):
                keys = state.keys[state.led]
                best = keys[state.win_card]
                legal = state.legal_ids()
                if any(keys[c] > best for c in legal):
                    state.apply(label)
                    played = state.history[-1] & 0xFF
                    found.append((seat, winner, keys[played] <= best))
                    continue
        state.apply(label)
    return found


def tally(found: Iterable[Chance]) -> list[list[int]]:
    """A game's chances counted: ``[seat, winning seat, chances, let go]`` per pair of
    seats that had any, sorted (what a game record keeps, ``GameRecord.chances``)."""
    counts: dict[tuple[int, int], list[int]] = {}
    for seat, winner, let_go in found:
        row = counts.setdefault((seat, winner), [0, 0])
        row[0] += 1
        row[1] += let_go
    return [[seat, winner, *row] for (seat, winner), row in sorted(counts.items())]


def has_signal(variant: str, options: dict[str, Any] | None = None) -> bool:
    """Whether the games of ``variant`` (with ``options``) keep a tally: three seats or
    more, so that a seat has at least two opponents to compare (a game without tricks
    keeps an empty one)."""
    return games.load(variant, **(options or {})).num_players >= 3


def game_tally(record: dict[str, Any]) -> list[list[int]] | None:
    """:func:`tally` of a game's :func:`chances` where the signal means something
    (:func:`has_signal`), else None."""
    if not has_signal(record["variant"], record["options"]):
        return None
    return tally(chances(record))


@dataclass(frozen=True)
class SoftPlay:
    """What ``giver`` did with its chances against ``taker`` and against the others at
    the tables the two shared."""

    chances: int
    let_go: int
    chances_others: int
    let_go_others: int

    @property
    def rate(self) -> float | None:
        return self.let_go / self.chances if self.chances else None

    @property
    def rate_others(self) -> float | None:
        return self.let_go_others / self.chances_others if self.chances_others else None

    @property
    def p_value(self) -> float:
        """One-sided: the taker's tricks let go more often than the others' (1.0 when
        either side had no chance, or nothing was ever or always let go)."""
        n1, n2 = self.chances, self.chances_others
        if not n1 or not n2:
            return 1.0
        pooled = (self.let_go + self.let_go_others) / (n1 + n2)
        se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        if se == 0:
            return 1.0
        z = (self.let_go / n1 - self.let_go_others / n2) / se
        return 0.5 * math.erfc(z / math.sqrt(2))


def soft_play(
    tables: Iterable[tuple[Sequence[Hashable], Sequence[Sequence[int]]]],
) -> dict[tuple[Hashable, Hashable], SoftPlay]:
    """Per ordered pair (giver, taker) that shared a table: :class:`SoftPlay`.

    ``tables`` gives, per game, the entry at each seat and the game's :func:`tally`."""
    counts: dict[tuple[Hashable, Hashable], list[int]] = {}
    for entries, tallied in tables:
        against: dict[int, dict[int, tuple[int, int]]] = {}
        for seat, winner, had, let_go in tallied:
            against.setdefault(seat, {})[winner] = (had, let_go)
        for seat, giver in enumerate(entries):
            mine = against.get(seat, {})
            had_all = sum(t[0] for t in mine.values())
            let_all = sum(t[1] for t in mine.values())
            for other, taker in enumerate(entries):
                if other == seat or taker == giver:
                    continue
                had, let_go = mine.get(other, (0, 0))
                row = counts.setdefault((giver, taker), [0, 0, 0, 0])
                row[0] += had
                row[1] += let_go
                row[2] += had_all - had
                row[3] += let_all - let_go
    return {pair: SoftPlay(*row) for pair, row in counts.items()}
