"""What the sandbox enforces on this host and how, in words (``python -m bots.sandbox``
prints it; README.md in this folder explains it)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import asdict

from . import landlock
from . import seccomp as syscall_filter
from .cgroup import host as cgroup_host
from .isolation import (
    _ETC_FILES,
    _SYSTEM_LINKS,
    BWRAP,
    HOST_UID_BASE,
    HOST_UID_SPAN,
    MASKED_DIRECTORIES,
    RUNTIMES,
    SANDBOX_UID,
    SDK_MOUNT,
    _probe,
    bots_engine,
    environment,
)
from .limits import Limits
from .procfs import EMPTIED, synthetic
from .resolve import BOT_MOUNT


def describe() -> dict:
    """Which isolation and limits are enforced on this host, and how."""
    probe = _probe()
    root = os.geteuid() == 0
    return {
        "available": probe.ok,
        "probe": probe.reason,
        "bwrap": BWRAP if os.access(BWRAP, os.X_OK) else None,
        "bwrap_version": _version([BWRAP, "--version"]),
        "identity": (
            f"we are root: each bot gets a fresh host uid in [{HOST_UID_BASE}, "
            f"{HOST_UID_BASE + HOST_UID_SPAN}) before bwrap, mapped to {SANDBOX_UID} inside"
            if root
            else f"unprivileged user namespace: our uid, mapped to {SANDBOX_UID} inside"
        ),
        "namespaces": [
            "user",
            "pid",
            "net (no interface but its own lo)",
            "ipc",
            "uts",
            "cgroup (if supported)",
            "mount",
        ],
        "capabilities": "all dropped",
        "user namespaces": "none inside (bwrap --disable-userns, and the filter refuses them)",
        "seccomp": _seccomp_description(),
        "landlock": (
            f"ABI {landlock.abi()}: under /proc only its first process's "
            + ", ".join(landlock.OWN)
            + " and the top-level files but "
            + ", ".join(landlock.HIDDEN)
            + " are readable (no pagemap, smaps or numa_maps: who else maps a page)"
            if landlock.abi() >= 1
            else "not available in this kernel: a bot can read its own /proc/self/pagemap"
            " and smaps (README.md, 'What remains')"
        ),
        "filesystem": {
            "read-only": [
                "/usr",
                *(f"/{name}" for name in _SYSTEM_LINKS if os.path.lexists(f"/{name}")),
                *(f"/etc/{name}" for name in _ETC_FILES if os.path.lexists(f"/etc/{name}")),
                "/etc/passwd, /etc/group (synthetic: the bot user only)",
                f"{BOT_MOUNT} (a copy of the bot's directory or file)",
                f"{SDK_MOUNT} (a copy of bots.sdk and games, on PYTHONPATH, and of the "
                "compiled build of games that fits the bots' Python, if any)",
            ],
            "masked": [
                *(f"{path} (empty, read-only)" for path in MASKED_DIRECTORIES),
                "/proc: "
                + ", ".join(sorted([*EMPTIED, *synthetic(Limits())]))
                + " (synthetic or empty)",
            ],
            "writable": "/tmp = $HOME, a private tmpfs of Limits.scratch_mb",
            "fresh": ["/proc", "/dev (minimal, read-only)"],
        },
        "environment": sorted(environment(home="/tmp", sdk=SDK_MOUNT)),
        "limits": {
            "how": "setrlimit (soft = hard) by prlimit inside the namespaces, before exec",
            "cpu_seconds": "RLIMIT_CPU, per process",
            "memory_mb": "the bot's cgroup memory limit (every process, memfd and tmpfs page), "
            "and RLIMIT_AS per process",
            "processes": "the bot's cgroup pids.max, and RLIMIT_NPROC, counted in the bot's own "
            "user namespace",
            "cpu_cores": "the bot's cgroup CPU quota",
            "file_size_mb": "RLIMIT_FSIZE",
            "open_files": "RLIMIT_NOFILE",
            "core dumps": "RLIMIT_CORE = 0",
            "scratch_mb": "size= of the /tmp tmpfs",
            "defaults": asdict(Limits()),
        },
        "cgroup": {
            **cgroup_host().describe(),
            "per bot": "one group per bot process tree: memory, pids and CPU caps, CPU time",
            "without one": "untrusted bots are refused unless CARDROOM_SANDBOX_ALLOW_NO_CGROUP=1",
        },
        "runtimes": {name: _runtime(path) for name, path in RUNTIMES.items()},
        "engine": bots_engine().describe(),
        "kill": "SIGKILL to the PID-namespace init (the kernel kills every process in it)",
    }


def _seccomp_description() -> dict:
    described = syscall_filter.describe()
    try:
        described["bpf_bytes"] = len(syscall_filter.bpf())
    except syscall_filter.SeccompUnavailable as error:
        described["unavailable"] = str(error)
    return described


def _runtime(path: str) -> str | None:
    if not os.access(path, os.X_OK):
        return None
    version = _version([path, "--version"]) if not path.endswith("/sh") else ""
    return f"{path} {version}".strip()


def _version(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout or done.stderr).decode(errors="replace").strip() or None
