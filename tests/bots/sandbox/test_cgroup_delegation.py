"""cgroup v2 delegation: a group that holds our own processes is emptied into a leaf.

v2 lets only a group without processes enable controllers for its children
(``EBUSY``). A worker under systemd's ``Delegate=yes`` or in a container's
private cgroup namespace runs in the very group it is given, so ``cgroup.py``
moves that group's processes into ``<group>/platform`` first and makes bot
groups its siblings.

Most tests run against a fake tree whose ``_enable`` and ``_move`` act like
the kernel (``EBUSY`` while a group holds processes; a move takes a pid out
of its old group). The last one runs the same code on the host's real
``cgroup2`` mount, as an unprivileged user in a delegated group, with
whichever controller that mount offers.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from bots.sandbox import cgroup

REPOSITORY = Path(__file__).resolve().parents[3]
SYSTEM_PYTHON = Path("/usr/bin/python3")
NOBODY = 65534


class FakeKernel:
    """Plain directories that refuse controllers while a group holds processes, like v2."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.moves: list[tuple[int, Path]] = []
        self.on_move = lambda pid, group: None
        monkeypatch.setattr(cgroup, "_enable", self.enable)
        monkeypatch.setattr(cgroup, "_move", self.move)
        monkeypatch.setattr(cgroup, "_checked", lambda found: found)

    @staticmethod
    def group(path: Path, pids: list[int] = ()) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        (path / "cgroup.controllers").write_text("cpu memory pids\n")
        (path / "cgroup.subtree_control").write_text("")
        (path / "cgroup.procs").write_text("".join(f"{pid}\n" for pid in pids))
        return path

    def enable(self, directory: Path) -> None:
        enabled = (directory / "cgroup.subtree_control").read_text().split()
        if all(name in enabled for name in cgroup.V2_CONTROLLERS):
            return
        if (directory / "cgroup.procs").read_text().split():
            raise OSError(errno.EBUSY, "Device or resource busy", str(directory))
        (directory / "cgroup.subtree_control").write_text(" ".join(cgroup.V2_CONTROLLERS))

    def move(self, pid: int, group: Path) -> None:
        self.moves.append((pid, group))
        if not (group / "cgroup.procs").exists():
            self.group(group)
        for procs in group.parent.rglob("cgroup.procs"):
            kept = [p for p in procs.read_text().split() if p != str(pid)]
            procs.write_text("".join(f"{p}\n" for p in kept))
        with (group / "cgroup.procs").open("a") as procs:
            procs.write(f"{pid}\n")
        self.on_move(pid, group)


def pids_in(group: Path) -> list[int]:
    return sorted(int(pid) for pid in (group / "cgroup.procs").read_text().split())


def test_a_delegated_group_holding_our_process_is_emptied_into_a_leaf_first(monkeypatch, tmp_path):
    kernel = FakeKernel(monkeypatch)
    sibling = os.getpid() + 1  # a Celery parent or another child, in the same group
    group = kernel.group(tmp_path / "worker.service", [os.getpid(), sibling])

    found = cgroup._prepare_v2(group, enable_in=())

    assert found.usable, found.reason
    assert set(found.bases.values()) == {group}  # bot groups are siblings of the leaf
    assert pids_in(group) == []
    assert pids_in(group / cgroup.LEAF_NAME) == sorted([os.getpid(), sibling])
    assert (group / "cgroup.subtree_control").read_text().split() == list(cgroup.V2_CONTROLLERS)
    assert f"moved to {group / cgroup.LEAF_NAME}" in found.reason


def test_a_container_root_holding_our_process_is_emptied_before_its_bot_group(
    monkeypatch, tmp_path
):
    """Root in a private cgroup namespace: /sys/fs/cgroup is the container's busy group."""
    kernel = FakeKernel(monkeypatch)
    root = kernel.group(tmp_path, [1, os.getpid()])  # the container's init and us
    kernel.group(root / cgroup.DEFAULT_NAME)  # made by mkdir on a real cgroup2

    found = cgroup._prepare_v2(root / cgroup.DEFAULT_NAME, enable_in=(root,))

    assert found.usable, found.reason
    assert set(found.bases.values()) == {root / cgroup.DEFAULT_NAME}
    assert pids_in(root) == []
    assert pids_in(root / cgroup.LEAF_NAME) == sorted([1, os.getpid()])


def test_a_group_whose_processes_are_not_ours_is_still_refused(monkeypatch, tmp_path):
    kernel = FakeKernel(monkeypatch)
    group = kernel.group(tmp_path / "someone-else", [os.getpid() + 1])

    found = cgroup._prepare_v2(group, enable_in=())

    assert not found.usable
    assert "has processes of its own" in found.reason and cgroup.BASE_ENV in found.reason
    assert kernel.moves == [] and not (group / cgroup.LEAF_NAME).exists()


def test_children_forked_during_the_move_are_moved_too(monkeypatch, tmp_path):
    kernel = FakeKernel(monkeypatch)
    group = kernel.group(tmp_path / "worker.service", [os.getpid()])
    forked = os.getpid() + 7

    def fork_once(pid, leaf):
        if pid == os.getpid() and forked not in pids_in(leaf):
            with (group / "cgroup.procs").open("a") as procs:  # born in the old group
                procs.write(f"{forked}\n")

    kernel.on_move = fork_once

    found = cgroup._prepare_v2(group, enable_in=())

    assert found.usable, found.reason
    assert pids_in(group / cgroup.LEAF_NAME) == sorted([os.getpid(), forked])


def test_a_group_that_never_empties_is_reported_not_looped_on(monkeypatch, tmp_path):
    kernel = FakeKernel(monkeypatch)
    group = kernel.group(tmp_path / "worker.service", [os.getpid()])
    counter = iter(range(10_000, 20_000))

    def fork_always(pid, leaf):
        with (group / "cgroup.procs").open("a") as procs:
            procs.write(f"{next(counter)}\n")

    kernel.on_move = fork_always

    found = cgroup._prepare_v2(group, enable_in=())

    assert not found.usable
    assert "processes keep appearing" in found.reason
    assert len(kernel.moves) <= cgroup.VACATE_ROUNDS * 2


def test_a_process_that_exits_during_the_move_is_skipped(monkeypatch, tmp_path):
    kernel = FakeKernel(monkeypatch)
    gone = os.getpid() + 3
    group = kernel.group(tmp_path / "worker.service", [gone, os.getpid()])
    real_move = kernel.move

    def move(pid, leaf):
        if pid == gone:
            (group / "cgroup.procs").write_text(f"{os.getpid()}\n")  # it exited
            raise ProcessLookupError(errno.ESRCH, "No such process")
        real_move(pid, leaf)

    monkeypatch.setattr(cgroup, "_move", move)

    found = cgroup._prepare_v2(group, enable_in=())

    assert found.usable, found.reason
    assert pids_in(group / cgroup.LEAF_NAME) == [os.getpid()]


def test_a_second_process_finds_the_group_ready_and_moves_nothing(monkeypatch, tmp_path):
    """Celery children detect on their own: the first one moves everyone, the rest nothing."""
    kernel = FakeKernel(monkeypatch)
    group = kernel.group(tmp_path / "worker.service", [os.getpid()])
    first = cgroup._prepare_v2(group, enable_in=())
    moves = len(kernel.moves)

    second = cgroup._prepare_v2(group, enable_in=())

    assert first.usable and second.usable
    assert len(kernel.moves) == moves
    assert "moved" not in second.reason


def own_cgroup(monkeypatch, tmp_path, line: str) -> Path:
    root = tmp_path / "cgroup"
    root.mkdir()
    (tmp_path / "self-cgroup").write_text(line)
    monkeypatch.setattr(cgroup, "ROOT", root)
    monkeypatch.setattr(cgroup, "SELF_CGROUP", tmp_path / "self-cgroup")
    return root


def test_our_own_group_is_read_from_proc_self_cgroup(monkeypatch, tmp_path):
    root = own_cgroup(monkeypatch, tmp_path, "0::/system.slice/cardroom-worker@1.service\n")

    assert cgroup._own_group() == root / "system.slice" / "cardroom-worker@1.service"


def test_in_our_platform_leaf_our_group_is_its_parent(monkeypatch, tmp_path):
    """After the move (or with systemd's DelegateSubgroup=platform) we are in the leaf."""
    root = own_cgroup(monkeypatch, tmp_path, "0::/w.service/platform\n")
    FakeKernel.group(root / "w.service")
    FakeKernel.group(root / "w.service" / "platform")

    assert cgroup._own_group() == root / "w.service"


def test_without_a_v2_line_or_outside_our_namespace_there_is_no_own_group(monkeypatch, tmp_path):
    own_cgroup(monkeypatch, tmp_path, "4:memory:/x\n1:name=systemd:/y\n")
    assert cgroup._own_group() is None
    (tmp_path / "self-cgroup").write_text("0::/../../host.slice\n")
    assert cgroup._own_group() is None


def non_root_on_v2(monkeypatch, tmp_path, line: str) -> Path:
    root = own_cgroup(monkeypatch, tmp_path, line)
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(f"30 1 0:26 / {root} rw - cgroup2 cgroup2 rw,nsdelegate\n")
    monkeypatch.setattr(cgroup, "MOUNTINFO", mountinfo)
    monkeypatch.setattr(cgroup.os, "geteuid", lambda: 1000)
    return root


def test_not_root_and_unset_our_delegated_group_is_used(monkeypatch, tmp_path):
    kernel = FakeKernel(monkeypatch)
    root = non_root_on_v2(monkeypatch, tmp_path, "0::/worker.service\n")
    group = kernel.group(root / "worker.service", [os.getpid()])

    found = cgroup._try_v2(None)

    assert found.usable, found.reason
    assert set(found.bases.values()) == {group}
    assert pids_in(group / cgroup.LEAF_NAME) == [os.getpid()]


def test_not_root_and_unset_without_delegation_the_reason_says_what_to_do(monkeypatch, tmp_path):
    FakeKernel(monkeypatch)
    non_root_on_v2(monkeypatch, tmp_path, "0::/worker.service\n")  # no such writable group

    found = cgroup._try_v2(None)

    assert not found.usable
    assert "is not delegated to us" in found.reason
    assert "Delegate=yes" in found.reason and cgroup.BASE_ENV in found.reason


# --- the real kernel --------------------------------------------------------------


def writable_cgroup2() -> tuple[Path, str] | None:
    """A cgroup2 mount offering a controller we can enable at its top, and that controller."""
    if os.geteuid() != 0 or not SYSTEM_PYTHON.exists():
        return None
    for kind, point, _ in cgroup._mounts():
        if kind != "cgroup2" or not os.access(point / "cgroup.subtree_control", os.W_OK):
            continue
        offered = (point / "cgroup.controllers").read_text().split()
        preferred = [name for name in offered if name in cgroup.V2_CONTROLLERS]
        if preferred or offered:
            return point, (preferred or offered)[0]
    return None


CHILD = """
import errno, json, os, sys
from pathlib import Path
from bots.sandbox import cgroup
cgroup.ROOT = Path(sys.argv[1])
cgroup.V2_CONTROLLERS = (sys.argv[2],)
sibling = int(sys.argv[3])
sys.stdin.readline()  # the parent has moved us into the delegated group
report = {"uid": os.getuid(), "own": str(cgroup._own_group())}
try:
    cgroup._enable(cgroup._own_group())
except OSError as error:
    report["first_enable"] = errno.errorcode[error.errno]
group = cgroup._own_group()
report["moved"] = [str(leaf) for leaf in cgroup._enable_vacating(group)]
report["own_after"] = str(cgroup._own_group())
bot = group / "bot-test"
bot.mkdir()
cgroup._move(sibling, bot)  # what spawn() does with bwrap's processes
report["again"] = [str(leaf) for leaf in cgroup._enable_vacating(group)]
print(json.dumps(report), flush=True)
sys.stdin.readline()
"""


def readable_copy_of_the_sandbox() -> Path:
    """``bots/sandbox`` and ``games`` (pure Python) copied where ``nobody`` may read them,
    in a directory removed at exit: a fresh clone under a private directory (``mktemp
    -d``, mode 0700) is not readable by ``nobody``, and the child imports the sandbox's
    cgroup module."""
    import atexit
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="cardroom-sandbox-copy-"))
    atexit.register(shutil.rmtree, root, True)
    (root / "bots").mkdir()
    shutil.copy(REPOSITORY / "bots" / "__init__.py", root / "bots" / "__init__.py")
    for package in ("bots/sandbox", "games"):  # the sandbox reads the engine's version
        shutil.copytree(
            REPOSITORY / package,
            root / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.so"),
        )
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


@pytest.mark.serial  # it turns a controller on and off at the cgroup mount
@pytest.mark.skipif(writable_cgroup2() is None, reason="needs root and a cgroup2 controller")
def test_on_the_real_kernel_an_unprivileged_worker_empties_its_delegated_group():
    """As systemd's Delegate=yes does: the group and its three files belong to the user."""
    mount, controller = writable_cgroup2()
    group = mount / f"cardroom-test-{secrets.token_hex(4)}"
    enabled_before = controller in (mount / "cgroup.subtree_control").read_text().split()
    (mount / "cgroup.subtree_control").write_text(f"+{controller}")
    group.mkdir()
    for path in (group, group / "cgroup.procs", group / "cgroup.subtree_control"):
        os.chown(path, NOBODY, NOBODY)
    as_nobody = {"user": NOBODY, "group": NOBODY, "extra_groups": [], "cwd": "/"}
    code = readable_copy_of_the_sandbox()  # the checkout may be private (mode 0700)
    sibling = subprocess.Popen(["/bin/sleep", "60"], **as_nobody)
    worker = subprocess.Popen(
        [str(SYSTEM_PYTHON), "-c", CHILD, str(mount), controller, str(sibling.pid)],
        env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **as_nobody,
    )
    try:
        for pid in (sibling.pid, worker.pid):  # systemd starts the service in its group
            (group / "cgroup.procs").write_text(str(pid))
        worker.stdin.write("go\n")
        worker.stdin.flush()
        line = worker.stdout.readline()
        assert line, worker.stderr.read()
        report = json.loads(line)

        assert report["uid"] == NOBODY
        assert report["own"] == str(group)
        assert report["first_enable"] == "EBUSY"  # the no-internal-processes rule
        assert report["moved"] == [str(group / cgroup.LEAF_NAME)]
        assert report["own_after"] == str(group)  # seen from the leaf, the group is the parent
        assert report["again"] == []
        assert pids_in(group) == []
        assert pids_in(group / cgroup.LEAF_NAME) == [worker.pid]
        assert pids_in(group / "bot-test") == [sibling.pid]
        assert controller in (group / "cgroup.subtree_control").read_text().split()
        assert controller in (group / "bot-test" / "cgroup.controllers").read_text().split()
    finally:
        for process in (worker, sibling):
            process.kill()
            process.wait()
        for directory in (group / "bot-test", group / cgroup.LEAF_NAME, group):
            if directory.exists():
                directory.rmdir()
        if not enabled_before:
            try:
                (mount / "cgroup.subtree_control").write_text(f"-{controller}")
            except OSError as error:  # another group may use it meanwhile
                print(f"left +{controller} enabled in {mount}: {error}", file=sys.stderr)
