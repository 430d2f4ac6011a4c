"""A worker pool that grows by a process while its own processes sleep: Celery's
``--autoscale=MAX,MIN`` with this class (``CELERY_WORKER_AUTOSCALER``).

A worker of the competitions' lane plays ``MIN`` (its cores) matches at once. A match
whose bots sleep on every decision (a slow bot, or a hostile one that thinks just under
its move time) holds one of those processes for minutes and uses no CPU: a round of
another organiser's then plays on the processes left while a core sits idle. This
scaler looks every :data:`LOOK_S` seconds at the CPU time each pool process used with
its bots over the last :data:`WINDOW_S` seconds; a busy process that used less than
:data:`ASLEEP_CORES` of a core is **asleep**, the others are **awake**. It

- **grows** the pool by one process (up to ``MAX``) when every process is busy, fewer
  than ``MIN`` of them are awake (a process that started its match within the window
  counts as awake), and work waits (in the worker's queues, or a message
  it holds already): the new process plays the waiting work on the core the sleepers
  leave idle, so that ``MIN`` processes may use the cores whatever sleeps beside them;
- **steps back** towards ``MIN`` when more than ``MIN`` busy processes are awake (the
  sleeping bots woke up), or a process beyond ``MIN`` has been idle for
  :data:`IDLE_S`: the worker then holds one message fewer, so that a process falls idle
  at the end of its match, and stops it. A match in play is never stopped.

The worker never holds more messages than it has processes (its prefetch follows the
pool's size, with Celery's multiplier): work it cannot start at once stays in the queue
for another worker. Celery's own scaler grows on messages held alone, whatever the CPU,
and holds ``MAX`` of them from the start.

Only the worker's own processes are measured (psutil), each over a window of seconds,
so the look is the same on a busy machine as on a quiet one, and a match between two
short ones is not taken for a sleeper. ``MAX`` bounds the sleepers a worker carries:
``MIN`` + 2 lets two sleep beside ``MIN`` awake.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from celery.worker import state
from celery.worker.autoscale import Autoscaler

log = logging.getLogger(__name__)

#: Seconds between two looks at the pool.
LOOK_S = 1.0
#: A busy pool process whose whole tree (it and its bots) used less than this share of a
#: core over the last :data:`WINDOW_S` seconds is asleep: its bots wait on their clocks.
ASLEEP_CORES = 0.2
WINDOW_S = 3.0
#: A process beyond ``MIN`` idle this long is stopped.
IDLE_S = 2.0


class CpuMeter:
    """The CPU time (user and system seconds) of each of a process's children together
    with their own descendants (a pool process and its bots), over a sliding window:
    :meth:`look` samples, :meth:`cores` reads a child's rate in cores (seconds of CPU a
    second of wall clock) over the last ``window_s`` seconds, None until the child has
    been seen that long."""

    def __init__(self, pid: int | None = None, window_s: float = WINDOW_S) -> None:
        self.pid = pid or os.getpid()
        self.window_s = window_s
        self._samples: dict[int, list[tuple[float, float]]] = {}

    def look(self) -> None:
        import psutil

        now, parent, cpu = time.monotonic(), {}, {}
        for proc in psutil.process_iter(["ppid", "cpu_times"]):
            times = proc.info["cpu_times"]
            if times is None:  # it ended, or is not ours to read
                continue
            parent[proc.pid] = proc.info["ppid"]
            cpu[proc.pid] = times.user + times.system
        totals: dict[int, float] = {}
        for pid, used in cpu.items():
            node, depth = pid, 0
            while node in parent and parent[node] != self.pid and depth < 64:
                node, depth = parent[node], depth + 1
            if parent.get(node) == self.pid:  # a descendant of one of our children
                totals[node] = totals.get(node, 0.0) + used
        kept = {}
        for child, used in totals.items():
            samples = [*self._samples.get(child, []), (now, used)]
            kept[child] = [s for s in samples if now - s[0] <= self.window_s + LOOK_S]
        self._samples = kept

    def cores(self, child: int | None) -> float | None:
        samples = self._samples.get(child or -1, [])
        if len(samples) < 2 or samples[-1][0] - samples[0][0] < self.window_s - 0.01:
            return None
        (t0, c0), (t1, c1) = samples[0], samples[-1]
        return max(0.0, c1 - c0) / (t1 - t0)


class IdleCpuAutoscaler(Autoscaler):
    """Celery's autoscaler, grown on sleeping processes rather than on messages held
    (module docstring). ``maybe_scale`` runs from the worker's event loop every
    ``keepalive`` seconds, which this class sets to :data:`LOOK_S`."""

    def __init__(
        self,
        pool: Any,
        max_concurrency: int,
        min_concurrency: int = 0,
        worker: Any = None,
        keepalive: float = LOOK_S,
        mutex: Any = None,
    ) -> None:
        super().__init__(pool, max_concurrency, min_concurrency, worker, LOOK_S, mutex)
        self.meter = CpuMeter()
        self._prefetch_fitted = False
        self._stepping_back = False
        self._idle_since: float | None = None

    def asleep(self) -> int:
        """How many busy processes sleep: their tree used less than :data:`ASLEEP_CORES`
        over the meter's window (a process busy for less long is awake)."""
        self.meter.look()
        rates = [self.meter.cores(getattr(r, "worker_pid", None)) for r in state.active_requests]
        return sum(1 for rate in rates if rate is not None and rate < ASLEEP_CORES)

    def _maybe_scale(self, req: Any = None) -> bool:
        if req is not None:  # a message came: the next periodic look decides
            return False
        if state.should_stop is not None or state.should_terminate is not None:
            return False  # a stopping worker drains: it takes no new work
        self._fit_prefetch()
        procs, busy = self.processes, len(state.active_requests)
        awake = busy - self.asleep()  # the busy processes that may be using a core
        idle = busy < procs
        now = time.monotonic()
        self._idle_since = (self._idle_since or now) if idle else None
        over = procs > self.min_concurrency and awake > self.min_concurrency  # cores short
        if self._stepping_back and not over and not idle:  # they fell asleep again
            self._stepping_back = False
            self._prefetch(+1)
        if over or self._stepping_back:
            return self._step_back(idle)
        if (
            procs < self.max_concurrency
            and not idle
            and awake < self.min_concurrency
            and (len(state.reserved_requests) > busy or self._work_waits())
        ):
            log.info("pool grows to %d processes: %d of %d asleep, work waits", procs + 1,
                     busy - awake, procs)  # fmt: skip
            self.scale_up(1)
            self._prefetch(+1)
            return True
        if procs > self.min_concurrency and idle and now - (self._idle_since or now) >= IDLE_S:
            return self._step_back(idle)
        return False

    def _step_back(self, idle: bool) -> bool:
        """One process fewer: at once if one is idle, else the worker holds one message
        fewer so that one falls idle at the end of its match."""
        if not self._stepping_back:
            self._stepping_back = True
            self._prefetch(-1)
        if not idle:
            return False
        log.info("pool shrinks to %d processes", self.processes - 1)
        self._shrink(1)
        self._stepping_back = False
        self._idle_since = None
        return True

    def _work_waits(self) -> bool:
        from config.task_sending import waiting

        return waiting(list(self.worker.app.amqp.queues.consume_from or ()))

    def _fit_prefetch(self) -> None:
        """Once the consumer is up: hold as many messages as there are processes (Celery
        set its prefetch for ``MAX``)."""
        if self._prefetch_fitted:
            return
        consumer = getattr(self.worker, "consumer", None)
        if consumer is None or getattr(consumer, "qos", None) is None:
            return
        self._prefetch_fitted = True
        extra = self.max_concurrency - self.processes
        if extra > 0:
            consumer.qos.decrement_eventually(extra * consumer.prefetch_multiplier)
        self._remember(consumer, self.processes)

    def _prefetch(self, step: int) -> None:
        consumer = getattr(self.worker, "consumer", None)
        if consumer is None or getattr(consumer, "qos", None) is None:
            return
        by = abs(step) * consumer.prefetch_multiplier
        if step > 0:
            consumer.qos.increment_eventually(by)
        else:
            consumer.qos.decrement_eventually(by)
        held = consumer.initial_prefetch_count // consumer.prefetch_multiplier + step
        self._remember(consumer, held)

    @staticmethod
    def _remember(consumer: Any, held: int) -> None:
        """What the consumer's prefetch goes back to after a reconnection to the broker
        (Celery's own scaler keeps it as the pool's size does)."""
        consumer.initial_prefetch_count = max(1, held) * consumer.prefetch_multiplier
