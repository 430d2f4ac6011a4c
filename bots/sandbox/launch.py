"""Starting a bot program: in its sandbox and its cgroup, or (trusted, in development) not.

``spawn`` checks what it is given, refuses when the host cannot sandbox the bot as asked
(``SandboxUnavailable``, never a silent fallback), stages the bot's files, starts
bubblewrap with the bot's limits and moves the waiting sandbox into the bot's cgroup
before the bot runs. What it returns is a ``process.BotProcess``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from pathlib import Path

from . import isolation
from .cgroup import BotGroup, CgroupError
from .cgroup import create as create_group
from .cgroup import host as cgroup_host
from .errors import SandboxUnavailable
from .limits import Limits
from .process import BotProcess
from .resolve import BOT_MOUNT
from .stderr_archive import StderrArchive

logger = logging.getLogger(__name__)

DEFAULT_LIMITS = Limits()
#: Set to 1 by an operator to run untrusted bots on a host without a usable cgroup.
ALLOW_NO_CGROUP_ENV = "CARDROOM_SANDBOX_ALLOW_NO_CGROUP"


def spawn(
    command: list[str],
    *,
    bot_dir: Path,
    limits: Limits = DEFAULT_LIMITS,
    sandboxed: bool = True,
    cgroup: bool = True,
    seccomp: bool = True,
    landlock: bool = True,
    stderr_archive: StderrArchive | None = None,
) -> BotProcess:
    """Start a bot program; ``command`` is as run inside the sandbox (see ``resolve``).

    ``bot_dir`` is the bot's directory, or its single program file, mounted at
    ``/bot``. A sandboxed bot runs in a cgroup of its own (``cgroup.py``) that
    caps its memory, processes and CPU and counts its CPU time; ``cgroup=False``
    skips it (to measure its cost; with a warning), ``seccomp=False`` leaves
    out the system-call filter (``seccomp.py``; likewise) and ``landlock=False`` the
    limits on what it reads under ``/proc`` (``landlock.py``; likewise). ``sandboxed=False`` runs a
    plain subprocess for trusted bots in development (with a warning). Raises
    ``SandboxUnavailable`` if sandboxing was asked for and does not work here,
    or if the host has no usable cgroup and the operator did not set
    ``CARDROOM_SANDBOX_ALLOW_NO_CGROUP=1``: never falls back silently. Every byte the bot
    writes to stderr is also fed to ``stderr_archive`` if given (``stderr_archive.py``).
    """
    bot_path = _checked_bot_path(command, bot_dir)
    if not sandboxed:
        return _spawn_unsandboxed(command, bot_path, limits, stderr_archive)
    if not isolation.available():
        raise SandboxUnavailable(
            f"cannot sandbox bots on this host: {isolation.unavailable_reason()}"
        )
    group = _create_group(limits) if cgroup else None
    _warn_of_controls_left_out(bot_path, cgroup=cgroup, seccomp=seccomp, landlock=landlock)
    uid = isolation.host_uid()
    try:
        staging = isolation.stage(bot_path, uid=uid)
    except BaseException:
        _remove_quietly(group)
        raise
    popen, info_fd, block_fd = _start_bwrap(
        command, staging, limits, uid=uid, group=group, seccomp=seccomp, landlock=landlock
    )
    bot = BotProcess(
        popen,
        limits=limits,
        staging=staging,
        info_fd=info_fd,
        group=group,
        stderr_archive=stderr_archive,
    )
    if group is not None:
        _admit(bot, block_fd)
    return bot


def _checked_bot_path(command: list[str], bot_dir: Path) -> Path:
    """``bot_dir`` resolved; raises ``ValueError`` naming a bad ``command`` or a
    ``bot_dir`` that does not exist."""
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(arg, str) and arg for arg in command)
    ):
        raise ValueError(f"command must be a non-empty list of non-empty strings, got {command!r}")
    bot_path = Path(bot_dir).resolve()
    if not bot_path.exists():
        raise ValueError(f"bot_dir {str(bot_path)!r} does not exist")
    return bot_path


def _warn_of_controls_left_out(
    bot_path: Path, *, cgroup: bool, seccomp: bool, landlock: bool
) -> None:
    """Log a warning for each control the caller asked to leave out."""
    if not cgroup:
        logger.warning("running bot %s without a cgroup (asked by the caller)", bot_path)
    if not seccomp:
        logger.warning("running bot %s without a seccomp filter (asked by the caller)", bot_path)
    if not landlock:
        logger.warning("running bot %s without its Landlock reads (asked by the caller)", bot_path)


def _start_bwrap(
    command: list[str],
    staging: isolation.Staging,
    limits: Limits,
    *,
    uid: int | None,
    group: BotGroup | None,
    seccomp: bool,
    landlock: bool,
) -> tuple[subprocess.Popen, int, int | None]:
    """Start bwrap on the staged bot: its process, the read end of its ``--info-fd``
    and, with a group, the write end of the pipe its init waits on before it runs the
    bot (else None). If bwrap cannot be started, the staging files and the group are
    removed and the error raised."""
    read_end, write_end = os.pipe()
    # With a group, bwrap's init waits on block_read until we have moved it in.
    block_read, block_write = os.pipe() if group is not None else (None, None)
    pass_fds = [fd for fd in (write_end, block_read) if fd is not None]
    try:
        argv = isolation.bwrap_argv(
            command,
            staging=staging,
            limits=limits,
            info_fd=write_end,
            block_fd=block_read,
            seccomp=seccomp,
            landlock_reads=landlock,
        )
        popen = subprocess.Popen(
            argv,
            **isolation.popen_identity(uid),
            pass_fds=[*pass_fds, *staging.fds],  # the files bwrap copies into the sandbox
            env={"PATH": isolation.SANDBOX_PATH},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except BaseException:
        for fd in (read_end, block_write):
            if fd is not None:
                os.close(fd)
        staging.remove()
        _remove_quietly(group)
        raise
    finally:
        staging.close_fds()
        for fd in (write_end, block_read):
            if fd is not None:
                os.close(fd)
    return popen, read_end, block_write


def _admit(bot: BotProcess, block_fd: int) -> None:
    """Move the waiting sandbox into the bot's cgroup and let it run (``block_fd`` is
    closed either way); if that fails the bot is killed, and an ``OSError`` becomes
    ``SandboxUnavailable``."""
    try:
        bot.admit(block_fd)
    except BaseException as error:
        bot.kill()  # before block_fd closes: EOF would let the sandbox run on
        if isinstance(error, OSError):
            raise SandboxUnavailable(f"cannot start the bot in its cgroup: {error}") from error
        raise
    finally:
        os.close(block_fd)


def _create_group(limits: Limits) -> BotGroup | None:
    """The bot's cgroup; None only if the host has none and the operator allows that."""
    found = cgroup_host()
    if found.usable:
        try:
            return create_group(limits, found)
        except CgroupError as error:
            raise SandboxUnavailable(f"cannot create the bot's cgroup: {error}") from error
    if os.environ.get(ALLOW_NO_CGROUP_ENV) == "1":
        logger.warning(
            "RUNNING AN UNTRUSTED BOT WITHOUT A CGROUP (%s=1): its memory, processes and "
            "CPU are capped per process only, so it can use many times its memory limit "
            "and slow other bots down. No usable cgroup: %s",
            ALLOW_NO_CGROUP_ENV,
            found.reason,
        )
        return None
    raise SandboxUnavailable(
        f"cannot cap the bot's memory and CPU on this host: {found.reason}. "
        f"Set {ALLOW_NO_CGROUP_ENV}=1 to run untrusted bots with per-process limits only"
    )


def _remove_quietly(group: BotGroup | None) -> None:
    if group is not None:
        with contextlib.suppress(CgroupError):
            group.remove()


def _spawn_unsandboxed(
    command: list[str], bot_path: Path, limits: Limits, archive: StderrArchive | None
) -> BotProcess:
    logger.warning(
        "RUNNING BOT %s WITHOUT A SANDBOX: full access to this machine, its network "
        "and files. Only for trusted bots in development.",
        bot_path,
    )
    staging = isolation.stage(bot_path, uid=None)
    scratch = staging.root / "tmp"
    scratch.mkdir(mode=0o700)
    bot_home = bot_path if bot_path.is_dir() else bot_path.parent
    argv = [_host_path(arg, bot_path) for arg in command]
    if os.access(isolation.PRLIMIT, os.X_OK):  # all but NPROC, which would count our own uid
        rlimits = [arg for arg in limits.prlimit_args() if not arg.startswith("--nproc")]
        argv = [isolation.PRLIMIT, *rlimits, "--", *argv]
    try:
        popen = subprocess.Popen(
            argv,
            cwd=bot_home,
            env=isolation.environment(home=str(scratch), sdk=str(isolation.packages())),
            start_new_session=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except BaseException:
        staging.remove()
        raise
    return BotProcess(popen, limits=limits, staging=staging, info_fd=None, stderr_archive=archive)


def _host_path(arg: str, bot_path: Path) -> str:
    """Map an in-sandbox ``/bot/...`` argument to the bot's real location."""
    if arg != BOT_MOUNT and not arg.startswith(BOT_MOUNT + "/"):
        return arg
    if bot_path.is_file():
        return str(bot_path) if arg == f"{BOT_MOUNT}/{bot_path.name}" else arg
    return str(bot_path) + arg[len(BOT_MOUNT) :]
