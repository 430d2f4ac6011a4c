"""maniglia-4-partners: four players in two teams, trump by the dealer's turned-up card.

Rules MANIGLIA-GEN-1..7, MANIGLIA-4P-1..6 and LIMIT-4. Seats 0+2 play against
1+3. The dealer's final card is dealt face up and fixes trump; his team may
score its value at once (turn-up bonus). Each deal the team with 35 or more
of the 70 points (card points + one per trick) scores the excess; the first
team to the target (35 game points) wins.
"""

from __future__ import annotations

from typing import Any, Final

from games.cards import LATIN_NAMES
from games.core import Option, parse_int
from games.maniglia.rules import OPPONENT, STRICT, partners_deal_points, turn_up_bonus
from games.maniglia.state import ManigliaState
from games.tricks import LATIN_LAYOUT

TEAMS: Final = ((0, 2), (1, 3))  # MANIGLIA-4P-1
#: Each seat's team (the index of its team in TEAMS).
SIDES: Final = tuple(next(t for t, team in enumerate(TEAMS) if seat in team) for seat in range(4))
TARGET: Final = 35  # MANIGLIA-4P-6

OPTIONS = (
    Option(
        "maniglia.overtake",
        OPPONENT,
        (OPPONENT, STRICT),
        doc="MANIGLIA-GEN-5: must beat W only when an opponent holds it (opponent), "
        "or always, trumping whenever void (strict).",
    ),
    Option(
        "maniglia.target_partners",
        TARGET,
        parse=parse_int("maniglia.target_partners", 1, 10_000),
        doc="MANIGLIA-4P-6: game points a team needs to win.",
    ),
)


class PartnersState(ManigliaState):
    """State of a maniglia-4-partners game."""

    PLAYERS = 4
    __slots__ = ("bonus", "game_points", "turned")

    def _init_game(self) -> None:
        self.game_points = [0, 0]  # per team

    def _begin_deal(self) -> None:
        # MANIGLIA-4P-2: the last card of the deck is the dealer's final card, face up.
        self.turned = self.decks[-1][-1]
        self.trump = LATIN_LAYOUT.suit_of(self.turned)
        team = self.dealer % 2
        self.bonus = turn_up_bonus(self.turned, self.game_points[team])  # MANIGLIA-4P-3
        self.game_points[team] += self.bonus
        if self.bonus and self.game_points[team] >= self.game.options["maniglia.target_partners"]:
            self._end_game()  # MANIGLIA-4P-6: only with a custom target of 34 or less
            return
        self._start_play(self.trump, SIDES)  # MANIGLIA-4P-4: dealer's right leads

    def _legal_other(self) -> list[int]:
        return []

    def _apply_other(self, seat: int, action: int) -> None:
        raise AssertionError("maniglia-4-partners has no decision besides card play")

    def team_totals(self) -> list[int]:
        """Card points + tricks taken by each team so far this deal."""
        p, w = self.points, self.won
        return [p[0] + p[2] + w[0] + w[2], p[1] + p[3] + w[1] + w[3]]

    def _score_deal(self) -> bool:
        totals = self.team_totals()
        gained = partners_deal_points(totals)  # MANIGLIA-4P-5
        for team in (0, 1):
            self.game_points[team] += gained[team]
        self._log_deal(
            {
                "card_points": list(self.points),
                "tricks": list(self.won),
                "team_totals": totals,
                "game_points": gained,
            }
        )
        # MANIGLIA-4P-6: only one team scores in a deal, so at most one reaches it.
        return max(self.game_points) >= self.game.options["maniglia.target_partners"]

    def scores(self) -> list[int]:
        gp = self.game_points
        return [gp[0], gp[1], gp[0], gp[1]]

    def _ranking(self) -> list[int]:
        """Partners share their team's rank; a forfeit loses for the offender's team."""
        gp = self.game_points
        if self.forfeited is not None:  # FORFEIT-2
            loser = self.forfeited[0] % 2
            team_rank = [2, 2]
            team_rank[1 - loser] = 1
        else:
            team_rank = [1 if gp[0] >= gp[1] else 2, 1 if gp[1] >= gp[0] else 2]
        return [team_rank[seat % 2] for seat in range(4)]

    def _current_head(self) -> dict[str, Any]:
        return {"turned_card": LATIN_NAMES[self.turned], "turn_up_bonus": self.bonus}

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        obs["teams"] = [list(t) for t in TEAMS]
        obs["turned_card"] = LATIN_NAMES[self.turned]
        # MANIGLIA-4P-2: everyone knows the dealer holds it until he plays it.
        obs["turned_card_held"] = bool(self.hands[self.dealer] >> self.turned & 1)
        obs["turn_up_bonus"] = self.bonus
        obs["team_totals"] = self.team_totals()
        obs["game_points"] = list(self.game_points)
        obs["target"] = self.game.options["maniglia.target_partners"]
        obs["bids"] = []
        obs["declarer"] = None
        obs["contract"] = None
