"""The referee: the only place where engine, bots and clock meet (DESIGN.md section 4)."""

from bots.referee.match import play_match
from bots.referee.players import BotFault, InProcessPlayer, Player, ProcessPlayer
from bots.referee.results import GameResult, MatchResult
from bots.referee.schedule import game_seed, pace_draws
from bots.referee.time_control import OPEN_LADDER_PACE_MS, TimeControl

__all__ = [
    "OPEN_LADDER_PACE_MS",
    "BotFault",
    "GameResult",
    "InProcessPlayer",
    "MatchResult",
    "Player",
    "ProcessPlayer",
    "TimeControl",
    "game_seed",
    "pace_draws",
    "play_match",
]
