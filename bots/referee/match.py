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
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import games
from bots.referee import traces as tracing
from bots.referee.messages import OUT_OF_MATCH, act_message, hello_message, result_message
from bots.referee.players import ILLEGAL, OK, BotFault, Player


@dataclass(frozen=True)
class TimeControl:
    """Per-move allowance plus a bank for the whole match, in milliseconds.

    A bot program in a cgroup is charged the wall-clock time it holds the table,
    less the time it was kept from running by others: the time its threads waited
    on a run queue, runnable but without a CPU (``/proc/<tid>/schedstat``), and the
    time the referee itself waited for one, less ``WAIT_SLACK_MS`` for the pipes.
    So a bot that sleeps or blocks pays for it, and a loaded machine costs a bot
    nothing. It is never charged less than the CPU time its whole process tree used
    during the decision. Where the waits cannot be measured (a kernel without the
    count) a decision is charged at least ``(wall - wall_grace_ms) /
    UNMEASURED_FACTOR``. A decision may last at most ``wall_factor`` times the time
    it may still be charged (``move_ms`` plus the bank) plus ``wall_grace_ms``: past
    that it times out, however little of it was charged. Players without a CPU
    count (in-process built-ins, bots run without a cgroup) are charged wall-clock
    time, and the ceiling is what they may be charged.

    ``match_wall_ms`` (0: none) bounds the wall-clock time each player may spend in
    its decisions over the whole match, whatever it was charged: a bot let off its
    waits on a crowded machine (charged less than ``move_ms`` a move) would otherwise
    stretch a long match past any worker's time limit. Past it, the bot times out
    and forfeits the rest of the match, which ends and is recorded.

    ``pace_ms`` (0: off) paces what players are sent: each ``act`` of a game goes out
    a whole number of ``pace_ms`` quanta (at least one) after the one before it,
    whoever's it was. The time between a bot's answer and its next turn then tells
    it how many quanta the other seats' decisions took, not how long each took: a
    decision shorter than a quantum is one quantum, however long it was, so a bot
    cannot read another's think time as a message (a timing channel between
    colluders). It costs the match up to one quantum a decision, charged to nobody.
    """

    move_ms: int = 2_000
    bank_ms: int = 20_000
    start_ms: int = 10_000  # the hello handshake (process start-up included)
    wall_factor: int = 4
    wall_grace_ms: int = 1_000
    match_wall_ms: int = 0
    pace_ms: int = 0
    #: Left uncharged of a decision's measured wall time (pipes, wake-ups; not a wait).
    WAIT_SLACK_MS: ClassVar[float] = 20.0
    #: Where waits are not measured: a decision costs at least (wall - grace) / this.
    UNMEASURED_FACTOR: ClassVar[int] = 2

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "start_ms", "wall_factor", "wall_grace_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"time control {name} must be a positive integer, got {value!r}")
        for name in ("match_wall_ms", "pace_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"time control {name} must be a non-negative integer, got {value!r}"
                )

    def wall_ceiling_ms(self, allowed_ms: int) -> int:
        """The wall-clock limit of a CPU-charged decision that may be charged ``allowed_ms``."""
        return allowed_ms * self.wall_factor + self.wall_grace_ms

    def charge_ms(
        self, *, wall_ms: float, cpu_ms: float | None, waited_ms: float | None = None
    ) -> float:
        """What a decision costs: its wall time less ``waited_ms`` kept from running (at
        least its CPU time; without ``waited_ms``, at least a share of its wall time),
        else, without a CPU count, its wall time."""
        if cpu_ms is None:
            return wall_ms
        if waited_ms is None:
            return max(cpu_ms, (wall_ms - self.wall_grace_ms) / self.UNMEASURED_FACTOR)
        return max(cpu_ms, wall_ms - waited_ms - self.WAIT_SLACK_MS)


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


#: Called after each action a game applies, with the game's index and its state (read only,
#: good until the next action): for watching a match while it is played.
ActionApplied = Callable[[int, games.State], None]
#: Called with each game as it finishes, before the next one starts.
GameFinished = Callable[[GameResult], None]


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
        traces: bool = True,
        on_action: ActionApplied | None = None,
    ) -> None:
        self.game = game
        self.on_action = on_action
        self.players = list(players)
        self.seed = seed
        self.tc = time_control
        self.auto_forced = auto_forced
        self.banks = [time_control.bank_ms] * len(players)
        self.walls = [0.0] * len(players)  # wall-clock ms spent in decisions so far
        #: When the game's last ``act`` went out (``time.perf_counter``), for pacing.
        self.released: float | None = None
        #: The decision traces of the game being played (``bots.referee.traces``), or
        #: None when they are not kept.
        self.traces: list[dict[str, Any]] | None = [] if traces else None
        self.ply = 0  # actions applied in the game being played
        self.stderr_budgets = [tracing.StderrBudget() for _ in self.players]
        for player in self.players:
            player.tracing = traces

    def start(self, seats: list[int]) -> None:
        """Start every player that is still in the match with a ``hello`` for ``seats``.

        All are begun first and then waited for, so that bot programs start up side
        by side (each on its own clock) instead of one after another."""
        begun = []
        for p, player in enumerate(self.players):
            if player.fault is not None:  # out of the match: never started again
                continue
            hello = hello_message(
                game=self.game,
                seat=seats.index(p),
                player=p,
                move_ms=self.tc.move_ms,
                bank_ms=self.tc.bank_ms,
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
        self.ply = 0
        self.released = None
        if self.traces is not None:
            self.traces = []
        while not state.is_over():
            seat = state.current_player()
            fault = self._decide(index, state, seat, self.players[seats[seat]], seats[seat])
            if fault is not None:
                statuses[seat] = {"status": fault.status, "reason": fault.reason}
                state.forfeit(seat, fault.status)  # FORFEIT-2
            elif self.on_action is not None:
                self.on_action(index, state)
        record = state.record()
        if self.traces is not None:
            record["traces"] = self.traces
        result = GameResult(index, seed, seats, state.scores(), state.ranking(), statuses, record)
        for s, p in enumerate(seats):
            player = self.players[p]
            if player.fault is None:
                try:
                    player.notify(
                        result_message(
                            game=index,
                            seat=s,
                            scores=result.scores,
                            ranking=result.ranking,
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
            return BotFault(player.fault.status, f"{OUT_OF_MATCH}{player.fault.reason}")
        legal = state.legal_actions()
        if self.auto_forced and len(legal) == 1:
            state.apply(legal[0])  # a forced move is no decision (ACTION-6)
            self.ply += 1
            return None
        if not player.wants_observation:
            observation = None
        elif player.encodes_observation:  # encoded before the next action: nothing copied
            observation = state.shared_observation(seat)
        else:
            observation = state.observation(seat)
        message = act_message(
            game=index,
            seat=seat,
            observation=observation,
            legal=legal,
            time_left_ms=self.banks[p],
            move_ms=self.tc.move_ms,
        )
        allowed_ms = self.tc.move_ms + self.banks[p]
        cpu_before = player.cpu_time_ns()  # None: charged wall-clock time
        if cpu_before is not None:
            allowed_ms = self.tc.wall_ceiling_ms(allowed_ms)
        budget_ms = self.tc.match_wall_ms - self.walls[p] if self.tc.match_wall_ms else None
        if budget_ms is not None:
            allowed_ms = min(allowed_ms, max(0.0, budget_ms))
        if self.tc.pace_ms:
            self._pace()
        waits_before = player.wait_snapshot() if cpu_before is not None else None
        started = time.perf_counter()
        bank_before = self.banks[p]
        try:
            label = player.act(message, allowed_ms / 1000)
        except BotFault as fault:
            if fault.status == "timeout" and budget_ms is not None and budget_ms <= allowed_ms:
                fault = self._over_wall_budget()
            player.fault = fault
            self._trace(seat, p, player, started, cpu_before, bank_before, fault, waits_before)
            player.close()
            return fault
        answered = time.perf_counter()
        wall_ms = (answered - started) * 1000
        self.walls[p] += wall_ms
        if budget_ms is not None and wall_ms >= budget_ms:
            player.fault = self._over_wall_budget()
            self._trace(
                seat, p, player, started, cpu_before, bank_before, player.fault, waits_before
            )
            player.close()
            return player.fault
        cpu_ms = None if cpu_before is None else (player.cpu_time_ns() - cpu_before) / 1e6
        waited_ms = self._waited_ms(player, waits_before, wall_ms, cpu_ms)
        used_ms = self.tc.charge_ms(wall_ms=wall_ms, cpu_ms=cpu_ms, waited_ms=waited_ms)
        player.note_charge(used_ms)
        measured = (wall_ms, cpu_ms, used_ms)
        self.banks[p] -= max(0, int(used_ms) - self.tc.move_ms)
        if self.banks[p] < 0:
            spent = (
                f"{wall_ms:.0f} ms"
                if cpu_ms is None
                else f"{used_ms:.0f} ms charged: {wall_ms:.0f} ms wall, {cpu_ms:.0f} ms CPU"
            )
            player.fault = BotFault("timeout", f"time bank exhausted ({spent} move)")
            if self.traces is not None:
                self._keep_trace(seat, p, player, bank_before, *measured, player.fault)
            player.close()
            return player.fault
        try:
            state.apply(label)
        except games.IllegalAction as exc:
            fault = BotFault(ILLEGAL, str(exc)[:300])
            if self.traces is not None:
                self._keep_trace(seat, p, player, bank_before, *measured, fault)
            return fault
        if self.traces is not None:
            self._keep_trace(seat, p, player, bank_before, wall_ms, cpu_ms, used_ms, None)
        self.ply += 1
        return None

    def _trace(
        self,
        seat: int,
        p: int,
        player: Player,
        started: float,
        cpu_before: int | None,
        bank_before: int,
        fault: BotFault,
        waits_before: Any,
    ) -> None:
        """Keep the trace of the decision of ``player`` (player ``p``) that ``fault``
        ended before the referee measured it, if traces are kept: its times are
        measured here (the waits from ``waits_before``)."""
        if self.traces is None:
            return
        cpu_after = player.cpu_time_ns() if cpu_before is not None else None
        cpu_ms = None if cpu_after is None else (cpu_after - cpu_before) / 1e6
        wall_ms = (time.perf_counter() - started) * 1000
        waited = self._waited_ms(player, waits_before, wall_ms, cpu_ms)
        charged = self.tc.charge_ms(wall_ms=wall_ms, cpu_ms=cpu_ms, waited_ms=waited)
        self._keep_trace(seat, p, player, bank_before, wall_ms, cpu_ms, charged, fault)

    def _keep_trace(
        self,
        seat: int,
        p: int,
        player: Player,
        bank_before: int,
        wall_ms: float,
        cpu_ms: float | None,
        charged_ms: float,
        fault: BotFault | None,
    ) -> None:
        """Keep the trace (``bots.referee.traces``) of the decision of ``player`` (player
        ``p``) just measured; ``fault`` ended it, if any. Called at every decision when
        traces are kept (the caller checks ``self.traces``): positional and lean."""
        move_ms = self.tc.move_ms
        bank_ms = self.banks[p]  # already charged, unless a fault came first
        over_move = int(charged_ms) - move_ms
        if over_move > 0 and bank_before - over_move < bank_ms:
            bank_ms = bank_before - over_move
        trace = tracing.make_trace(
            seat, self.ply, charged_ms, wall_ms, cpu_ms, bank_ms, move_ms + bank_before
        )
        if player.logs_decisions:
            stderr, cut, reply = player.decision_log()
            if stderr or cut:
                tracing.add_stderr(trace, *self.stderr_budgets[p].take(stderr, cut))
            if reply:
                tracing.add_note(trace, *tracing.note_of_reply(reply))
        if fault is not None:
            trace["fault"] = f"{fault.status}: {fault.reason}"
            if fault.status == "timeout":
                trace["over"] = True
        self.traces.append(trace)

    def _pace(self) -> None:
        """Hold the next ``act`` until a whole number of quanta (at least one) has passed
        since the game's last one went out (``TimeControl.pace_ms``): every decision, with
        the referee's work around it, fills whole quanta of one grid, so a decision shorter
        than a quantum looks the same to every other seat however long it took."""
        last = self.released
        if last is not None:
            quantum = self.tc.pace_ms / 1000
            elapsed = time.perf_counter() - last
            wait = quantum * max(1, math.ceil(elapsed / quantum)) - elapsed
            if wait > 0:
                time.sleep(wait)
            self.released = last + quantum * max(1, math.ceil(elapsed / quantum))
        else:
            self.released = time.perf_counter()

    def _waited_ms(
        self, player: Player, waits_before: Any, wall_ms: float, cpu_ms: float | None
    ) -> float | None:
        """How long the decision was kept from running (``Player.waited_ms``); read only
        when it can change the charge, i.e. when the wall time is more than the CPU time
        and the slack (else the charge is the CPU time whatever the waits)."""
        if waits_before is None or cpu_ms is None:
            return None
        if wall_ms - cpu_ms <= self.tc.WAIT_SLACK_MS:
            return 0.0
        return player.waited_ms(waits_before)

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
    traces: bool = True,
    on_game: GameFinished | None = None,
    on_action: ActionApplied | None = None,
) -> MatchResult:
    """Play ``games_count`` games of ``variant`` between ``players`` (one per seat).

    Raises ``ValueError`` for an unknown variant or option, a wrong number of
    players or a duplicate count that does not fill every rotation. Every
    player is closed (its processes killed) when the match ends, however it ends.
    Each rotation of a duplicate match starts with fresh players;
    ``fresh_rotations=False`` keeps them (for measuring what that costs, and for
    showing what a bot that remembers deals would gain: never for a ranking).
    Each game's record holds its decision traces (``bots.referee.traces``) under
    ``"traces"``; ``traces=False`` keeps none (for measuring what they cost).
    ``on_game`` is called with each game as it finishes and ``on_action`` after each
    action a game applies (see :data:`GameFinished`, :data:`ActionApplied`); what they
    raise ends the match.
    """
    game = games.load(variant, **(options or {}))
    if len(players) != game.num_players:
        raise ValueError(f"{variant} needs {game.num_players} players, got {len(players)}")
    if isinstance(games_count, bool) or not isinstance(games_count, int) or games_count < 1:
        raise ValueError(f"games must be a positive integer, got {games_count!r}")
    plan = schedule(games_count, game.num_players, duplicate)
    tc = time_control or TimeControl()
    referee = Referee(game, players, seed=seed, time_control=tc, traces=traces, on_action=on_action)
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
                if on_game is not None:
                    on_game(result.games[-1])
                if progress is not None:
                    progress(index + 1, len(plan))
    finally:
        referee.close()
        result.seconds = time.perf_counter() - started
        result.logs = [player.log() for player in players]
    return result
