"""The Django project boots, reaches its database and, when configured, Redis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection


def test_system_checks_pass():
    call_command("check", fail_level="WARNING")


@pytest.mark.django_db
def test_database_round_trip():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 + 1")
        assert cursor.fetchone()[0] == 2
    if os.environ.get("CI"):
        assert connection.vendor == "postgresql", "CI must run against PostgreSQL"


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="REDIS_URL not set")
def test_redis_answers():
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    assert client.ping()


HOST_PACKAGES = Path(__file__).resolve().parent.parent / "deploy" / "host-packages.sh"


def host_packages(purpose: str, root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, CARDROOM_HOST_ROOT=str(root))
    env.pop("CARDROOM_SKIP_HOST_PACKAGES", None)
    return subprocess.run(
        ["bash", str(HOST_PACKAGES), purpose], env=env, capture_output=True, text=True, timeout=30
    )


def fake_host(root: Path, *present: str) -> Path:
    """A directory standing for ``/`` holding only the named executables and libraries."""
    for path in present:
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("")
        target.chmod(0o755)
    return root


SANDBOX = (
    "/usr/bin/bwrap",
    "/usr/bin/prlimit",
    "/usr/bin/python3",
    "/usr/lib/python3/dist-packages/numpy/__init__.py",
)
SECCOMP = "/usr/lib/x86_64-linux-gnu/libseccomp.so.2"


def test_host_packages_names_the_one_command_that_installs_what_is_missing(tmp_path):
    bare = fake_host(tmp_path / "bare")
    done = host_packages("test", bare)
    assert done.returncode == 1
    wanted = "bubblewrap util-linux python3 python3-numpy libseccomp2 chromium postgresql"
    assert f"sudo apt-get install -y {wanted}\n" in done.stderr, done.stderr

    half = fake_host(tmp_path / "half", *SANDBOX, SECCOMP)
    done = host_packages("test", half)
    assert done.returncode == 1
    assert "sudo apt-get install -y chromium postgresql\n" in done.stderr, done.stderr
    assert host_packages("demo", half).returncode == 0  # the demo needs the sandbox only


def test_host_packages_is_silent_when_everything_is_there_and_refuses_an_unknown_purpose(
    tmp_path,
):
    full = fake_host(
        tmp_path, *SANDBOX, SECCOMP, "/usr/bin/chromium", "/usr/lib/postgresql/15/bin/initdb"
    )
    done = host_packages("test", full)
    assert (done.returncode, done.stderr) == (0, "")
    assert "redis-server" in host_packages("ci", full).stderr
    refused = host_packages("deploy", full)
    assert refused.returncode == 2 and "usage:" in refused.stderr


def test_an_empty_database_url_means_none_and_a_bad_one_is_named(tmp_path):
    """Bad input at start-up: a clear error naming the setting, not a traceback deep in
    a library; an empty value (as ``DATABASE_URL= make demo`` gives) is the default."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    probe = "import config.settings as s; print(s.DATABASES['default']['ENGINE'])"

    def start(url: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", probe],
            env={**env, "DATABASE_URL": url, "CARDROOM_VAR_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
        )

    empty, bad = start(""), start("nope://somewhere/db")
    assert empty.returncode == 0 and empty.stdout.strip() == "django.db.backends.sqlite3"
    assert bad.returncode != 0
    assert "ImproperlyConfigured: DATABASE_URL is not a database URL Cardroom can use" in (
        bad.stderr
    )
