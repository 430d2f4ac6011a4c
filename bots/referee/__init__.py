"""The referee: the only place where engine, bots and clock meet (DESIGN.md section 4)."""

from bots.referee.match import GameResult, MatchResult, TimeControl, game_seed, play_match
from bots.referee.players import BotFault, InProcessPlayer, Player, ProcessPlayer

__all__ = [
    "BotFault",
    "GameResult",
    "InProcessPlayer",
    "MatchResult",
    "Player",
    "ProcessPlayer",
    "TimeControl",
    "game_seed",
    "play_match",
]
