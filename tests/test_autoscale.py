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
    """Each busy process's rate in cores over the window, as set by the test (None:
    not measured long enough)."""

    def __init__(self) -> None:
        self.rates: dict[int, float | None] = {}

    def look(self) -> None:
        pass

    def cores(self, pid: int | None) -> float | None:
        return self.rates.get(pid)


class Request:  # what state.active_requests holds: anything weakly referenced
    def __init__(self, pid: int) -> None:
        self.worker_pid = pid


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

        def play(*rates: float | None) -> None:  # a busy process per rate, in cores
            for request in playing:
                state.active_requests.discard(request)
            playing[:] = [Request(pid) for pid in range(1, len(rates) + 1)]
            scaler.meter.rates = dict(enumerate(rates, start=1))
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
    play(None)  # a match just started: not known asleep yet
    look()
    assert pool.num_processes == 1
    play(0.01)  # a hog's match: its process busy, its bots asleep
    look()
    assert (pool.num_processes, qos.value) == (2, 2)
    play(0.01, 0.97)  # the new process plays the waiting match on the idle core
    look()
    look()
    assert (pool.num_processes, qos.value) == (2, 2)  # MAX: no further


def test_a_pool_whose_processes_use_the_cores_or_have_nothing_waiting_does_not_grow(pool_of):
    scaler, pool, qos, play, look = pool_of(4, 2)
    play(0.9, 0.6)  # two matches thinking (one between two short matches)
    for _ in range(5):
        look()
    assert (pool.num_processes, qos.value) == (2, 2)
    play(0.01, 0.9)
    scaler.waits = False
    look()
    assert pool.num_processes == 2  # nothing to play on a third process
    scaler.waits = True
    play(0.01)  # a process free: the waiting work goes to it, no need of another
    look()
    assert pool.num_processes == 2
    play(0.01, 0.02)  # both asleep: one grown at a time
    look()
    assert (pool.num_processes, qos.value) == (3, 3)
    play(0.01, 0.02, None)  # the new one's match is awake (not known asleep yet)
    look()
    assert (pool.num_processes, qos.value) == (4, 4)  # two asleep, two may use the cores
    play(0.01, 0.02, 1.0, 0.9)
    look()
    assert (pool.num_processes, qos.value) == (4, 4)  # MAX


def test_a_grown_pool_steps_back_once_its_bots_wake_without_stopping_a_match(pool_of):
    scaler, pool, qos, play, look = pool_of(2, 1)
    play(0.0)
    look()
    play(0.9, 1.0)  # the sleeping bots woke: two awake on a pool of one core
    look()
    assert (pool.num_processes, qos.value) == (2, 1)  # one message fewer, nobody stopped
    look()
    assert pool.num_processes == 2
    play(1.0)  # a match ended; no message came in its place
    look()
    assert (pool.num_processes, qos.value) == (1, 1)
    assert scaler.worker.consumer.initial_prefetch_count == 1


def test_a_step_back_is_called_off_when_the_bots_fall_asleep_again(pool_of):
    scaler, pool, qos, play, look = pool_of(2, 1)
    play(0.0)
    look()
    play(None, None)  # two matches started afresh: two awake on a pool of one core
    look()
    assert (pool.num_processes, qos.value) == (2, 1)
    play(0.0, 0.9)  # one of them sleeps: one awake again
    look()
    assert (pool.num_processes, qos.value) == (2, 2)


def test_a_grown_pool_with_a_process_idle_for_a_while_shrinks_back(pool_of):
    scaler, pool, qos, play, look = pool_of(3, 1)
    play(0.0)
    look()
    play(0.0, 0.0)
    look()
    assert (pool.num_processes, qos.value) == (3, 3)
    play(0.0, 0.9)
    look()  # one idle, not long enough
    assert pool.num_processes == 3
    look(autoscale.IDLE_S)
    assert (pool.num_processes, qos.value) == (2, 2)
    look(autoscale.IDLE_S)
    assert pool.num_processes == 2  # none idle now


def test_the_meter_reads_each_childs_tree_over_its_window():
    import subprocess
    import sys
    import time

    meter = autoscale.CpuMeter(window_s=0.6)
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.5: pass"
    # a child whose own child spins (a pool process and its bot), and one that sleeps
    spinner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; subprocess.run([sys.executable, '-c', {spin!r}])",
        ]
    )
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.5)"])
    try:
        meter.look()
        assert meter.cores(spinner.pid) is None  # not seen long enough
        time.sleep(0.4)
        meter.look()
        time.sleep(0.4)
        meter.look()
        # its bot's core (a share of it on a loaded machine: 0.28 in a CI run), and none
        assert meter.cores(spinner.pid) > 0.1, meter.cores(spinner.pid)
        assert meter.cores(sleeper.pid) < 0.05, meter.cores(sleeper.pid)
    finally:
        spinner.wait()
        sleeper.wait()


def test_a_stopping_worker_does_not_grow(pool_of, monkeypatch):
    scaler, pool, qos, play, look = pool_of(2, 1)
    play(0.0)
    monkeypatch.setattr(state, "should_stop", 0)  # a warm shutdown: it drains
    look()
    assert pool.num_processes == 1
