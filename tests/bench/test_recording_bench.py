"""The recording benchmark records every pre-played result once, in both layouts (figures
not asserted). It runs as its own process, on a scratch database of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
POSTGRES = os.environ.get("DATABASE_URL", "").startswith("postgres")


@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL (PostgreSQL)")
def test_every_result_is_recorded_once_by_one_and_by_two_processes():
    argv = [sys.executable, "-m", "bench.recording", "--processes", "2", "--results", "4"]
    run = subprocess.run(
        [*argv, "--entries", "6", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]

    report = json.loads(run.stdout)
    runs = {(r["processes"], r["layout"]): r for r in report["runs"]}
    assert set(runs) == {(1, "one"), (2, "one"), (1, "separate"), (2, "separate")}
    for row in runs.values():
        assert row["results"] == row["expected"] == 4 * row["processes"]
        assert 0 < row["queries_per_result"] <= 12 and row["results_per_s"] > 0
    assert runs[(1, "one")]["vs_one_process"] == 1.0
