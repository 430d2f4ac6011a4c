"""bench.bulk's CPU accounting: a worker's child counts as the workers'; the CPUs' shared speed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from bench.bulk import ceiling, children, cores_busy, cpu_by_kind, kept_busy, parallel_speed

#: Measures time or CPU shares: run alone, after the parallel part (`make test`).
pytestmark = pytest.mark.serial

SPIN = "import time\nend = time.monotonic() + 3\nwhile time.monotonic() < end: pass\n"
PARENT = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {SPIN!r}])\n"


def test_a_busy_child_of_a_worker_counts_as_the_workers():
    parent = subprocess.Popen([sys.executable, "-c", PARENT])
    try:
        deadline = time.monotonic() + 10
        while not children(parent.pid):  # like a Celery worker's pool process
            assert time.monotonic() < deadline
            time.sleep(0.05)
        before, started = cpu_by_kind([parent.pid]), time.monotonic()
        time.sleep(1.0)
        used = cores_busy(before, cpu_by_kind([parent.pid]), time.monotonic() - started)
    finally:
        for child in children(parent.pid):
            os.kill(child, signal.SIGKILL)
        parent.kill()
        parent.wait()
    assert 0.3 <= used["workers"] <= 1.2  # one spinning process: up to a core
    assert used["busy"] >= used["workers"] - 0.1  # the machine's total includes it
    assert used["other"] >= 0.0 and used["bench"] < 0.5  # this test mostly sleeps


def test_parallel_speed_sees_two_processes_share_one_cpu():
    """Two copies pinned to one CPU run at about half the speed of one alone (each copy
    is timed from their common release, so a scheduler that runs one to its end before
    the other starts reads 2/3, not 1.0); far from the 1.0 of two CPUs of their own."""
    cpu = min(os.sched_getaffinity(0))
    shared = parallel_speed([cpu, cpu], rounds=3, loops=1_000_000)
    assert 0.35 <= shared["speed"] <= 0.75, shared
    assert shared["together_s"] > shared["alone_s"]


def test_the_ceiling_counts_only_the_cpu_the_run_kept_busy_itself():
    one = {"busy": 1.13, "stolen": 0.12}  # /proc/stat counts the host's steal as busy
    assert kept_busy(one) == pytest.approx(1.01)
    assert ceiling(2, 0.91, kept_busy(one)) == pytest.approx(2 * 0.91 / 1.01)
