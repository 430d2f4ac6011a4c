"""What a match produced: each game's result and record, the match's standings and logs."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class GameResult:
    index: int
    seed: int
    seats: list[int]  # seats[s] = index of the player at seat s
    scores: list[int]
    ranking: list[int]
    statuses: list[dict[str, str]]
    record: dict[str, Any]


@dataclass
class MatchResult:
    variant: str
    options: dict[str, Any]
    seed: int
    duplicate: bool
    time_control: dict[str, int]
    players: list[str]
    games: list[GameResult] = field(default_factory=list)
    seconds: float = 0.0
    #: Per player: its captured stderr (capped by the sandbox), empty for in-process bots.
    logs: list[str] = field(default_factory=list)
    #: Per player: its whole stderr, compressed (``bots.sandbox.stderr_archive.FullStderr``),
    #: for a bot program that kept it (``ProcessPlayer``'s ``stderr_archive_bytes``); else
    #: None. Not in :meth:`to_json`.
    full_stderr: list[Any] = field(default_factory=list)

    def standings(self) -> list[dict[str, Any]]:
        """Per player: games, wins (rank 1), mean rank, total score, statuses, in player order."""
        rows = []
        for p, name in enumerate(self.players):
            ranks, scores, statuses = [], 0, Counter()
            for g in self.games:
                seat = g.seats.index(p)
                ranks.append(g.ranking[seat])
                scores += g.scores[seat]
                statuses[g.statuses[seat]["status"]] += 1
            rows.append(
                {
                    "player": p,
                    "name": name,
                    "games": len(ranks),
                    "wins": ranks.count(1),
                    "mean_rank": sum(ranks) / len(ranks) if ranks else None,
                    "score": scores,
                    "statuses": dict(statuses),
                }
            )
        return rows

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        del out["full_stderr"]
        out["standings"] = self.standings()
        out["games_per_s"] = len(self.games) / self.seconds if self.seconds else None
        return out
