"""``manage.py demo`` stops cleanly on SIGTERM and SIGINT: exit status 0, no traceback,
no child left running, whenever the signal comes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.factories import processes_with_env
from tournaments.demo.processes import Child, free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_child_popen_can_no_longer_wait_for_is_still_stopped_and_collected(tmp_path):
    # A signal that interrupts Popen.poll between taking its wait lock and giving it back
    # leaves the lock held: Popen.wait then times out on a process long dead (the demo's
    # "TimeoutExpired while stopping Redis").
    child = Child("sleeper", ["sleep", "300"], tmp_path / "sleeper.log").start()
    assert child.popen._waitpid_lock.acquire(blocking=False)

    code = child.stop(timeout=0.5)

    assert code == -signal.SIGTERM
    assert not child.alive() and _gone(child.pid)


def demo_command(children: list[Child]):
    from tournaments.management.commands.demo import Command

    command = Command()
    command.children, command.stop_signal, command.starting = children, None, False
    return command


def test_a_signal_while_children_run_is_acted_on_where_the_demo_looks_not_where_it_lands(
    tmp_path,
):
    # Raised wherever it lands, the interruption could poison Popen (above) or vanish in
    # the fork's handlers with the signal: it is noted, and the demo's waits act on it.
    child = Child("sleeper", ["sleep", "300"], tmp_path / "sleeper.log").start()
    command = demo_command([child])
    try:
        command._stop_asked(signal.SIGTERM, None)  # no exception here

        with pytest.raises(KeyboardInterrupt):
            command._pause(5.0)
    finally:
        child.stop(timeout=1)
    assert command.stop_signal == signal.SIGTERM


def test_a_signal_before_any_child_interrupts_at_once_and_a_second_one_does_not():
    command = demo_command([])

    with pytest.raises(KeyboardInterrupt):
        command._stop_asked(signal.SIGINT, None)
    command._stop_asked(signal.SIGINT, None)  # while the first one is being handled

    with pytest.raises(KeyboardInterrupt):
        command._check_stop()


def start_demo(tmp_path: Path) -> tuple[subprocess.Popen, Path, str]:
    var = tmp_path / "var"
    env = dict(
        os.environ,
        CARDROOM_VAR_DIR=str(var),
        DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        PYTHONUNBUFFERED="1",
    )
    env.pop("REDIS_URL", None)
    log = tmp_path / "demo.log"
    with log.open("w") as out:
        demo = subprocess.Popen(
            [sys.executable, "manage.py", "demo", "--port", str(free_port())],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return demo, log, f"CARDROOM_VAR_DIR={var}"


def assert_stopped_cleanly(demo: subprocess.Popen, log: Path, marker: str) -> None:
    try:
        code = demo.wait(timeout=90)
    finally:
        if demo.poll() is None:
            demo.kill()
    output = log.read_text()
    assert "Traceback" not in output, output[-3000:]
    assert code == 0, output[-3000:]
    assert output.rstrip().endswith("stopped; nothing left running"), output[-3000:]
    assert wait_until(lambda: processes_with_env(marker) == [], timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_running_demo_stops_cleanly_on_a_signal(sig, tmp_path):
    demo, log, marker = start_demo(tmp_path)
    try:
        assert wait_until(
            lambda: "Press Ctrl-C to stop." in log.read_text(), timeout=120
        ), log.read_text()[-3000:]
    finally:
        demo.send_signal(sig)

    assert_stopped_cleanly(demo, log, marker)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_demo_stops_cleanly_on_a_signal_while_it_starts_its_children(sig, tmp_path):
    demo, log, marker = start_demo(tmp_path)
    try:
        # The demo itself and a first child (the embedded Redis) run: more are coming.
        assert wait_until(lambda: len(processes_with_env(marker)) >= 2, timeout=60, every=0.02)
    finally:
        demo.send_signal(sig)
    started = time.monotonic()

    assert_stopped_cleanly(demo, log, marker)
    assert "Cardroom demo is running." not in log.read_text()
    assert time.monotonic() - started < 60
