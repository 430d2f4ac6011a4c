"""``manage.py demo`` at its default pace, every ladder running: a newcomer's upload is
validated in seconds, the workers keep consuming, the periodic queue stays short, and the
tournaments play to their end.

The demo used to pace its one worker with Celery's rate limit on ``match_run``: matches
waiting for tokens held both of its prefetch slots, so it read no other message, the
reaper's piled up in the periodic queue and uploads stayed ``validating`` for minutes.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.factories import processes_with_env
from tournaments.demo.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent
#: An upload must be answered within this long while every ladder runs (issue's bound).
VALIDATED_WITHIN_S = 60
#: The demo's three tournaments end within this long of the upload (about 160 s from its
#: start on a quiet two-core machine: bench.latency --demo).
TOURNAMENTS_WITHIN_S = 420


def _api(base: str, path: str, *, token: str = "", data: dict | None = None, files=None):
    headers = {"Authorization": f"Token {token}"} if token else {}
    body = None
    if files is not None:
        boundary = "cardroom-test-boundary"
        parts = []
        for name, (filename, content) in files.items():
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
                + content
                + b"\r\n"
            )
        for name, value in (data or {}).items():
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                f"{value}\r\n".encode()
            )
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    elif data is not None:
        body = json.dumps(data).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


def _redis_lengths(port: int, queues: tuple[str, ...]) -> dict[str, int]:
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2)
    return {queue: client.llen(queue) for queue in queues}


@pytest.mark.slow
def test_at_the_default_pace_an_upload_is_validated_in_seconds_and_no_queue_piles_up(tmp_path):
    var = tmp_path / "var"
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
        demo = subprocess.Popen(  # the default pace: no --pace
            [*manage, "demo", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        assert wait_until(lambda: "Press Ctrl-C" in log.read_text(), timeout=120), log.read_text()
        text = log.read_text()
        assert "a match every 1.5 s (--pace)" in text
        redis_port = int(re.search(r"Redis \(embedded\):\s+redis://127\.0\.0\.1:(\d+)/", text)[1])
        ladders = re.findall(r"#\d+ Open .* ladder \[", text)
        assert len(ladders) >= 3, text
        base = f"http://127.0.0.1:{port}/api"
        token = _api(
            base, "/auth/register/", data={"username": "newcomer", "password": "a-long-pass-1"}
        )["token"]
        bot = _api(base, "/bots/", token=token, data={"name": "first-bot"})["id"]
        # Let the ladders and tournaments fill the competitions' queues first.
        time.sleep(10)
        sent = time.monotonic()
        _api(
            base,
            f"/bots/{bot}/versions/",
            token=token,
            data={"variants": "manni-basic"},
            files={"file": ("bot.py", (ROOT / "bots/examples/python/bot.py").read_bytes())},
        )
        periodic_seen = []
        status = "validating"
        while time.monotonic() - sent < VALIDATED_WITHIN_S + 30:
            periodic_seen.append(_redis_lengths(redis_port, ("periodic",))["periodic"])
            status = _api(base, f"/bots/{bot}/versions/1/", token=token)["status"]
            if status != "validating":
                break
            time.sleep(0.5)
        waited = time.monotonic() - sent
        assert status == "ready", (status, log.read_text()[-3000:])
        assert waited < VALIDATED_WITHIN_S, f"validated after {waited:.1f} s"
        # The workers go on consuming: the periodic queue never holds more than one
        # message of each periodic task (the reaper and the validations' requeuing).
        for _ in range(20):
            periodic_seen.append(_redis_lengths(redis_port, ("periodic",))["periodic"])
            time.sleep(0.5)
        assert max(periodic_seen) <= 2, periodic_seen
        done = _api(base, "/matches/?status=done&page_size=1", token=token)["count"]
        assert done >= 10, f"only {done} matches played in the first minute"

        # And its tournaments play to their end in a few minutes, every ladder running.
        def tournaments() -> list[str]:
            listed = _api(base, "/competitions/?kind=tournament&page_size=100", token=token)
            return [c["status"] for c in listed["results"] if c["name"].startswith("Demo ")]

        assert len(tournaments()) == 3, tournaments()
        assert wait_until(
            lambda: set(tournaments()) == {"finished"}, timeout=TOURNAMENTS_WITHIN_S, every=2
        ), (tournaments(), log.read_text()[-3000:])
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.wait(timeout=90)
    assert wait_until(lambda: processes_with_env(f"CARDROOM_VAR_DIR={var}") == [], timeout=10)
