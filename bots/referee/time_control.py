"""A match's clock: what each decision may take and what it is charged, and its pacing.

Pure data and arithmetic; the referee (``match.Referee``) keeps the banks and the walls
and times each decision against a :class:`TimeControl`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

#: The pacing quantum of open ladders by default (``CARDROOM_LADDER_PACE_MS``, with
#: the default ``pace_jitter``): a quarter of the whole-quanta channel's bits at 20 ms
#: without jitter, for about 1.3x the time of a match of bots thinking 33 ms a decision
#: (``python -m bench.timing``, bench/README.md "Timing channel and pacing").
OPEN_LADDER_PACE_MS = 5


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
    that it times out, however little of it was charged. Its CPU time is watched while
    it runs: once it passes what the decision may still be charged, the decision is
    stopped there (``timeout``, ``killed: over its time of 2.0 s move + 20.0 s bank``),
    not at the ceiling. Players without a CPU
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
    Only the turns of paced players are held (not the platform's built-ins), and only
    where two of them sit at the table: one bot among built-ins has nobody to signal
    to (``match.Referee.pacing``).

    ``pace_jitter`` (quanta; 0: none) adds to each paced ``act`` a random whole number
    of quanta, from 0 to ``pace_jitter``, drawn from the match's secret seed
    (``schedule.pace_draws``): reproducible, but no bot can predict it. A sender that thinks
    whole quanta on purpose moves its partner's gap by as many quanta, and the draws of
    the decisions in that gap blur it (bots/sandbox/README.md, the whole-quanta bound).
    It costs ``pace_jitter / 2`` quanta a decision on average, charged to nobody.
    """

    move_ms: int = 2_000
    bank_ms: int = 20_000
    start_ms: int = 10_000  # the hello handshake (process start-up included)
    wall_factor: int = 4
    wall_grace_ms: int = 1_000
    match_wall_ms: int = 0
    pace_ms: int = 0
    pace_jitter: int = 3
    #: Left uncharged of a decision's measured wall time (pipes, wake-ups; not a wait).
    WAIT_SLACK_MS: ClassVar[float] = 20.0
    #: Where waits are not measured: a decision costs at least (wall - grace) / this.
    UNMEASURED_FACTOR: ClassVar[int] = 2

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "start_ms", "wall_factor", "wall_grace_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"time control {name} must be a positive integer, got {value!r}")
        for name in ("match_wall_ms", "pace_ms", "pace_jitter"):
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
