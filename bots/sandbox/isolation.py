"""The bubblewrap sandbox: what a bot sees, which user it runs as, and the host probe.

A bot runs under ``bwrap`` in fresh user, PID, network, IPC, UTS and cgroup
namespaces, with no capabilities, no further user namespaces
(``--disable-userns``), a seccomp filter (``seccomp.py``), a cleared
environment and a read-only view of the system runtime (``/usr`` without
``/usr/local``, the ``/lib*``/``/bin`` links, a few ``/etc`` files). Its own
files are *copied* into the sandbox at ``/bot`` (read-only, from open file
descriptors, so no host path appears in its mount table), the Python SDK
(``bots.sdk``), the built-in players (``bots.builtin``: greedy's rules, the
search) and the pure game engines (``games``) likewise at
``/opt/cardroom`` (read-only, on ``PYTHONPATH``), and a size-capped tmpfs is
its ``/tmp`` and ``HOME``. Host-wide counters in ``/proc`` are replaced by
synthetic files (``procfs.py``). Resource limits are set by ``prlimit`` inside the
namespaces, just before the bot's command (see ``limits.py``). README.md in
this folder says what is enforced on which host, ``description.py`` in words.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import resource
import secrets
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import engine, landlock
from . import seccomp as syscall_filter
from .errors import SandboxUnavailable
from .limits import MIB, Limits
from .procfs import EMPTIED as _PROC_EMPTIED
from .procfs import synthetic as _proc_synthetic
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
#: A bot is copied into its sandbox (RAM), so it may not exceed these.
MAX_COPY_BYTES = 64 * MIB
MAX_COPY_FILES = 4096
#: Hidden behind an empty read-only tmpfs: pyenv, pip installs (the platform's own code).
MASKED_DIRECTORIES = ("/usr/local",)

_PLATFORM_ROOT = Path(__file__).resolve().parent.parent.parent
#: Packages copied into every bot's sandbox under ``SDK_MOUNT``: (source, import path).
#: Each is pure Python on the standard library alone (DESIGN.md sections 1 and 3).
MOUNTED_PACKAGES = (
    (_PLATFORM_ROOT / "bots" / "sdk", Path("bots") / "sdk"),
    (_PLATFORM_ROOT / "bots" / "builtin", Path("bots") / "builtin"),
    (_PLATFORM_ROOT / "games", Path("games")),
)
_SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_FILES = ("ld.so.cache", "localtime", "alternatives")
_PASSWD = f"bot:x:{SANDBOX_UID}:{SANDBOX_UID}:bot:/tmp:/usr/sbin/nologin\n"
_GROUP = f"bot:x:{SANDBOX_UID}:\n"


@dataclass
class Staging:
    """What one bot process needs on the host, released when it is killed.

    ``root`` is a private host directory (unsandboxed only, it holds the
    scratch directory; the SDK and engines come from ``packages()``). ``fds``
    are the open file descriptors that the last ``bwrap_argv`` call named
    (the bot's files, synthetic files, the seccomp program): pass them to
    bwrap, then ``close_fds()``.
    """

    root: Path
    bot_source: Path
    fds: list[int] = field(default_factory=list)

    def close_fds(self) -> None:
        while self.fds:
            with contextlib.suppress(OSError):
                os.close(self.fds.pop())

    def remove(self) -> None:
        self.close_fds()
        shutil.rmtree(self.root, ignore_errors=True)

    def data_fd(self, data: bytes) -> int:
        """A new in-memory file holding ``data`` at offset 0 (closed by ``close_fds``)."""
        fd = os.memfd_create("cardroom", os.MFD_CLOEXEC)
        self.fds.append(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def file_fd(self, path: Path) -> int | None:
        """``path`` opened read-only if it is a regular file (never a symlink), else None.

        Raises ``ValueError`` naming the file if it cannot be opened.
        """
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:
            raise ValueError(f"bot file {str(path)!r} cannot be read: {error.strerror}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        self.fds.append(fd)
        return fd


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

    Fresh per bot, so no two bots (nor any real user) share a uid: drawn from
    ``[HOST_UID_BASE, HOST_UID_BASE + HOST_UID_SPAN)`` when our user namespace
    maps it (the host, or a container without remapping), else from the top of
    the largest range our namespace maps (a remapped container, e.g. Docker's
    ``userns-remap`` with 65,536 ids), below its last two ids (nobody, nogroup).
    """
    if os.geteuid() != 0:
        return None
    low, span = uid_pool(_uid_map())
    return low + secrets.randbelow(span)


#: Ids below this in a remapped namespace are left to the image's own users.
REMAPPED_FIRST_UID = 10_000


def _uid_map(path: str = "/proc/self/uid_map") -> list[tuple[int, int]]:
    """``(first inside id, count)`` of each range our user namespace maps."""
    try:
        with open(path) as handle:
            rows = [line.split() for line in handle if line.strip()]
    except OSError:
        return []
    return [(int(row[0]), int(row[2])) for row in rows if len(row) == 3]


def uid_pool(ranges: list[tuple[int, int]]) -> tuple[int, int]:
    """``(first uid, how many)`` that bots draw their uids from, given the mapped ranges.

    Raises ``SandboxUnavailable`` if no mapped range leaves room for bots.
    """
    end = HOST_UID_BASE + HOST_UID_SPAN
    if not ranges or any(f <= HOST_UID_BASE and end <= f + n for f, n in ranges):
        return HOST_UID_BASE, HOST_UID_SPAN
    first, count = max(ranges, key=lambda r: r[1])
    low = max(first, REMAPPED_FIRST_UID)
    high = first + count - 2  # leave nobody (65534) and the last id alone
    if high - low < 1_000:
        raise SandboxUnavailable(
            f"the user namespace maps too few ids ({ranges}) to give each bot a uid of its own"
        )
    return low, high - low


def stage(bot_path: Path, *, uid: int | None) -> Staging:
    """Create the staging directory for a bot at ``bot_path`` (a directory or one file).

    ``uid`` is the host uid the bot will run as (``host_uid()``); the staging
    root is made traversable for it. Sandboxed, the bot's files are not copied
    here: ``bwrap_argv`` opens them and bwrap copies them into the sandbox.
    """
    root = Path(tempfile.mkdtemp(prefix="cardroom-bot-"))
    try:
        _make_public(root)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return Staging(root=root, bot_source=bot_path)


def packages() -> Path:
    """The directory holding the copies of ``MOUNTED_PACKAGES`` that every bot gets.

    Made once per process, when the first bot starts, so every bot of a
    worker gets the engine that the worker's referee imported then (and no
    bot pays for the copy); read-only, removed when the process exits.
    Sandboxed bots get their own copy of it in the sandbox; unsandboxed
    (trusted) bots have it on ``PYTHONPATH``. Beside ``games`` it holds the
    compiled build that fits the bots' Python, if there is one (``engine.py``).
    """
    return _packages()[0]


def bots_engine() -> engine.Engine:
    """The engine bots get (the compiled build or the pure source, and why)."""
    return _packages()[1]


@functools.cache
def _packages() -> tuple[Path, engine.Engine]:
    root = Path(tempfile.mkdtemp(prefix="cardroom-packages-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for source, import_path in MOUNTED_PACKAGES:
        _copy_package(source, root / import_path)
    (root / "bots" / "__init__.py").write_text("")  # not the Django app's: a bare package
    bots_get = engine.install(root, RUNTIMES["python3"])
    _make_public(root)
    for path in _walk(root):
        if path.is_file() and not path.is_symlink():  # readable by any uid, written by nobody
            path.chmod(0o444)
    return root, bots_get


def _copy_package(source: Path, target: Path) -> None:
    """Copy the Python package at ``source`` to ``target``: its source files only.

    Regular files under ``source`` (subpackages included) are copied; bytecode
    caches, hidden files and symlinks are left out. Raises ``ValueError`` if
    ``source`` is not a package (a directory with an ``__init__.py``).
    """
    if not (source / "__init__.py").is_file():
        raise ValueError(f"{str(source)!r} is not a Python package to copy into the sandbox")
    for directory, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        here = target / Path(directory).relative_to(source)
        here.mkdir(parents=True, exist_ok=True)
        for name in filenames:
            path = Path(directory) / name
            if name.startswith(".") or name.endswith((".pyc", ".pyo")) or path.is_symlink():
                continue
            if path.is_file():
                shutil.copyfile(path, here / name)


def bwrap_argv(
    command: list[str],
    *,
    staging: Staging,
    limits: Limits,
    info_fd: int,
    block_fd: int | None = None,
    seccomp: bool = True,
    landlock_reads: bool = True,
) -> list[str]:
    """The full ``bwrap`` command line running ``command`` as a sandboxed bot.

    With ``block_fd``, the sandbox's init waits for a byte (or EOF) on it after
    setting up the namespaces and before it forks or runs anything of the bot:
    the moment to move it into the bot's cgroup.

    Opens the file descriptors the command line names (the bot's files, the
    synthetic ones, the seccomp program) and records them in ``staging.fds``:
    pass them to bwrap (``pass_fds``) with ``info_fd`` and ``block_fd``, then
    call ``staging.close_fds()``; bwrap copies from each and closes it before
    the bot runs. ``seccomp=False`` leaves the system-call filter out, and
    ``landlock_reads=False`` the launcher that limits what the bot may read under
    ``/proc`` (``bots.sandbox.landlock``), to measure their cost only. Raises
    ``seccomp.SeccompUnavailable`` if the filter cannot be built and ``ValueError``
    if the bot is too large to copy.
    """
    argv = [BWRAP, "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    argv += ["--disable-userns", "--unshare-pid", "--unshare-net", "--unshare-ipc"]
    argv += ["--unshare-uts", "--unshare-cgroup-try", "--hostname", "bot", "--die-with-parent"]
    argv += ["--new-session", "--cap-drop", "ALL", "--info-fd", str(info_fd)]
    if block_fd is not None:
        argv += ["--block-fd", str(block_fd)]
    try:
        if seccomp:
            argv += ["--seccomp", str(staging.data_fd(syscall_filter.bpf()))]
        argv += _filesystem_args(staging, limits)
    except BaseException:
        staging.close_fds()
        raise
    argv += ["--clearenv"]
    for key, value in environment(home="/tmp", sdk=SDK_MOUNT).items():
        argv += ["--setenv", key, value]
    reads = landlock.launcher() if landlock_reads else []
    return [*argv, "--", *reads, PRLIMIT, *limits.prlimit_args(), "--", *command]


def _filesystem_args(staging: Staging, limits: Limits) -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for directory in MASKED_DIRECTORIES:
        if os.path.isdir(directory):
            args += ["--perms", "0755", "--size", "4096", "--tmpfs", directory]
            args += ["--remount-ro", directory]
    for name in _SYSTEM_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += _copy_data(staging, "/etc/passwd", _PASSWD.encode())
    args += _copy_data(staging, "/etc/group", _GROUP.encode())
    args += ["--proc", "/proc", *_proc_masks(staging, limits), "--dev", "/dev"]
    args += ["--size", str(limits.scratch_mb * MIB), "--perms", "1777", "--tmpfs", "/tmp"]
    args += _copy_tree(staging, packages(), SDK_MOUNT)
    source = staging.bot_source
    if source.is_file():
        args += ["--dir", BOT_MOUNT, *_copy_file(staging, source, f"{BOT_MOUNT}/{source.name}")]
    else:
        args += _copy_tree(staging, source, BOT_MOUNT)
    # The root and /dev are tmpfs the bot could fill: make them read-only last.
    return [*args, "--chdir", BOT_MOUNT, "--remount-ro", "/dev", "--remount-ro", "/"]


def _copy_data(staging: Staging, target: str, data: bytes) -> list[str]:
    return ["--perms", "0644", "--file", str(staging.data_fd(data)), target]


def _copy_file(staging: Staging, source: Path, target: str) -> list[str]:
    fd = staging.file_fd(source)
    if fd is None:  # a fifo, a device or a socket: not a bot's file
        return []
    mode = "0755" if os.fstat(fd).st_mode & stat.S_IXUSR else "0644"
    return ["--perms", mode, "--file", str(fd), target]


def _copy_tree(staging: Staging, source: Path, target: str) -> list[str]:
    """Copy a directory into the sandbox: directories, regular files, symlinks as links.

    Symlinks are never followed (a link to ``/etc/shadow`` stays a link,
    resolved inside the sandbox). Raises ``ValueError`` naming the bot if it
    has more than ``MAX_COPY_FILES`` entries or ``MAX_COPY_BYTES`` of files.
    """
    args = ["--perms", "0755", "--dir", target]
    entries = total = 0
    for directory, dirnames, filenames in os.walk(source):
        relative = Path(directory).relative_to(source)
        for name in sorted(dirnames) + sorted(filenames):
            here, there = Path(directory) / name, f"{target}/{relative / name}"
            mode = here.lstat().st_mode
            entries += 1
            if stat.S_ISLNK(mode):
                args += ["--symlink", os.readlink(here), there]
            elif stat.S_ISDIR(mode):
                args += ["--perms", "0755", "--dir", there]
            elif stat.S_ISREG(mode):
                total += here.lstat().st_size
                if not _may_open(len(staging.fds) + 256):
                    staging.close_fds()
                    raise ValueError(f"bot {str(source)!r} has more files than we may open")
                args += _copy_file(staging, here, there)
            if entries > MAX_COPY_FILES or total > MAX_COPY_BYTES:
                staging.close_fds()
                raise ValueError(
                    f"bot {str(source)!r} has more than {MAX_COPY_FILES} files or "
                    f"{MAX_COPY_BYTES} bytes"
                )
    return args


def _may_open(descriptors: int) -> bool:
    """Whether our open-file limit allows ``descriptors``, raising the soft limit if needed.

    Every copied file is a descriptor until bwrap has started, so a large bot
    may need more than a default soft limit of 1024.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or descriptors <= soft:
        return True
    if hard != resource.RLIM_INFINITY and descriptors > hard:
        return False
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, hard))
    except (ValueError, OSError):
        return False
    return True


def _proc_masks(staging: Staging, limits: Limits) -> list[str]:
    """Cover host-wide counters of the fresh /proc with synthetic read-only files."""
    masks = {name: b"" for name in _PROC_EMPTIED}
    masks.update(_proc_synthetic(limits))
    args = []
    for name, data in masks.items():
        if os.path.exists(f"/proc/{name}"):  # the sandbox's /proc is this kernel's
            args += ["--ro-bind-data", str(staging.data_fd(data)), f"/proc/{name}"]
    return args


def _walk(top: Path) -> list[Path]:
    """``top`` and everything under it, never following a symlink."""
    if not top.is_dir() or top.is_symlink():
        return [top]
    found = [top]
    for directory, dirnames, filenames in os.walk(top):
        found += [Path(directory) / name for name in dirnames + filenames]
    return found


def _make_public(root: Path) -> None:
    """Let any uid read the staging tree (whose root it may only traverse)."""
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


#: Run by the probe: succeeds only if the seccomp filter is loaded (mode 2) in the sandbox.
_PROBE_COMMAND = [
    "/bin/sh",
    "-c",
    'while read -r key value; do [ "$key" = Seccomp: ] && [ "$value" = 2 ] && exit 0; '
    "done < /proc/self/status; exit 1",
]


@functools.cache
def _probe() -> Probe:
    """Run a trivial command in the real sandbox configuration once per process.

    The command checks that it runs under a seccomp filter, so a filter that
    bwrap refuses, or one that breaks a shell, is caught here.
    """
    for tool in (BWRAP, PRLIMIT):
        if not os.access(tool, os.X_OK):
            return Probe(False, f"{tool} is not installed")
    try:
        syscall_filter.bpf()
    except syscall_filter.SeccompUnavailable as error:
        return Probe(False, str(error))
    try:
        uid = host_uid()
    except SandboxUnavailable as error:
        return Probe(False, str(error))
    with tempfile.TemporaryDirectory() as empty:
        staging = stage(Path(empty), uid=uid)
        read_end, write_end = os.pipe()
        try:
            argv = bwrap_argv(_PROBE_COMMAND, staging=staging, limits=Limits(), info_fd=write_end)
            done = subprocess.run(
                argv,
                **popen_identity(uid),
                pass_fds=[write_end, *staging.fds],
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
        message = done.stderr.decode(errors="replace").strip() or "no seccomp filter in force"
        return Probe(False, f"bwrap failed (exit {done.returncode}): {message}")
    return Probe(True, "bwrap sandbox works, with its seccomp filter")


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
