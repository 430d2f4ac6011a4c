"""var/ and what Cardroom writes there are private: 0700 directories, 0600 files."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from config.private_files import private_directory, private_file, private_sqlite_database

ROOT = Path(__file__).resolve().parents[2]

#: Loads the settings with a fresh var/, writes to the SQLite database (WAL mode), the
#: file cache and media storage, the way the web, the workers and the demo do.
SCRIPT = """
import django
django.setup()
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("create table probe (x integer)")
    cursor.execute("insert into probe values (1)")
cache.set("probe", 1)
default_storage.save("bots/1/uploads/1/bot.py", ContentFile(b"print(1)"))
"""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def run_with_var(var: Path, umask: int = 0o022) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CARDROOM_", "DATABASE_", "REDIS_", "CELERY_"))
    }
    env.update(CARDROOM_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings")
    subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
        preexec_fn=lambda: os.umask(umask),
    )


def test_a_fresh_var_directory_and_its_files_are_private_under_a_lax_umask(tmp_path):
    var = tmp_path / "state" / "var"

    run_with_var(var)

    assert mode(var) == 0o700
    assert mode(var / "secret_key") == 0o600
    database = var / "cardroom.sqlite3"
    assert mode(database) == 0o600 and database.stat().st_size > 0
    for companion in ("cardroom.sqlite3-wal", "cardroom.sqlite3-shm"):
        if (var / companion).exists():
            assert mode(var / companion) == 0o600, companion
    assert mode(var / "cache") == 0o700
    assert all(mode(f) == 0o600 for f in (var / "cache").iterdir())
    upload = var / "media" / "bots" / "1" / "uploads" / "1" / "bot.py"
    assert mode(upload) == 0o600 and mode(upload.parent) == 0o700


def test_an_existing_world_readable_database_is_made_private(tmp_path):
    var = tmp_path / "var"
    var.mkdir()
    (var / "cardroom.sqlite3").write_bytes(b"")
    (var / "cardroom.sqlite3").chmod(0o644)
    (var / "secret_key").write_text("x" * 60)
    (var / "secret_key").chmod(0o644)

    run_with_var(var)

    assert mode(var / "cardroom.sqlite3") == 0o600
    assert mode(var / "secret_key") == 0o600


def test_the_helpers_create_private_paths_and_leave_existing_directories(tmp_path):
    old_umask = os.umask(0)
    try:
        created = private_directory(tmp_path / "a" / "b")
        shared = tmp_path / "shared"
        shared.mkdir(mode=0o755)
        private_directory(shared)
        private_file(tmp_path / "f")
        private_sqlite_database(tmp_path / "db" / "x.sqlite3")
    finally:
        os.umask(old_umask)

    assert mode(created) == 0o700
    assert mode(shared) == 0o755  # not created here: e.g. shared with the web server
    assert mode(tmp_path / "f") == 0o600
    assert mode(tmp_path / "db") == 0o700 and mode(tmp_path / "db" / "x.sqlite3") == 0o600
