"""The README's "REST API in five steps", run verbatim against a live ``manage.py demo``."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tournaments.demo.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## The REST API in five steps"


def walkthrough() -> str:
    """The first ``bash`` block of the README's API section, as written."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index(SECTION) :]
    block = re.search(r"^```bash\n(.*?)^```$", section, re.S | re.M)
    assert block, f"no bash block under {SECTION!r}"
    return block.group(1)


def test_the_walkthrough_takes_every_id_from_an_answer():
    script = walkthrough()
    # No hard-coded bot or competition ids: paths and bodies use the variables.
    assert not re.search(r"/(bots|competitions)/\d", script)
    assert not re.search(r'"(bot|competition)": \d', script)
    assert "jq" not in script.split()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the demo's supervision uses Linux")
def test_the_readme_walkthrough_runs_verbatim_against_the_demo(tmp_path):
    env = dict(
        os.environ,
        CARDROOM_VAR_DIR=str(tmp_path / "var"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        PYTHONUNBUFFERED="1",
    )
    env.pop("REDIS_URL", None)
    manage = [sys.executable, "manage.py"]
    port = free_port()
    log = tmp_path / "demo.log"
    with log.open("w") as out:
        demo = subprocess.Popen(
            [*manage, "demo", "--port", str(port), "--pace", "0"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        assert wait_until(
            lambda: "Press Ctrl-C" in log.read_text(), timeout=120, child=None
        ), log.read_text()
        api = f"http://127.0.0.1:{port}/api"
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", walkthrough()],
            cwd=ROOT,
            env=dict(env, CARDROOM_API=api),
            capture_output=True,
            text=True,
            timeout=300,
        )
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        assert "version 1: ready" in done.stdout, output
        finished = re.search(r"^competition (\d+): finished$", done.stdout, re.M)
        assert finished, output
        # The last step prints the standings: rank, name, points, rating; ada's bot is in it.
        rows = [line.split("\t") for line in done.stdout.splitlines() if line.count("\t") == 3]
        assert [row[0] for row in rows][:1] == ["1"], output
        assert sorted(row[1] for row in rows if "/" in row[1]) == ["ada/cheap-winner"], output
        assert len(rows) == 3, output
        with urllib.request.urlopen(f"{api}/competitions/{finished.group(1)}/standings/") as page:
            standings = json.load(page)
        assert {row["name"] for row in standings} == {row[1] for row in rows}
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.wait(timeout=60)
    assert "stopped; nothing left running" in log.read_text()
