"""Playing a match: N games of one variant between fixed players (DESIGN.md section 4).

Game seeds derive from the match seed (SHA-256), so a match is reproducible;
no bot is ever told the seed (DESIGN.md section 3: nothing a bot receives lets
it derive a deal). In duplicate mode every deal is played once per seat
rotation, so no player profits from the luck of the deal, and each rotation is
played by fresh players (fresh processes for bot programs): a bot never meets
a deal it has already seen. Each decision is timed: a move may use
``move_ms`` for free and then draws on the player's time bank; an empty bank
is a timeout. Any fault ends the game for the offender by FORFEIT-2, and a
player whose process timed out, crashed or broke the protocol forfeits the
rest of the match (its process is gone or out of step).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import games
from bots import protocol
from bots.referee.players import ILLEGAL, OK, BotFault, Player


@dataclass(frozen=True)
class TimeControl:
    """Per-move allowance plus a bank for the whole match, in milliseconds.

    A bot program in a cgroup is charged the CPU time its whole process tree
    used during the decision, so another bot's load on the machine costs it
    nothing. It also has a wall-clock ceiling, for bots that block instead of
    computing: a decision may last at most ``wall_factor`` times the time it
    may still be charged (``move_ms`` plus the bank) plus ``wall_grace_ms``,
    and it is charged at least ``(wall - wall_grace_ms) / wall_factor``. So a
    bot that sleeps runs its bank down at a quarter of the wall-clock rate
    (after the grace), and one that sleeps through the ceiling times out.
    Players without a CPU count (in-process built-ins, bots run without a
    cgroup) are charged wall-clock time, and the ceiling is what they may be
    charged.

    ``match_wall_ms`` (0: none) bounds the wall-clock time each player may spend in
    its decisions over the whole match, whatever it was charged: a bot that waits
    just under every ceiling (charged less than ``move_ms`` a move) would otherwise
    stretch a long match past any worker's time limit. Past it, the bot times out
    and forfeits the rest of the match, which ends and is recorded.
    """

    move_ms: int = 2_000
    bank_ms: int = 20_000
    start_ms: int = 10_000  # the hello handshake (process start-up included)
    wall_factor: int = 4
    wall_grace_ms: int = 1_000
    match_wall_ms: int = 0

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "start_ms", "wall_factor", "wall_grace_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"time control {name} must be a positive integer, got {value!r}")
        value = self.match_wall_ms
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(
                f"time control match_wall_ms must be a non-negative integer, got {value!r}"
            )

    def wall_ceiling_ms(self, allowed_ms: int) -> int:
        """The wall-clock limit of a CPU-charged decision that may be charged ``allowed_ms``."""
        return allowed_ms * self.wall_factor + self.wall_grace_ms

    def charge_ms(self, *, wall_ms: float, cpu_ms: float | None) -> float:
        """What a decision costs: its CPU time (at least its wall time's share), else wall time."""
        if cpu_ms is None:
            return wall_ms
        return max(cpu_ms, (wall_ms - self.wall_grace_ms) / self.wall_factor)


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
        out["standings"] = self.standings()
        out["games_per_s"] = len(self.games) / self.seconds if self.seconds else None
        return out


def game_seed(match_seed: int, deal: int) -> int:
    """The seed of deal ``deal`` of a match (64 bits of SHA-256)."""
    digest = hashlib.sha256(f"cardroom-match:{match_seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def schedule(games_count: int, players: int, duplicate: bool) -> list[tuple[int, list[int]]]:
    """(deal number, seats) for each game; ``seats[s]`` is the player at seat ``s``.

    Duplicate mode plays rotation by rotation: every deal at the first rotation,
    then every deal again with the players moved one seat on, and so on. Each
    rotation starts with fresh players (``Referee.start``), so within one
    player's lifetime every deal is new.
    """
    if not duplicate:
        return [(g, list(range(players))) for g in range(games_count)]
    if games_count % players:
        raise ValueError(
            f"duplicate mode needs a multiple of {players} games, " f"got {games_count}"
        )
    deals = games_count // players
    return [
        (g % deals, [(s - g // deals) % players for s in range(players)])
        for g in range(games_count)
    ]


def rotations(plan: list[tuple[int, list[int]]]) -> list[tuple[int, int]]:
    """``(first, end)`` game index ranges of ``plan`` that share one seating."""
    spans, first = [], 0
    for index in range(1, len(plan) + 1):
        if index == len(plan) or plan[index][1] != plan[first][1]:
            spans.append((first, index))
            first = index
    return spans


class Referee:
    """Runs one match; see :func:`play_match`."""

    def __init__(
        self,
        game: games.Game,
        players: Sequence[Player],
        *,
        seed: int,
        time_control: TimeControl,
        auto_forced: bool = True,
    ) -> None:
        self.game = game
        self.players = list(players)
        self.seed = seed
        self.tc = time_control
        self.auto_forced = auto_forced
        self.banks = [time_control.bank_ms] * len(players)
        self.walls = [0.0] * len(players)  # wall-clock ms spent in decisions so far

    def start(self, seats: list[int]) -> None:
        """Start every player that is still in the match with a ``hello`` for ``seats``.

        All are begun first and then waited for, so that bot programs start up side
        by side (each on its own clock) instead of one after another."""
        begun = []
        for p, player in enumerate(self.players):
            if player.fault is not None:  # out of the match: never started again
                continue
            hello = protocol.hello(
                variant=self.game.id,
                options=self.game.options,
                seat=seats.index(p),
                players=self.game.num_players,
                match={"player": p},
                time_control={"move_ms": self.tc.move_ms, "bank_ms": self.tc.bank_ms},
            )
            try:
                player.start_begin(hello, self.tc.start_ms / 1000)
                begun.append(player)
            except BotFault as fault:
                player.fault = fault
        for player in begun:
            try:
                player.start_end()
            except BotFault as fault:
                player.fault = fault

    def play_game(self, index: int, deal: int, seats: list[int]) -> GameResult:
        rotation = games.variant_info(self.game.id).dealer_rotation
        # COMMON-2: one deal per Money game, the dealer alternating game by game; the
        # other families deal many times a game and move the dealer themselves.
        dealer = deal % 2 if rotation == "alternate" else None
        seed = game_seed(self.seed, deal)
        state = self.game.new_game(seed, dealer=dealer)
        statuses = [{"status": OK, "reason": ""} for _ in seats]
        while not state.is_over():
            seat = state.current_player()
            fault = self._decide(index, state, seat, self.players[seats[seat]], seats[seat])
            if fault is not None:
                statuses[seat] = {"status": fault.status, "reason": fault.reason}
                state.forfeit(seat, fault.status)  # FORFEIT-2
        result = GameResult(
            index, seed, seats, state.scores(), state.ranking(), statuses, state.record()
        )
        for s, p in enumerate(seats):
            player = self.players[p]
            if player.fault is None:
                try:
                    player.notify(
                        protocol.result(
                            game=index,
                            scores=result.scores,
                            ranking=result.ranking,
                            seat=s,
                            status=statuses[s],
                        )
                    )
                except BotFault as fault:
                    player.fault = fault
                    player.close()
        return result

    def _decide(
        self, index: int, state: games.State, seat: int, player: Player, p: int
    ) -> BotFault | None:
        """One decision of ``player``; the fault to forfeit with, or None."""
        if player.fault is not None:
            return BotFault(player.fault.status, f"out of the match: {player.fault.reason}")
        legal = state.legal_actions()
        if self.auto_forced and len(legal) == 1:
            state.apply(legal[0])  # a forced move is no decision (ACTION-6)
            return None
        if not player.wants_observation:
            observation = None
        elif player.encodes_observation:  # encoded before the next action: nothing copied
            observation = state.shared_observation(seat)
        else:
            observation = state.observation(seat)
        message = protocol.act(
            game=index,
            observation=observation,
            legal=legal,
            time_left_ms=self.banks[p],
            move_limit_ms=self.tc.move_ms,
        )
        message["seat"] = seat
        allowed_ms = self.tc.move_ms + self.banks[p]
        cpu_before = player.cpu_time_ns()  # None: charged wall-clock time
        if cpu_before is not None:
            allowed_ms = self.tc.wall_ceiling_ms(allowed_ms)
        budget_ms = self.tc.match_wall_ms - self.walls[p] if self.tc.match_wall_ms else None
        if budget_ms is not None:
            allowed_ms = min(allowed_ms, max(0.0, budget_ms))
        started = time.perf_counter()
        try:
            label = player.act(message, allowed_ms / 1000)
        except BotFault as fault:
            if fault.status == "timeout" and budget_ms is not None and budget_ms <= allowed_ms:
                fault = self._over_wall_budget()
            player.fault = fault
            player.close()
            return fault
        wall_ms = (time.perf_counter() - started) * 1000
        self.walls[p] += wall_ms
        if budget_ms is not None and wall_ms >= budget_ms:
            player.fault = self._over_wall_budget()
            player.close()
            return player.fault
        cpu_ms = None if cpu_before is None else (player.cpu_time_ns() - cpu_before) / 1e6
        used_ms = self.tc.charge_ms(wall_ms=wall_ms, cpu_ms=cpu_ms)
        player.note_charge(used_ms)
        self.banks[p] -= max(0, int(used_ms) - self.tc.move_ms)
        if self.banks[p] < 0:
            spent = (
                f"{wall_ms:.0f} ms" if cpu_ms is None else f"{cpu_ms:.0f} ms CPU, {wall_ms:.0f} ms"
            )
            player.fault = BotFault("timeout", f"time bank exhausted ({spent} move)")
            player.close()
            return player.fault
        try:
            state.apply(label)
        except games.IllegalAction as exc:
            return BotFault(ILLEGAL, str(exc)[:300])
        return None

    def _over_wall_budget(self) -> BotFault:
        return BotFault(
            "timeout",
            f"over its wall-clock budget for the match ({self.tc.match_wall_ms / 1000:.0f} s"
            " in its decisions)",
        )

    def close(self) -> None:
        """Close every player, each even if closing another one failed."""
        _close_all(self.players)


def _close_all(players: Sequence[Player]) -> None:
    if not players:
        return
    try:
        players[0].close()
    finally:
        _close_all(players[1:])


def play_match(
    variant: str,
    players: Sequence[Player],
    *,
    games_count: int = 1,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    duplicate: bool = False,
    time_control: TimeControl | None = None,
    progress: Callable[[int, int], None] | None = None,
    fresh_rotations: bool = True,
) -> MatchResult:
    """Play ``games_count`` games of ``variant`` between ``players`` (one per seat).

    Raises ``ValueError`` for an unknown variant or option, a wrong number of
    players or a duplicate count that does not fill every rotation. Every
    player is closed (its processes killed) when the match ends, however it ends.
    Each rotation of a duplicate match starts with fresh players;
    ``fresh_rotations=False`` keeps them (for measuring what that costs, and for
    showing what a bot that remembers deals would gain: never for a ranking).
    """
    game = games.load(variant, **(options or {}))
    if len(players) != game.num_players:
        raise ValueError(f"{variant} needs {game.num_players} players, got {len(players)}")
    if isinstance(games_count, bool) or not isinstance(games_count, int) or games_count < 1:
        raise ValueError(f"games must be a positive integer, got {games_count!r}")
    plan = schedule(games_count, game.num_players, duplicate)
    tc = time_control or TimeControl()
    referee = Referee(game, players, seed=seed, time_control=tc)
    result = MatchResult(
        variant, dict(game.options), seed, duplicate, asdict(tc), [p.name for p in players]
    )
    started = time.perf_counter()
    try:
        for first, end in rotations(plan):
            if first == 0 or fresh_rotations:
                if first:  # a new rotation of the same deals: nobody may remember them
                    referee.close()
                referee.start(plan[first][1])
            for index in range(first, end):
                deal, seats = plan[index]
                result.games.append(referee.play_game(index, deal, seats))
                if progress is not None:
                    progress(index + 1, len(plan))
    finally:
        referee.close()
        result.seconds = time.perf_counter() - started
        result.logs = [player.log() for player in players]
    return result
