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

Here are the referee and :func:`play_match`; the clock is ``time_control.py``, the
results ``results.py``, the seeds and seatings ``schedule.py`` (each of their names is
imported from here too).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import games
from bots.referee import traces as tracing
from bots.referee.messages import OUT_OF_MATCH, act_message, hello_message, result_message
from bots.referee.players import ILLEGAL, KILLED, OK, BotFault, Player
from bots.referee.results import GameResult, MatchResult
from bots.referee.schedule import game_seed, pace_draws, rotations, schedule
from bots.referee.time_control import OPEN_LADDER_PACE_MS, TimeControl

__all__ = [  # the clock, the results and the schedule are imported from here too
    "OPEN_LADDER_PACE_MS",
    "ActionApplied",
    "GameFinished",
    "GameResult",
    "MatchResult",
    "Referee",
    "TimeControl",
    "game_seed",
    "pace_draws",
    "play_match",
    "rotations",
    "schedule",
]


#: Called after each action a game applies, with the game's index and its state (read only,
#: good until the next action): for watching a match while it is played. It may return
#: when (``time.monotonic``) it next needs to be called: the referee then skips it until
#: then (a thousand actions a one-game match of quick bots, each a call otherwise).
ActionApplied = Callable[[int, games.State], float | None]
#: Called with each game as it finishes, before the next one starts.
GameFinished = Callable[[GameResult], None]


@dataclass(slots=True)
class _Turn:
    """One decision as it starts: who decides (``player``, player ``p`` at ``seat``),
    when (``time.perf_counter``), and its player's CPU count (None: charged wall-clock
    time), bank and run-queue waits (``Player.wait_snapshot``) before it."""

    seat: int
    p: int
    player: Player
    started: float
    cpu_before: int | None
    bank_before: int
    waits_before: Any


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
        #: Whether the match is paced: ``pace_ms`` set and two paced players or more at
        #: the table (a think time is a message only to another uploaded bot; one among
        #: the platform's built-ins has nobody to tell, so its validation and its house
        #: tables cost nothing, and look alike).
        self.pacing = bool(time_control.pace_ms) and sum(p.paced for p in self.players) >= 2
        #: When the game's last ``act`` went out (``time.perf_counter``), for pacing.
        self.released: float | None = None
        #: The game's jitter draws (:func:`pace_draws`), made when it starts.
        self.pace_draws: random.Random | None = None
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
        self.pace_draws = pace_draws(self.seed, index)
        if self.traces is not None:
            self.traces = []
        on_action, due, clock = self.on_action, 0.0, time.monotonic
        while not state.is_over():
            seat = state.current_player()
            fault = self._decide(index, state, seat, self.players[seats[seat]], seats[seat])
            if fault is not None:
                statuses[seat] = {"status": fault.status, "reason": fault.reason}
                state.forfeit(seat, fault.status)  # FORFEIT-2
            elif on_action is not None and (not due or clock() >= due):
                due = on_action(index, state) or 0.0
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
        """One decision of ``player`` (player ``p``, at ``seat``); the fault to forfeit
        with, or None."""
        if player.fault is not None:
            return BotFault(player.fault.status, f"{OUT_OF_MATCH}{player.fault.reason}")
        legal = state.legal_actions()
        if self.auto_forced and len(legal) == 1:
            state.apply(legal[0])  # a forced move is no decision (ACTION-6)
            self.ply += 1
            return None
        message = self._act_message(index, state, seat, player, p, legal)
        allowed_ms, budget_ms, cpu_before = self._allowance(player, p)
        if self.pacing and player.paced:
            self._pace()
        waits_before = player.wait_snapshot() if cpu_before is not None else None
        turn = _Turn(seat, p, player, time.perf_counter(), cpu_before, self.banks[p], waits_before)
        player.clock = (self.tc.move_ms, turn.bank_before)  # its CPU time is watched against it
        try:
            label = player.act(message, allowed_ms / 1000)
        except BotFault as fault:
            if self._wall_budget_ran_out(fault, budget_ms, allowed_ms):
                fault = self._over_wall_budget()
            return self._end_turn(turn, fault)
        wall_ms = (time.perf_counter() - turn.started) * 1000
        self.walls[p] += wall_ms
        if budget_ms is not None and wall_ms >= budget_ms:
            return self._end_turn(turn, self._over_wall_budget())
        return self._charge_and_apply(state, turn, label, wall_ms)

    def _act_message(
        self, index: int, state: games.State, seat: int, player: Player, p: int, legal: list[str]
    ) -> dict[str, Any]:
        """The ``act`` asking ``player`` (player ``p``, at ``seat``) to choose from ``legal``."""
        if not player.wants_observation:
            observation = None
        elif player.encodes_observation:  # encoded before the next action: nothing copied
            observation = state.shared_observation(seat)
        else:
            observation = state.observation(seat)
        return act_message(
            game=index,
            seat=seat,
            observation=observation,
            legal=legal,
            time_left_ms=self.banks[p],
            move_ms=self.tc.move_ms,
        )

    def _allowance(self, player: Player, p: int) -> tuple[float, float | None, int | None]:
        """How long the next decision of ``player`` (player ``p``) may last (ms), what is
        left of its wall-clock budget for the match (None: no budget), and its CPU count
        before it (None: it is charged wall-clock time, and may last what it may be
        charged)."""
        allowed_ms = self.tc.move_ms + self.banks[p]
        cpu_before = player.cpu_time_ns()
        if cpu_before is not None:
            allowed_ms = self.tc.wall_ceiling_ms(allowed_ms)
        budget_ms = self.tc.match_wall_ms - self.walls[p] if self.tc.match_wall_ms else None
        if budget_ms is not None:
            allowed_ms = min(allowed_ms, max(0.0, budget_ms))
        return allowed_ms, budget_ms, cpu_before

    def _end_turn(self, turn: _Turn, fault: BotFault) -> BotFault:
        """End the decision ``turn`` with ``fault`` before it was charged: the player is
        out of the match and closed, and the trace measured now. Returns ``fault``."""
        turn.player.fault = fault
        self._trace(turn, fault)
        turn.player.close()
        return fault

    def _charge_and_apply(
        self, state: games.State, turn: _Turn, label: str, wall_ms: float
    ) -> BotFault | None:
        """Charge the decision ``turn`` that answered ``label`` after ``wall_ms`` to its
        player's bank and apply it to ``state``; the fault to forfeit with (an exhausted
        bank ends the player's match, an illegal action only its game), or None."""
        player, p = turn.player, turn.p
        cpu_ms = None if turn.cpu_before is None else (player.cpu_time_ns() - turn.cpu_before) / 1e6
        waited_ms = self._waited_ms(player, turn.waits_before, wall_ms, cpu_ms)
        used_ms = self.tc.charge_ms(wall_ms=wall_ms, cpu_ms=cpu_ms, waited_ms=waited_ms)
        player.note_charge(used_ms)
        self.banks[p] -= max(0, int(used_ms) - self.tc.move_ms)
        if self.banks[p] < 0:
            spent = (
                f"{wall_ms:.0f} ms"
                if cpu_ms is None
                else f"{used_ms:.0f} ms charged: {wall_ms:.0f} ms wall, {cpu_ms:.0f} ms CPU"
            )
            player.fault = BotFault("timeout", f"time bank exhausted ({spent} move)")
            if self.traces is not None:
                self._keep_trace(turn, wall_ms, cpu_ms, used_ms, player.fault)
            player.close()
            return player.fault
        try:
            state.apply(label)
        except games.IllegalAction as exc:
            fault = BotFault(ILLEGAL, str(exc)[:300])
            if self.traces is not None:
                self._keep_trace(turn, wall_ms, cpu_ms, used_ms, fault)
            return fault
        if self.traces is not None:
            self._keep_trace(turn, wall_ms, cpu_ms, used_ms, None)
        self.ply += 1
        return None

    def _trace(self, turn: _Turn, fault: BotFault) -> None:
        """Keep the trace of the decision ``turn`` that ``fault`` ended before the referee
        measured it, if traces are kept: its times are measured here."""
        if self.traces is None:
            return
        player, cpu_before = turn.player, turn.cpu_before
        cpu_after = player.cpu_time_ns() if cpu_before is not None else None
        cpu_ms = None if cpu_after is None else (cpu_after - cpu_before) / 1e6
        wall_ms = (time.perf_counter() - turn.started) * 1000
        waited = self._waited_ms(player, turn.waits_before, wall_ms, cpu_ms)
        charged = self.tc.charge_ms(wall_ms=wall_ms, cpu_ms=cpu_ms, waited_ms=waited)
        self._keep_trace(turn, wall_ms, cpu_ms, charged, fault)

    def _keep_trace(
        self,
        turn: _Turn,
        wall_ms: float,
        cpu_ms: float | None,
        charged_ms: float,
        fault: BotFault | None,
    ) -> None:
        """Keep the trace (``bots.referee.traces``) of the decision ``turn`` just
        measured; ``fault`` ended it, if any. Called at every decision when traces are
        kept (the caller checks ``self.traces``): positional and lean."""
        seat, p, player, bank_before = turn.seat, turn.p, turn.player, turn.bank_before
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
        since the game's last one went out, plus the jitter's draw of whole quanta
        (``TimeControl.pace_ms``, ``pace_jitter``): every decision, with the referee's
        work around it, fills whole quanta of one grid, so a decision shorter than a
        quantum looks the same to every other seat however long it took, and one of
        whole quanta is blurred by draws no bot can predict."""
        last = self.released
        if last is None:
            self.released = time.perf_counter()
            return
        quantum = self.tc.pace_ms / 1000
        elapsed = time.perf_counter() - last
        quanta = max(1, math.ceil(elapsed / quantum))
        if self.tc.pace_jitter:
            quanta += self.pace_draws.randint(0, self.tc.pace_jitter)
        self.released = last + quantum * quanta
        wait = self.released - time.perf_counter()
        if wait > 0:
            time.sleep(wait)

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

    @staticmethod
    def _wall_budget_ran_out(fault: BotFault, budget_ms: float | None, allowed_ms: float) -> bool:
        """Whether ``fault`` is a timeout at the match's wall-clock budget (the shorter
        wait), not at the decision's own ceiling nor its CPU time (``killed: ...``)."""
        if fault.status != "timeout" or fault.reason.startswith(KILLED):
            return False
        return budget_ms is not None and budget_ms <= allowed_ms

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
        result.full_stderr = [player.full_stderr() for player in players]
    return result
