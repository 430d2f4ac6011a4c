"""A worker pool that grows by a process while its own processes sleep: Celery's
``--autoscale=MAX,MIN`` with this class (``CELERY_WORKER_AUTOSCALER``).

A worker of the competitions' lane plays ``MIN`` (its cores) matches at once. A match
whose bots sleep on every decision (a slow bot, or a hostile one that thinks just under
its move time) holds one of those processes for minutes and uses no CPU: a round of
another organiser's then plays on the processes left while a core sits idle. This
scaler looks every :data:`LOOK_S` seconds at the CPU time its pool's processes and their
bots used since the last look, and

- **grows** the pool by one process (up to ``MAX``) when every process is busy, work
  waits (in the worker's queues, or a message it holds already), and the pool used
  less than ``MIN`` - :data:`SLACK`
  cores: the new process plays the waiting work on the idle core;
- **shrinks** it back towards ``MIN`` when a process has nothing to play, or once the
  pool uses more than ``MIN`` + :data:`SLACK` cores (the sleeping bots woke up): the
  worker then takes one message less, so that a process falls idle at the end of its
  match and is stopped. A match in play is never stopped.

The worker never holds more messages than it has processes (its prefetch follows the
pool's size, with Celery's multiplier): work it cannot start at once stays in the queue
for another worker. Celery's own scaler grows on messages held alone, whatever the CPU,
and holds ``MAX`` of them from the start.

Only the worker's own descendants are measured (psutil), so the look is the same on a
busy machine as on a quiet one; each worker of a machine grows on its own, which is why
``MAX`` should stay a process or two above ``MIN``.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from celery.worker import state
from celery.worker.autoscale import Autoscaler

log = logging.getLogger(__name__)

#: Seconds between two looks at the pool (the CPU used is measured over this window).
LOOK_S = 1.0
#: Cores of slack either way: the pool grows below ``MIN - SLACK`` cores used, steps
#: back above ``MIN + SLACK``.
SLACK = 0.5
#: A process beyond ``MIN`` idle this long is stopped.
IDLE_S = 2.0


class CpuMeter:
    """The CPU time (user and system seconds) that a process's descendants used between
    two calls of :meth:`cores`, in cores (seconds of CPU a second of wall clock)."""

    def __init__(self, pid: int | None = None) -> None:
        import psutil

        self._root = psutil.Process(pid or os.getpid())
        self._seen: dict[int, float] = {}
        self._at = time.monotonic()

    def cores(self) -> float:
        import psutil

        now, seen, used = time.monotonic(), {}, 0.0
        for child in self._root.children(recursive=True):
            try:
                times = child.cpu_times()
            except psutil.Error:  # it ended between the listing and the read
                continue
            total = times.user + times.system
            seen[child.pid] = total
            used += total - self._seen.get(child.pid, 0.0)
        elapsed, self._at, self._seen = now - self._at, now, seen
        return max(0.0, used) / elapsed if elapsed > 0 else 0.0


class IdleCpuAutoscaler(Autoscaler):
    """Celery's autoscaler, grown on idle CPU rather than on messages held (module
    docstring). ``maybe_scale`` runs from the worker's event loop every ``keepalive``
    seconds, which this class sets to :data:`LOOK_S`."""

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

    def _maybe_scale(self, req: Any = None) -> bool:
        if req is not None:  # a message came: the next periodic look decides
            return False
        if state.should_stop is not None or state.should_terminate is not None:
            return False  # a stopping worker drains: it takes no new work
        self._fit_prefetch()
        procs, busy = self.processes, len(state.active_requests)
        used = self.meter.cores()
        idle = busy < procs
        now = time.monotonic()
        self._idle_since = (self._idle_since or now) if idle else None
        if procs > self.min_concurrency and (
            used > self.min_concurrency + SLACK or self._stepping_back
        ):
            return self._step_back(idle)
        if (
            procs < self.max_concurrency
            and not idle
            and used < self.min_concurrency - SLACK
            and (len(state.reserved_requests) > busy or self._work_waits())
        ):
            log.info("pool grows to %d processes: %.2f cores used, work waits", procs + 1, used)
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
