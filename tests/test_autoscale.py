"""config.autoscale: a pool grows by a process while its processes sleep and work waits,
never while they use the cores, and steps back without stopping a match in play.

The decisions are played against a pool and a consumer that record what they were told
(the worker's own processes and queues are ``bench.fairshare``'s, in CI: its round robin
beside a sleeping hog's match)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from celery.worker import state

from config import autoscale


class Pool:
    def __init__(self, processes: int) -> None:
        self.num_processes = processes

    def grow(self, n: int) -> None:
        self.num_processes += n

    def shrink(self, n: int) -> None:
        if len(state.active_requests) >= self.num_processes:
            raise ValueError("Can't shrink pool. All processes busy!")
        self.num_processes -= n

    def maintain_pool(self) -> None:
        pass


class Qos:
    def __init__(self, value: int) -> None:
        self.value = value

    def increment_eventually(self, n: int) -> None:
        self.value += n

    def decrement_eventually(self, n: int) -> None:
        self.value -= n


class Meter:
    def __init__(self) -> None:
        self.used = 0.0

    def cores(self) -> float:
        return self.used


class Request:  # what state.active_requests holds: anything weakly referenced
    pass


@pytest.fixture
def pool_of(monkeypatch):
    """A scaler over a pool of ``MIN`` processes that may grow to ``MAX`` (Celery's
    prefetch set for ``MAX``, as ``--autoscale`` sets it), the clock in our hands."""
    clock = [1000.0]
    monkeypatch.setattr(autoscale.time, "monotonic", lambda: clock[0])
    playing: list[Request] = []

    def make(most: int, least: int, *, waits: bool = True):
        pool = Pool(least)
        consumer = SimpleNamespace(
            qos=Qos(most), prefetch_multiplier=1, initial_prefetch_count=most
        )
        scaler = autoscale.IdleCpuAutoscaler(
            pool, most, least, worker=SimpleNamespace(consumer=consumer)
        )
        scaler.meter = Meter()
        scaler.waits = waits
        monkeypatch.setattr(scaler, "_work_waits", lambda: scaler.waits)

        def play(n: int) -> None:  # n processes busy
            for request in playing:
                state.active_requests.discard(request)
            playing[:] = [Request() for _ in range(n)]
            for request in playing:
                state.active_requests.add(request)

        def look(seconds: float = autoscale.LOOK_S) -> None:
            clock[0] += seconds
            scaler.maybe_scale()

        return scaler, pool, consumer.qos, play, look

    yield make
    for request in playing:
        state.active_requests.discard(request)


def test_a_pool_whose_busy_processes_sleep_grows_by_one_while_work_waits(pool_of):
    scaler, pool, qos, play, look = pool_of(2, 1)
    look()
    assert qos.value == 1  # as many messages held as processes, not MAX
    assert scaler.worker.consumer.initial_prefetch_count == 1  # after a reconnection too
    play(1)  # a hog's match: its process busy, its bots asleep
    scaler.meter.used = 0.02
    look()
    assert (pool.num_processes, qos.value) == (2, 2)
    play(2)  # the new process plays the waiting match on the idle core
    scaler.meter.used = 1.0
    look()
    look()
    assert (pool.num_processes, qos.value) == (2, 2)  # MAX: no further


def test_a_pool_that_uses_its_cores_or_has_nothing_waiting_does_not_grow(pool_of):
    scaler, pool, qos, play, look = pool_of(3, 2)
    play(2)
    scaler.meter.used = 1.6  # two matches thinking, a little below two cores
    for _ in range(5):
        look()
    assert (pool.num_processes, qos.value) == (2, 2)
    scaler.meter.used = 0.1
    scaler.waits = False
    look()
    assert pool.num_processes == 2  # nothing to play on a third process
    scaler.waits = True
    play(1)  # a process free: the waiting work goes to it, no need of another
    look()
    assert pool.num_processes == 2
    play(2)
    look()
    assert (pool.num_processes, qos.value) == (3, 3)


def test_a_grown_pool_steps_back_once_its_bots_wake_without_stopping_a_match(pool_of):
    scaler, pool, qos, play, look = pool_of(2, 1)
    play(1)
    scaler.meter.used = 0.0
    look()
    play(2)
    scaler.meter.used = 2.0  # the sleeping bots woke: two cores' work on one's pool
    look()
    assert (pool.num_processes, qos.value) == (2, 1)  # one message fewer, nobody stopped
    look()
    assert pool.num_processes == 2
    play(1)  # a match ended; no message came in its place
    look()
    assert (pool.num_processes, qos.value) == (1, 1)
    assert scaler.worker.consumer.initial_prefetch_count == 1


def test_a_grown_pool_with_a_process_idle_for_a_while_shrinks_back(pool_of):
    scaler, pool, qos, play, look = pool_of(3, 1)
    play(1)
    look()
    play(2)
    look()
    assert (pool.num_processes, qos.value) == (3, 3)
    play(2)
    scaler.meter.used = 0.9
    look()  # one idle, not long enough
    assert pool.num_processes == 3
    look(autoscale.IDLE_S)
    assert (pool.num_processes, qos.value) == (2, 2)
    look(autoscale.IDLE_S)
    assert pool.num_processes == 2  # none idle now


def test_the_meter_counts_the_cpu_of_a_workers_descendants(tmp_path):
    import subprocess
    import sys
    import time

    meter = autoscale.CpuMeter()
    spinner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt=time.process_time()\nwhile time.process_time()-t<0.6: pass",
        ]
    )
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.8)"])
    time.sleep(0.3)
    first = meter.cores()
    spinner.wait()
    sleeper.wait()
    assert first > 0.3, first  # the spinner's core, the sleeper's nothing
    meter.cores()
    time.sleep(0.2)
    assert meter.cores() < 0.2


def test_a_stopping_worker_does_not_grow(pool_of, monkeypatch):
    scaler, pool, qos, play, look = pool_of(2, 1)
    play(1)
    monkeypatch.setattr(state, "should_stop", 0)  # a warm shutdown: it drains
    look()
    assert pool.num_processes == 1
