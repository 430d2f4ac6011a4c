"""Multiprocess mode: what several processes count is summed by one process's endpoint,
as a Celery worker's main process serves its pool's metrics (config.metrics)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

COUNT = """
import django; django.setup()
from config import metrics
for _ in range({n}):
    metrics.inc(metrics.MATCHES_STARTED, "ladder")
metrics.observe(lambda: metrics.MATCH_DURATION.labels("ladder").observe(2.0))
"""

SERVE = """
import django, time; django.setup()
from config import metrics
metrics.worker_server_start({port})
print("serving", flush=True)
time.sleep(30)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_workers_endpoint_sums_its_pool_processes(tmp_path):
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    for n in (3, 4):  # two pool processes, one after the other
        code = COUNT.format(n=n)
        subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True, timeout=60)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE.format(port=port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout.readline().strip() == "serving"
        deadline = time.monotonic() + 10
        while True:
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=10)

    assert 'cardroom_matches_started_total{kind="ladder"} 7.0' in text
    assert 'cardroom_match_duration_seconds_count{kind="ladder"} 2.0' in text
