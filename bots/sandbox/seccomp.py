"""The seccomp filter every sandboxed bot runs under, built with libseccomp.

A deny-list with a default of allow: the system calls below are refused with
``EPERM`` (``clone3`` with ``ENOSYS``, so that libc falls back to ``clone``,
whose flags the filter can read). System calls of any architecture but the
native one (i386 through ``int 0x80``, x32) kill the process. The filter is
built once per process and handed to bubblewrap as BPF (``bwrap --seccomp``),
which loads it just before exec'ing the bot's command. README.md in this
folder says why each entry is there.

Needs ``libseccomp.so.2`` (Debian's ``libseccomp2``) and the ``pyseccomp``
package; ``bpf()`` raises ``SeccompUnavailable`` without them.
"""

from __future__ import annotations

import errno
import functools
import tempfile

#: Refused outright with EPERM, by group, with the reason (README.md, "Seccomp filter").
REFUSED: dict[str, tuple[str, ...]] = {
    "new namespaces": ("unshare", "setns"),
    "mounts": (
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "move_mount",
        "open_tree",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "mount_setattr",
    ),
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "kernel keyrings": ("keyctl", "add_key", "request_key"),
    "kernel attack surface": (
        "bpf",
        "perf_event_open",
        "userfaultfd",
        "modify_ldt",
        "uselib",
        "io_setup",
    ),
    "other processes": (
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "process_madvise",
        "pidfd_getfd",
    ),
    "kernel and modules": (
        "kexec_load",
        "kexec_file_load",
        "init_module",
        "finit_module",
        "delete_module",
    ),
    "host administration": (
        "swapon",
        "swapoff",
        "reboot",
        "settimeofday",
        "clock_settime",
        "clock_adjtime",
        "adjtimex",
        "acct",
        "quotactl",
        "quotactl_fd",
        "lookup_dcookie",
        "name_to_handle_at",
        "open_by_handle_at",
        "vhangup",
        "syslog",
        "ioperm",
        "iopl",
    ),
    "channels on shared inodes": (
        "flock",
        "inotify_init",
        "inotify_init1",
        "inotify_add_watch",
        "inotify_rm_watch",
        "fanotify_init",
        "fanotify_mark",
    ),
    "page-cache probes": ("mincore", "readahead", "fadvise64", "cachestat"),
}
#: Refused with ENOSYS: its flags are in memory the filter cannot read.
REFUSED_ENOSYS = ("clone3",)

#: clone() flags that create namespaces (CLONE_NEWTIME does not fit in clone()).
CLONE_NEW_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
#: fcntl() commands refused: record locks, leases and dnotify on shared files.
FCNTL_REFUSED = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024,
    "F_GETLEASE": 1025,
    "F_NOTIFY": 1026,
}
#: madvise() advice refused: evicting or prefetching pages of (shared) file mappings.
MADVISE_REFUSED = {"MADV_WILLNEED": 3, "MADV_COLD": 20, "MADV_PAGEOUT": 21}
#: preadv2()/pwritev2() flag refused: fails instead of reading a page not cached.
RWF_NOWAIT = 0x08
#: personality() values allowed: PER_LINUX and the query.
PERSONALITY_ALLOWED = (0x0, 0xFFFFFFFF)

_LOW32 = 0xFFFFFFFF


class SeccompUnavailable(RuntimeError):
    """libseccomp or pyseccomp is missing, or the filter cannot be built."""


def refused_syscalls() -> list[str]:
    """Every system call the filter refuses, outright or by argument, sorted."""
    names = {name for group in REFUSED.values() for name in group}
    names |= {*REFUSED_ENOSYS, "clone", "fcntl", "madvise", "preadv2", "pwritev2", "personality"}
    return sorted(names)


def describe() -> dict:
    """What the filter refuses, for ``python -m bots.sandbox``."""
    return {
        "kind": "deny-list, default allow (README.md: Seccomp filter)",
        "refused (EPERM)": {group: list(names) for group, names in REFUSED.items()},
        "refused (ENOSYS)": list(REFUSED_ENOSYS),
        "refused by argument (EPERM)": {
            "clone": "flags with " + "|".join(CLONE_NEW_FLAGS),
            "fcntl": ", ".join(FCNTL_REFUSED),
            "madvise": ", ".join(MADVISE_REFUSED),
            "preadv2, pwritev2": "RWF_NOWAIT",
            "personality": "anything but PER_LINUX (0) and the query (0xffffffff)",
        },
        "other architectures": "killed (i386 int 0x80, x32)",
    }


def bpf() -> bytes:
    """The filter as a classic BPF program for ``bwrap --seccomp FD`` (cached).

    Raises ``SeccompUnavailable`` if libseccomp or pyseccomp is missing.
    """
    return _bpf()


@functools.cache
def _bpf() -> bytes:
    try:
        import pyseccomp  # ctypes over libseccomp.so.2: fails here if it is missing
    except (ImportError, OSError, RuntimeError) as error:
        raise SeccompUnavailable(f"libseccomp is not usable: {error}") from None
    try:
        syscall_filter = _build(pyseccomp)
        with tempfile.TemporaryFile() as exported:
            syscall_filter.export_bpf(exported)
            exported.seek(0)
            return exported.read()
    except OSError as error:
        raise SeccompUnavailable(f"the seccomp filter cannot be built: {error}") from None


def _build(seccomp):
    """The libseccomp filter object: default allow, the refusals above."""
    eperm = seccomp.ERRNO(errno.EPERM)
    syscall_filter = seccomp.SyscallFilter(seccomp.ALLOW)
    syscall_filter.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    for names in REFUSED.values():
        for name in names:
            _refuse(seccomp, syscall_filter, eperm, name)
    for name in REFUSED_ENOSYS:
        _refuse(seccomp, syscall_filter, seccomp.ERRNO(errno.ENOSYS), name)

    def masked(arg: int, mask: int, value: int):
        return seccomp.Arg(arg, seccomp.MASKED_EQ, mask, value)

    # clone() takes its flags as the low 32 bits of argument 0 (x86_64, arm64).
    for flag in CLONE_NEW_FLAGS.values():
        syscall_filter.add_rule(eperm, "clone", masked(0, flag, flag))
    # The kernel reads an int: compare the low 32 bits only, or high bits slip past.
    for command in FCNTL_REFUSED.values():
        syscall_filter.add_rule(eperm, "fcntl", masked(1, _LOW32, command))
    for advice in MADVISE_REFUSED.values():
        syscall_filter.add_rule(eperm, "madvise", masked(2, _LOW32, advice))
    for name in ("preadv2", "pwritev2"):
        syscall_filter.add_rule(eperm, name, masked(5, RWF_NOWAIT, RWF_NOWAIT))
    for rule in _personality_refusals(masked):
        syscall_filter.add_rule(eperm, "personality", rule)
    return syscall_filter


def _refuse(seccomp, syscall_filter, action: int, name: str) -> None:
    number = seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
    if number < 0:  # not a system call on this architecture (inotify_init on arm64)
        return
    syscall_filter.add_rule(action, number)


def _personality_refusals(masked) -> list:
    """Conditions matching every 32-bit value but 0 and 0xffffffff.

    libseccomp cannot AND two tests of one argument, and the kernel reads only
    the low 32 bits, so: refuse when two neighbouring bits differ (01 or 10).
    """
    rules = []
    for bit in range(31):
        pair = 0b11 << bit
        rules += [masked(0, pair, 0b01 << bit), masked(0, pair, 0b10 << bit)]
    return rules
