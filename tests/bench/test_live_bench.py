"""bench.live end to end, small: results recorded here reach WebSocket clients of a real
uvicorn server through the Redis channel layer, and each is counted (none lost).

The benchmark runs as a command, as an operator runs it, on a scratch database next to
``DATABASE_URL``'s (created if missing) and a channel-layer prefix of its own.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import dj_database_url
import pytest

ROOT = Path(__file__).resolve().parents[2]
URL = os.environ.get("DATABASE_URL", "")
SERVICES = URL.startswith("postgres") and os.environ.get("REDIS_URL", "").startswith("redis")

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.slow,
]


def scratch_url(name: str) -> str:
    db = dj_database_url.parse(URL)
    user = db["USER"] or "postgres"
    return f"postgres://{user}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"


def test_results_reach_every_client_and_are_counted():
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    env = {**os.environ, "DATABASE_URL": scratch_url(f"cardroom_live_test_{worker}")}
    run = subprocess.run(
        [sys.executable, "-m", "bench.live", "--json", "--sizes", "1,5", "--seconds", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    sizes = {row["clients"]: row for row in json.loads(run.stdout)["sizes"]}

    for clients in (1, 5):
        row = sizes[clients]
        assert row["results"] >= 15, row  # 10 a second for 2 s, recorded and published
        assert row["connected"] == clients, row
        assert row["received_events"] == clients * row["results"], row  # every client saw each
        assert row["lost"] == 0, row
        assert math.isfinite(row["p95_ms"]) and row["p95_ms"] > 0, row
