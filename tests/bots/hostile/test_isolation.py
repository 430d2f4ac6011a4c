"""Isolation in the real sandbox: the seccomp filter, what a bot can name, channels between bots.

Each refused system call is made for real by a bot (``syscalls.py``) and must
fail with the filter's errno, while ordinary programs (threads, fork,
subprocesses, files, node) keep working. Two bots of one match
(``channel.py``) try to pass a hand through locks, leases, inotify, keyrings,
access times and files on the shared runtime: what the receiver sees must be
the same whether or not the sender signals. The same pair outside the
sandbox does pass the hand, which shows the test can fail.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import signal
import sys
from pathlib import Path

import pytest

from bots.sandbox import describe, resolve, seccomp, spawn
from bots.sandbox.process import BotProcess

from ..sandbox.driver import HOSTILE, process_uid, send_act, send_hello

pyseccomp = pytest.importorskip("pyseccomp")

ROOT = Path(__file__).resolve().parents[3]
NODE = shutil.which("node", path="/usr/bin")
X86_64 = platform.machine() == "x86_64"
FD = "FD"  # syscalls.py replaces it with a descriptor open on a regular file
CLONE_NEW = seccomp.CLONE_NEW_FLAGS
SIGCHLD = 17
RWF_NOWAIT = seccomp.RWF_NOWAIT

#: Refused outright: label -> (system call, harmless arguments). Bad pointers
#: (1), bad descriptors (-1) and bad values make each fail, or do nothing,
#: even for root outside the sandbox (the control run below).
REFUSED_CALLS = {
    "unshare(CLONE_NEWUSER)": ("unshare", CLONE_NEW["CLONE_NEWUSER"]),
    "setns": ("setns", -1, 0),
    "mount": ("mount", 1, 1, 1, 0, 0),
    "umount2": ("umount2", 1, 0),
    "pivot_root": ("pivot_root", 1, 1),
    "chroot": ("chroot", 1),
    "move_mount": ("move_mount", -1, 1, -1, 1, 0),
    "open_tree": ("open_tree", -1, 1, 0),
    "fsopen": ("fsopen", 1, 0),
    "fsconfig": ("fsconfig", -1, 0, 0, 0, 0),
    "fsmount": ("fsmount", -1, 0, 0),
    "fspick": ("fspick", -1, 1, 0),
    "mount_setattr": ("mount_setattr", -1, 1, 0, 1, 32),
    "io_uring_setup": ("io_uring_setup", 1, 1),
    "io_uring_enter": ("io_uring_enter", -1, 0, 0, 0, 0, 0),
    "io_uring_register": ("io_uring_register", -1, 0, 0, 0),
    "keyctl": ("keyctl", 0, -3, 0),
    "add_key": ("add_key", 1, 1, 0, 0, -3),
    "request_key": ("request_key", 1, 1, 0, 0),
    "bpf": ("bpf", 0, 1, 0),
    "perf_event_open": ("perf_event_open", 1, 0, -1, -1, 0),
    "userfaultfd": ("userfaultfd", 0xFFFFFFFF),
    "modify_ldt": ("modify_ldt", 0x7F, 0, 0),
    "uselib": ("uselib", 1),
    "io_setup": ("io_setup", 0, 1),
    "ptrace": ("ptrace", 3, 0, 0, 0),
    "process_vm_readv": ("process_vm_readv", 0, 0, 0, 0, 0, 1),
    "process_vm_writev": ("process_vm_writev", 0, 0, 0, 0, 0, 1),
    "process_madvise": ("process_madvise", -1, 0, 0, 0, 0),
    "pidfd_getfd": ("pidfd_getfd", -1, 0, 0),
    "kexec_load": ("kexec_load", 0, 1000, 0, 0),
    "kexec_file_load": ("kexec_file_load", -1, -1, 0, 0, 0x80000000),
    "init_module": ("init_module", 1, 64, 1),
    "finit_module": ("finit_module", -1, 1, 0),
    "delete_module": ("delete_module", 1, 0),
    "swapon": ("swapon", 1, 0),
    "swapoff": ("swapoff", 1),
    "reboot": ("reboot", 0, 0, 0, 0),
    "settimeofday": ("settimeofday", 1, 1),
    "clock_settime": ("clock_settime", 0, 1),
    "clock_adjtime": ("clock_adjtime", 0, 1),
    "adjtimex": ("adjtimex", 1),
    "acct": ("acct", 1),
    "quotactl": ("quotactl", 0, 1, 0, 0),
    "quotactl_fd": ("quotactl_fd", -1, 0, 0, 0),
    "lookup_dcookie": ("lookup_dcookie", 0, 0, 0),
    "name_to_handle_at": ("name_to_handle_at", -100, 1, 1, 1, 0),
    "open_by_handle_at": ("open_by_handle_at", -1, 1, 0),
    "vhangup": ("vhangup",),
    "syslog": ("syslog", 10, 0, 0),
    "ioperm": ("ioperm", 0x10000, 1, 0),
    "iopl": ("iopl", 4),
    "flock": ("flock", FD, 1),
    "inotify_init": ("inotify_init",),
    "inotify_init1": ("inotify_init1", 0),
    "inotify_add_watch": ("inotify_add_watch", -1, 1, 1),
    "inotify_rm_watch": ("inotify_rm_watch", -1, 0),
    "fanotify_init": ("fanotify_init", 0x200, 0),
    "fanotify_mark": ("fanotify_mark", -1, 0, 0, -1, 0),
    "mincore": ("mincore", 0, 4096, 1),
    "readahead": ("readahead", FD, 0, 4096),
    "fadvise64": ("fadvise64", FD, 0, 0, 4),
    "cachestat": ("cachestat", FD, 1, 1, 0),
    "clone3": ("clone3", 1, 88),
}
#: Refused because of an argument (EPERM unless said otherwise).
REFUSED_BY_ARGUMENT = {
    **{f"clone({flag})": ("clone", bit | SIGCHLD, 0, 0, 0, 0) for flag, bit in CLONE_NEW.items()},
    "clone(CLONE_NEWUSER, high bits set)": (
        "clone",
        (1 << 40) | CLONE_NEW["CLONE_NEWUSER"] | SIGCHLD,
        0,
        0,
        0,
        0,
    ),
    **{
        f"fcntl({name})": ("fcntl", FD, number, 1) for name, number in seccomp.FCNTL_REFUSED.items()
    },
    "fcntl(F_SETLK, high bits set)": ("fcntl", FD, (1 << 32) | 6, 1),
    **{
        f"madvise({name})": ("madvise", 0, 0, advice)
        for name, advice in seccomp.MADVISE_REFUSED.items()
    },
    "preadv2(RWF_NOWAIT)": ("preadv2", FD, 0, 0, 0, 0, RWF_NOWAIT),
    "pwritev2(RWF_NOWAIT)": ("pwritev2", FD, 0, 0, 0, 0, RWF_NOWAIT),
    "personality(ADDR_NO_RANDOMIZE)": ("personality", 0x0040000),
    "personality(high bits set)": ("personality", (1 << 32) | 0x0040000),
    "personality(READ_IMPLIES_EXEC)": ("personality", 0x0400000),
}
#: Allowed uses of the same system calls: none may fail with the filter's errno.
ALLOWED_CALLS = {
    "clone(SIGCHLD)": ("clone", SIGCHLD, 0, 0, 0, 0),
    "fcntl(F_GETFL)": ("fcntl", FD, 3, 0),
    "fcntl(F_GETFD)": ("fcntl", FD, 1, 0),
    "madvise(MADV_DONTNEED)": ("madvise", 0, 0, 4),
    "preadv2(0)": ("preadv2", FD, 0, 0, 0, 0, 0),
    "personality(query)": ("personality", 0xFFFFFFFF),
    "personality(PER_LINUX)": ("personality", 0),
}


def numbered(calls: dict) -> dict:
    """The calls as ``syscalls.py`` takes them: [number, args...] (libseccomp's numbers)."""
    table = {}
    for label, (name, *args) in calls.items():
        number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name)
        if number >= 0:
            table[label] = [number, *args]
    return table


def expected_errno(label: str) -> str:
    return "ENOSYS" if label.startswith(seccomp.REFUSED_ENOSYS) else "EPERM"


def start(name: str, running: list, **kwargs) -> BotProcess:
    command, bot_dir = resolve(HOSTILE / f"{name}.py")
    bot = spawn(command, bot_dir=bot_dir, **kwargs)
    running.append(bot)
    return bot


def hello_reply(bot: BotProcess, options: dict) -> dict:
    send_hello(bot, options)
    return json.loads(bot.readline(timeout_s=30))


def report(bot: BotProcess, timeout_s: float = 60.0) -> dict:
    send_act(bot)
    return json.loads(bot.readline(timeout_s))["report"]


@pytest.fixture
def running():
    bots: list[BotProcess] = []
    yield bots
    for bot in bots:
        bot.kill()
        assert bot.survivors() == []


def syscall_report(running, *, sandboxed: bool = True, calls: dict | None = None) -> dict:
    bot = start("syscalls", running, sandboxed=sandboxed)
    calls = (
        calls if calls is not None else {**REFUSED_CALLS, **REFUSED_BY_ARGUMENT, **ALLOWED_CALLS}
    )
    assert hello_reply(bot, {"calls": numbered(calls)})["ready"] is True
    return report(bot)


@pytest.mark.skipif(not X86_64, reason="the harmless arguments are written for x86_64")
def test_every_system_call_the_filter_lists_is_refused(running):
    found = syscall_report(running)

    wrong = {
        label: found[label]
        for label in [*REFUSED_CALLS, *REFUSED_BY_ARGUMENT]
        if label in found and found[label] != expected_errno(label)
    }
    assert wrong == {}
    assert any(row.split() == ["Seccomp:", "2"] for row in found["seccomp"])


@pytest.mark.skipif(not X86_64, reason="the harmless arguments are written for x86_64")
def test_the_same_calls_fail_otherwise_outside_the_sandbox(running):
    """Control: the EPERM above is the filter's, not the kernel refusing bad arguments."""
    found = syscall_report(running, sandboxed=False)

    eperm = {label for label in [*REFUSED_CALLS, *REFUSED_BY_ARGUMENT] if found[label] == "EPERM"}
    if os.geteuid() == 0:  # unprivileged, the kernel itself refuses some with EPERM
        assert eperm == set()
    for label in ("flock", "inotify_init1", "keyctl", "fcntl(F_GETLK)", "readahead", "clone3"):
        assert found[label] != "EPERM" and found[label] != "ENOSYS", label
    assert found["arch"]["x32"] != f"signal {signal.SIGSYS}"


@pytest.mark.skipif(not X86_64, reason="the harmless arguments are written for x86_64")
def test_the_filter_leaves_ordinary_calls_and_programs_alone(running):
    found = syscall_report(running, calls=ALLOWED_CALLS)

    assert {label: found[label] for label in ALLOWED_CALLS} == {
        "clone(SIGCHLD)": "ok",
        "fcntl(F_GETFL)": "ok",
        "fcntl(F_GETFD)": "ok",
        "madvise(MADV_DONTNEED)": "ok",
        "preadv2(0)": "ok",
        "personality(query)": "ok",
        "personality(PER_LINUX)": "ok",
    }
    assert found["ordinary"] == {
        "thread": "ok",
        "fork": "ok",
        "subprocess": "ok",
        "read own file": "ok",
        "write /tmp": "ok",
        "listdir /usr/lib": "ok",
    }


def test_clone3_is_refused_with_enosys_so_libc_falls_back_to_clone(running):
    found = syscall_report(running, calls={"clone3": ("clone3", 1, 88)})

    assert found["clone3"] == "ENOSYS"
    assert found["ordinary"]["thread"] == "ok"  # glibc's pthread_create used clone instead


@pytest.mark.skipif(not X86_64, reason="i386 and x32 system calls exist on x86_64 only")
def test_system_calls_of_other_architectures_kill_the_process(running):
    found = syscall_report(running, calls={})

    assert found["arch"] == {"i386": f"signal {signal.SIGSYS}", "x32": f"signal {signal.SIGSYS}"}


@pytest.mark.skipif(NODE is None, reason="Debian's node is not installed")
def test_node_runs_under_the_filter(tmp_path, running):
    program = tmp_path / "bot.js"
    program.write_text(
        "const os = require('os'), fs = require('fs'), cp = require('child_process');\n"
        "fs.writeFileSync('/tmp/x', 'y');\n"
        "setTimeout(() => {\n"
        "  const sub = cp.execFileSync('/bin/sh', ['-c', 'echo sub']).toString().trim();\n"
        "  console.log(JSON.stringify({ sub, file: fs.readFileSync('/tmp/x', 'utf8'),"
        " cpus: os.cpus().length, mem: os.totalmem(), load: os.loadavg() }));\n"
        "}, 10);\n"
    )
    command, bot_dir = resolve(program)
    bot = spawn(command, bot_dir=bot_dir)
    running.append(bot)

    line = json.loads(bot.readline(timeout_s=60))

    assert line["sub"] == "sub" and line["file"] == "y"
    assert line["cpus"] >= 1 and line["mem"] > 0 and line["load"] == [0, 0, 0]


@pytest.mark.parametrize(
    ("with_filter", "refusal"),
    [(True, "Operation not permitted"), (False, "No space left on device")],
    ids=["filter", "disable-userns-alone"],
)
def test_a_nested_user_namespace_cannot_be_made(tmp_path, running, with_filter, refusal):
    """Refused twice over: by the filter, and without it by bwrap's --disable-userns."""
    program = tmp_path / "nest.sh"
    program.write_text(
        "unshare -U true 2>&1 && echo worked\n"
        "unshare -Ur true 2>&1 && echo worked\n"
        "echo done\n"
    )
    command, bot_dir = resolve(program)
    bot = spawn(command, bot_dir=bot_dir, seccomp=with_filter)
    running.append(bot)

    lines = [bot.readline(timeout_s=30).decode() for _ in range(3)]

    assert lines[2] == "done"
    for line in lines[:2]:
        assert line.startswith("unshare: unshare failed") and refusal in line


def probe_paths(running, paths: list[str]) -> dict:
    bot = start("viewer", running)
    assert hello_reply(bot, {"paths": paths})["ready"] is True
    return report(bot)


def test_mountinfo_names_no_host_path_and_no_host_uid(running, tmp_path):
    bot_dir = tmp_path / "secret-bot-dir"
    bot_dir.mkdir()
    (bot_dir / "bot.py").write_text((HOSTILE / "viewer.py").read_text())
    (bot_dir / "lib").mkdir()
    (bot_dir / "lib" / "helper.py").write_text("")
    (bot_dir / "link").symlink_to("/etc/shadow")
    command, resolved = resolve(bot_dir)
    # What the mounts show where Landlock (landlock.py) does not hide mountinfo.
    bot = spawn(command, bot_dir=resolved, landlock=False)
    running.append(bot)
    send_hello(bot, {"paths": ["/proc/self/mountinfo", "/bot", "/bot/lib"]})
    bot.readline(timeout_s=30)

    found = report(bot)
    mountinfo = found["/proc/self/mountinfo"]
    sandbox_host_uid = process_uid(bot.pid)

    assert found["/bot"] == "dir: bot.py,lib,link" and found["/bot/lib"] == "dir: helper.py"
    for host_path in (str(tmp_path), "secret-bot-dir", "cardroom-bot-", "/work", "/root", "/home"):
        assert host_path not in mountinfo
    mounted_from = {line.split()[3] for line in mountinfo.removeprefix("read: ").splitlines()}
    assert not [root for root in mounted_from if root.startswith(("/tmp", "/var", "/opt"))]
    # The only host uid tmpfs may name is the bot's own fresh one (README: what remains).
    uids = set(re.findall(r"[^s]uid=(\d+)", mountinfo)) | set(
        re.findall(r"[^s]gid=(\d+)", mountinfo)
    )
    assert str(os.getuid()) not in uids or os.getuid() == sandbox_host_uid
    assert uids <= {str(sandbox_host_uid)}


def test_usr_local_and_the_platform_code_are_not_visible(running):
    venv = Path(sys.prefix)
    site = next(Path(p) for p in sys.path if p.endswith("site-packages"))
    paths = ["/usr/local", str(ROOT), str(venv), str(site), "/opt/cardroom/bots", "/work"]

    found = probe_paths(running, paths)

    assert found["/usr/local"] == "dir: "
    assert found["/opt/cardroom/bots"] == "dir: __init__.py,builtin,sdk"
    for path in (str(ROOT), str(venv), str(site), "/work"):
        assert found[path] == "missing", path


def test_host_wide_counters_in_proc_are_synthetic(running):
    counters = ["/proc/loadavg", "/proc/vmstat", "/proc/interrupts", "/proc/diskstats"]
    counters += ["/proc/schedstat", "/proc/pressure/cpu", "/proc/sys/fs/file-nr", "/proc/locks"]

    found = probe_paths(running, [*counters, "/proc/meminfo", "/proc/stat"])

    assert found["/proc/loadavg"] == "read: 0.00 0.00 0.00 1/1 1\n"
    for path in counters[1:]:
        assert found[path] in ("read: ", "missing"), path
    assert found["/proc/meminfo"].startswith("read: MemTotal: 1048576 kB\n")
    assert found["/proc/stat"].startswith("read: cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 ")


def receiver_sees(running, *, hand: list[int] | None, sandboxed: bool = True) -> tuple[dict, dict]:
    """What a receiver reports while a sender holds ``hand`` (None: no sender)."""
    receiver = start("channel", running, sandboxed=sandboxed)
    assert hello_reply(receiver, {"role": "receive"})["ready"] is True
    attempts = {}
    if hand is not None:
        sender = start("channel", running, sandboxed=sandboxed)
        options = {"role": "send", "hand": hand, "drop": sandboxed}  # never on the host
        attempts = hello_reply(sender, options)["attempts"]
    seen = report(receiver)
    for bot in running:
        bot.kill()
    running.clear()
    return seen, attempts


HAND = [0, 3, 7, 12, 25, 38, 51]


def test_two_bots_cannot_pass_a_hand_through_shared_inodes(running):
    quiet, _ = receiver_sees(running, hand=None)
    signalled, attempts = receiver_sees(running, hand=HAND)

    assert signalled == quiet
    assert attempts["flock"] == attempts["posix lock"] == attempts["ofd lock"] == ["EPERM"]
    assert attempts["lease"] == ["EPERM"] and attempts["keyring"] == ["EPERM"]
    assert all(
        attempts[f"drop {path}"] != ["ok"] for path in ("/usr/cardroom-hand", "/bot/cardroom-hand")
    )
    assert signalled["inotify setup"] == "EPERM" and signalled["keyring"] == "EPERM"
    assert set(signalled["flock"]) == {"EPERM"} and signalled["dropped"] == []


def test_the_channel_bots_do_pass_a_hand_outside_the_sandbox(running):
    """The channel test can fail: unsandboxed, the same pair passes the hand by flock."""
    seen, attempts = receiver_sees(running, hand=HAND, sandboxed=False)

    assert attempts["flock"] == ["ok"]
    assert [card for card, result in enumerate(seen["flock"]) if result != "ok"] == HAND
    assert [card for card, result in enumerate(seen["posix lock"]) if result == "0"] == HAND
    assert set(HAND) <= set(seen["inotify"])


def test_spawn_without_seccomp_runs_no_filter(running):
    bot = start("syscalls", running, seccomp=False)
    hello_reply(bot, {"calls": {}})

    found = report(bot)

    assert any(row.split() == ["Seccomp:", "0"] for row in found["seccomp"])


def test_describe_reports_the_filter_and_the_masks():
    described = describe()

    assert described["seccomp"]["refused (ENOSYS)"] == ["clone3"]
    assert "keyctl" in described["seccomp"]["refused (EPERM)"]["kernel keyrings"]
    assert "--disable-userns" in described["user namespaces"]
    assert "/usr/local" in described["filesystem"]["masked"][0]


def test_every_refused_system_call_has_a_probe_here():
    probed = {name for name, *_ in [*REFUSED_CALLS.values(), *REFUSED_BY_ARGUMENT.values()]}

    assert set(seccomp.refused_syscalls()) <= probed
