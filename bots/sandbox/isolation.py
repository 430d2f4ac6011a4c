"""The bubblewrap sandbox: what a bot sees, which user it runs as, and the host probe.

A bot runs under ``bwrap`` in fresh user, PID, network, IPC, UTS and cgroup
namespaces, with no capabilities, a cleared environment and a read-only view
of the system runtime (``/usr`` and the ``/lib*``/``/bin`` links, a few
``/etc`` files). Its own files are read-only at ``/bot``, the Python SDK at
``/opt/cardroom`` (on ``PYTHONPATH``), and a size-capped tmpfs is its ``/tmp``
and ``HOME``. Resource limits are set by ``prlimit`` inside the namespaces,
just before the bot's command (see ``limits.py``). README.md in this folder
says what is enforced on which host.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import stat
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from .limits import MIB, Limits
from .resolve import BOT_MOUNT

BWRAP = "/usr/bin/bwrap"
PRLIMIT = "/usr/bin/prlimit"
#: The runtimes a bot's command finds on PATH: Debian's, never a user's pyenv.
RUNTIMES = {"python3": "/usr/bin/python3", "node": "/usr/bin/node", "sh": "/bin/sh"}
SANDBOX_PATH = "/usr/bin:/bin"
SDK_MOUNT = "/opt/cardroom"
#: The bot's uid/gid inside its user namespace.
SANDBOX_UID = 65534
#: When we are root, each bot runs under its own unprivileged host uid from here.
HOST_UID_BASE = 2_100_000_000
HOST_UID_SPAN = 1_000_000
#: A bot directory that must be copied (not bound in place) may not exceed this.
MAX_COPY_BYTES = 512 * MIB

_SDK_SOURCE = Path(__file__).resolve().parent.parent / "sdk" / "__init__.py"
_SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_FILES = ("ld.so.cache", "localtime", "alternatives")
_PASSWD = f"bot:x:{SANDBOX_UID}:{SANDBOX_UID}:bot:/tmp:/usr/sbin/nologin\n"
_GROUP = f"bot:x:{SANDBOX_UID}:\n"


@dataclass
class Staging:
    """A private host directory for one bot process, removed when it is killed.

    Holds the SDK copy, the synthetic passwd/group, the bot's files when they
    cannot be bound in place, and (unsandboxed only) the scratch directory.
    """

    root: Path
    bot_source: Path

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def environment(*, home: str, sdk: str) -> dict[str, str]:
    """The bot's whole environment: nothing of the platform's (no secrets)."""
    return {
        "PATH": SANDBOX_PATH,
        "HOME": home,
        "TMPDIR": home,
        "USER": "bot",
        "LOGNAME": "bot",
        "LANG": "C.UTF-8",
        "PYTHONPATH": sdk,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }


def host_uid() -> int | None:
    """The unprivileged host uid to run a bot as when we are root, else ``None``.

    Fresh per bot, so no two bots (nor any real user) share a uid.
    """
    if os.geteuid() != 0:
        return None
    return HOST_UID_BASE + secrets.randbelow(HOST_UID_SPAN)


def stage(bot_path: Path, *, uid: int | None) -> Staging:
    """Create the staging directory for a bot at ``bot_path`` (a directory or one file)."""
    root = Path(tempfile.mkdtemp(prefix="cardroom-bot-"))
    try:
        root.chmod(0o711)
        sdk = root / "sdk" / "bots" / "sdk"
        sdk.mkdir(parents=True)
        (sdk.parent / "__init__.py").write_text("")
        shutil.copyfile(_SDK_SOURCE, sdk / "__init__.py")
        (root / "etc").mkdir()
        (root / "etc" / "passwd").write_text(_PASSWD)
        (root / "etc" / "group").write_text(_GROUP)
        bot_source = bot_path
        if uid is not None and not _readable_by_others(bot_path):
            bot_source = root / "bot" / (bot_path.name if bot_path.is_file() else "")
            _copy_tree(bot_path, bot_source)
        _make_public(root)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return Staging(root=root, bot_source=bot_source)


def bwrap_argv(
    command: list[str],
    *,
    staging: Staging,
    limits: Limits,
    info_fd: int,
    block_fd: int | None = None,
) -> list[str]:
    """The full ``bwrap`` command line running ``command`` as a sandboxed bot.

    With ``block_fd``, the sandbox's init waits for a byte (or EOF) on it after
    setting up the namespaces and before it forks or runs anything of the bot:
    the moment to move it into the bot's cgroup.
    """
    argv = [BWRAP, "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    argv += ["--unshare-cgroup-try", "--hostname", "bot", "--die-with-parent"]
    argv += ["--new-session", "--cap-drop", "ALL", "--info-fd", str(info_fd)]
    if block_fd is not None:
        argv += ["--block-fd", str(block_fd)]
    argv += _filesystem_args(staging, limits)
    argv += ["--clearenv"]
    for key, value in environment(home="/tmp", sdk=SDK_MOUNT).items():
        argv += ["--setenv", key, value]
    return [*argv, "--", PRLIMIT, *limits.prlimit_args(), "--", *command]


def _filesystem_args(staging: Staging, limits: Limits) -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _SYSTEM_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--ro-bind", str(staging.root / "etc" / "passwd"), "/etc/passwd"]
    args += ["--ro-bind", str(staging.root / "etc" / "group"), "/etc/group"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--size", str(limits.scratch_mb * MIB), "--perms", "1777", "--tmpfs", "/tmp"]
    args += ["--ro-bind", str(staging.root / "sdk"), SDK_MOUNT]
    source = staging.bot_source
    target = f"{BOT_MOUNT}/{source.name}" if source.is_file() else BOT_MOUNT
    args += ["--dir", BOT_MOUNT, "--ro-bind", str(source), target, "--chdir", BOT_MOUNT]
    # The root and /dev are tmpfs the bot could fill: make them read-only last.
    return [*args, "--remount-ro", "/dev", "--remount-ro", "/"]


def _readable_by_others(path: Path) -> bool:
    """Can an unrelated uid reach ``path`` and read everything under it?"""
    for parent in path.parents:
        if not os.stat(parent).st_mode & stat.S_IXOTH:
            return False
    for entry in _walk(path):
        mode = entry.lstat().st_mode
        need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
        if not stat.S_ISLNK(mode) and mode & need != need:
            return False
    return True


def _copy_tree(source: Path, target: Path) -> None:
    """Copy regular files, directories and symlinks (as links, never followed)."""
    total = 0
    if source.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target, follow_symlinks=False)
        shutil.copymode(source, target)
        return
    target.mkdir(parents=True, exist_ok=True)
    for directory, dirnames, filenames in os.walk(source):
        relative = Path(directory).relative_to(source)
        for name in dirnames:
            here = Path(directory) / name
            if here.is_symlink():
                os.symlink(os.readlink(here), target / relative / name)
            else:
                (target / relative / name).mkdir()
        for name in filenames:
            here = Path(directory) / name
            mode = here.lstat().st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(here), target / relative / name)
            elif stat.S_ISREG(mode):
                total += here.lstat().st_size
                if total > MAX_COPY_BYTES:
                    raise ValueError(f"bot {str(source)!r} exceeds {MAX_COPY_BYTES} bytes")
                shutil.copyfile(here, target / relative / name, follow_symlinks=False)
                shutil.copymode(here, target / relative / name)


def _walk(top: Path) -> list[Path]:
    """``top`` and everything under it, never following a symlink."""
    if not top.is_dir() or top.is_symlink():
        return [top]
    found = [top]
    for directory, dirnames, filenames in os.walk(top):
        found += [Path(directory) / name for name in dirnames + filenames]
    return found


def _make_public(root: Path) -> None:
    """Let the bot's uid read the staging tree (whose root it may only traverse)."""
    for path in _walk(root):
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            continue
        if path == root:
            path.chmod(0o711)
        else:
            path.chmod(0o755 if stat.S_ISDIR(mode) or mode & stat.S_IXUSR else 0o644)


@dataclass(frozen=True)
class Probe:
    ok: bool
    reason: str


@functools.cache
def _probe() -> Probe:
    """Run a trivial command in the real sandbox configuration once per process."""
    for tool in (BWRAP, PRLIMIT):
        if not os.access(tool, os.X_OK):
            return Probe(False, f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as empty:
        uid = host_uid()
        staging = stage(Path(empty), uid=uid)
        read_end, write_end = os.pipe()
        try:
            argv = bwrap_argv(["/bin/true"], staging=staging, limits=Limits(), info_fd=write_end)
            done = subprocess.run(
                argv,
                **popen_identity(uid),
                pass_fds=[write_end],
                env={"PATH": SANDBOX_PATH},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            return Probe(False, f"bwrap could not run: {error}")
        finally:
            os.close(read_end)
            os.close(write_end)
            staging.remove()
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        return Probe(False, f"bwrap failed (exit {done.returncode}): {message}")
    return Probe(True, "bwrap sandbox works")


def popen_identity(uid: int | None) -> dict:
    """``subprocess`` keyword arguments that drop to ``uid`` (no groups) if given."""
    if uid is None:
        return {}
    return {"user": uid, "group": uid, "extra_groups": []}


def available() -> bool:
    """Whether bots can be sandboxed on this host (probed once, then cached)."""
    return _probe().ok


def unavailable_reason() -> str:
    return _probe().reason


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
        "filesystem": {
            "read-only": [
                "/usr",
                *(f"/{name}" for name in _SYSTEM_LINKS if os.path.lexists(f"/{name}")),
                *(f"/etc/{name}" for name in _ETC_FILES if os.path.lexists(f"/etc/{name}")),
                "/etc/passwd, /etc/group (synthetic: the bot user only)",
                f"{BOT_MOUNT} (the bot's directory or file)",
                f"{SDK_MOUNT} (bots.sdk, on PYTHONPATH)",
            ],
            "writable": "/tmp = $HOME, a private tmpfs of Limits.scratch_mb",
            "fresh": ["/proc", "/dev (minimal, read-only)"],
        },
        "environment": sorted(environment(home="/tmp", sdk=SDK_MOUNT)),
        "limits": {
            "how": "setrlimit (soft = hard) by prlimit inside the namespaces, before exec",
            "cpu_seconds": "RLIMIT_CPU, per process",
            "memory_mb": "RLIMIT_AS, per process",
            "processes": "RLIMIT_NPROC, counted in the bot's own user namespace",
            "file_size_mb": "RLIMIT_FSIZE",
            "open_files": "RLIMIT_NOFILE",
            "core dumps": "RLIMIT_CORE = 0",
            "scratch_mb": "size= of the /tmp tmpfs",
            "defaults": asdict(Limits()),
        },
        "cgroups": "not used: rlimits are what is enforced (see README.md)",
        "runtimes": {name: _runtime(path) for name, path in RUNTIMES.items()},
        "kill": "SIGKILL to the PID-namespace init (the kernel kills every process in it)",
    }


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
