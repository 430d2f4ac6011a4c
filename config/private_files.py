"""Cardroom's own files are private to the user that runs it.

``var/`` (``CARDROOM_VAR_DIR``) holds the secret key, the SQLite database, the
file cache, the demo's Redis and logs and (by default) the uploaded bots:
created ``0700``, its files ``0600``, whatever the umask. An existing SQLite
database that others could read is made private when the settings load; an
existing state directory keeps its mode (a deployment's may be shared with the
web server for ``static/``).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
#: The files SQLite keeps beside a database in WAL mode.
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def private_directory(path: Path) -> Path:
    """``path`` as a directory; created ``0700`` (its missing parents as usual)."""
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=PRIVATE_DIR)
            path.chmod(PRIVATE_DIR)  # mkdir's mode passes through the umask
    return path


def private_file(path: Path, *, create: bool = True) -> None:
    """Make ``path`` readable by its owner only, creating it empty if ``create``.

    Files owned by another user are left alone (they are not ours to change).
    """
    if create and not path.exists():
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE))
    with contextlib.suppress(FileNotFoundError):
        info = path.stat()
        if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
            path.chmod(PRIVATE_FILE)


def private_sqlite_database(path: Path) -> None:
    """Create the database file ``0600`` before SQLite does (an empty file is an empty
    database; SQLite gives its WAL and shared-memory files the same mode)."""
    private_directory(path.parent)
    private_file(path)
    for suffix in SQLITE_COMPANIONS:
        private_file(path.with_name(path.name + suffix), create=False)
