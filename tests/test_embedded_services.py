"""``python -m tests.services run -- CMD``: the private servers ``make test`` starts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tournaments.demo.processes import port_in_use

ROOT = Path(__file__).resolve().parent.parent

#: Tests that skip without a PostgreSQL or a Redis (and check, under CI=1, that the
#: database is PostgreSQL): with the wrapper and neither variable set, none may skip.
NEED_SERVICES = [
    "tests/test_project.py::test_database_round_trip",
    "tests/test_project.py::test_redis_answers",
    "tests/bots/test_services.py::test_concurrent_uploads_of_one_bot_get_distinct_consecutive_numbers",
    "tests/api/test_throttles.py::test_the_limits_hold_in_redis_as_configured_for_several_processes",
]


def without_services() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.pop("PYTEST_ADDOPTS", None)
    return env


def test_without_urls_the_service_tests_run_against_private_servers_and_none_skips():
    env = dict(without_services(), CI="1")
    pytest = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", "tests.services", "run", "--", *pytest, *NEED_SERVICES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert re.search(rf"\b{len(NEED_SERVICES)} passed\b", output), output
    assert "skipped" not in output, output
    urls = dict(re.findall(r"tests\.services: (DATABASE_URL|REDIS_URL)=(\S+)", output))
    assert urls["DATABASE_URL"].startswith("postgres://postgres@127.0.0.1:"), output
    assert urls["REDIS_URL"].startswith("redis://127.0.0.1:"), output
    # Both servers are gone once the command has ended.
    for url in urls.values():
        port = int(re.search(r":(\d+)/", url).group(1))
        assert not port_in_use("127.0.0.1", port), f"{url} still answers"


def test_urls_that_are_set_are_used_as_they_are_and_the_exit_code_is_the_commands():
    env = dict(
        without_services(),
        DATABASE_URL="sqlite:///elsewhere.sqlite3",
        REDIS_URL="redis://127.0.0.1:1/5",
    )
    script = (
        "import os, sys; print(os.environ['DATABASE_URL'], os.environ['REDIS_URL']); sys.exit(3)"
    )
    done = subprocess.run(
        [sys.executable, "-m", "tests.services", "run", "--", sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.strip() == "sqlite:///elsewhere.sqlite3 redis://127.0.0.1:1/5"


def test_run_without_a_command_is_refused():
    done = subprocess.run(
        [sys.executable, "-m", "tests.services", "run", "--"],
        cwd=ROOT,
        env=without_services(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "give the command to run" in done.stderr
