"""Checking and unpacking bot uploads (bots.archive): what is accepted, what is refused."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import stat
import tarfile
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.archive import DEFAULT_LIMITS, ArchiveError, UploadLimits, extract_upload
from bots.sandbox import resolve

BOT_PY = b"print('a bot')\n"
MIB = 1024 * 1024


def zip_bytes(files: dict[str, bytes], *, modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names we test
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (modes or {}).get(name, stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def zip_entries(entries: list[tuple[str, bytes]]) -> bytes:
    """A zip that may repeat names (a dict cannot)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def tar_bytes(members: list[tuple[str, bytes | None, bytes]], *, gz: bool = False) -> bytes:
    """``(name, type, data)`` per member; type is a tarfile type such as tarfile.SYMTYPE."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gz else "w") as archive:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            info.type = kind or tarfile.REGTYPE
            info.mode = 0o755 if name.endswith("bot") else 0o644
            if info.type in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                info.linkname = data.decode()
                archive.addfile(info)
            elif info.type == tarfile.REGTYPE:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(info)
    return buffer.getvalue()


def manifest(**fields) -> bytes:
    return json.dumps(fields).encode()


@pytest.fixture
def dest(tmp_path: Path) -> Path:
    path = tmp_path / "bot"
    path.mkdir()
    return path


def refuse(filename: str, content: bytes, dest: Path, match: str, **limits) -> None:
    """The upload is refused with a message matching ``match``, and ``dest`` stays empty."""
    with pytest.raises(ArchiveError, match=match):
        extract_upload(filename, content, dest, limits=UploadLimits(**limits))
    assert list(dest.iterdir()) == []


# --- accepted -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "content", "runtime", "command"),
    [
        ("mine.py", BOT_PY, "python", ["python3", "/bot/mine.py"]),
        ("mine.js", b"console.log(1)\n", "node", ["node", "/bot/mine.js"]),
        ("mine.sh", b"echo hi\n", "executable", ["sh", "/bot/mine.sh"]),
        ("mine", b"#!/usr/bin/env python3\nprint(1)\n", "executable", ["/bot/mine"]),
    ],
)
def test_a_single_program_file_is_accepted_and_runs_by_its_kind(
    dest, filename, content, runtime, command
):
    info = extract_upload(filename, content, dest)

    assert (info.kind, info.runtime, info.entry_point) == ("file", runtime, filename)
    assert list(info.command) == command
    assert (dest / filename).read_bytes() == content
    assert bool(os.stat(dest / filename).st_mode & 0o100) == (runtime == "executable")
    assert resolve(dest)[0] == command  # the sandbox runs exactly what was found


def test_a_file_that_is_no_program_is_refused(dest):
    refuse("notes.txt", b"hello", dest, "neither a bot program")


def test_the_upload_summary_counts_files_and_bytes_and_hashes_the_upload(dest):
    content = zip_bytes({"bot.py": BOT_PY, "lib/helpers.py": b"x = 1\n"})

    info = extract_upload("mine.zip", content, dest)

    assert (info.file_count, info.unpacked_size, info.upload_size) == (
        2,
        len(BOT_PY) + 6,
        len(content),
    )
    assert info.sha256 == hashlib.sha256(content).hexdigest()
    assert (dest / "lib" / "helpers.py").read_bytes() == b"x = 1\n"


@pytest.mark.parametrize(
    ("filename", "gz"), [("mine.tar", False), ("mine.tar.gz", True), ("MINE.TGZ", True)]
)
def test_tar_archives_are_accepted(dest, filename, gz):
    content = tar_bytes([("main.js", None, b"// js\n"), ("data/", tarfile.DIRTYPE, b"")], gz=gz)

    info = extract_upload(filename, content, dest)

    assert (info.kind, info.runtime, info.entry_point) == (
        "tar.gz" if gz else "tar",
        "node",
        "main.js",
    )
    assert list(info.command) == ["node", "/bot/main.js"]
    assert (dest / "data").is_dir()


def test_entry_points_are_found_in_resolve_order(dest):
    content = zip_bytes({"main.js": b"", "main.py": b"", "bot.py": BOT_PY})

    info = extract_upload("mine.zip", content, dest)

    assert info.entry_point == "bot.py"


def test_an_executable_named_bot_is_an_entry_point(dest):
    content = tar_bytes([("bot", None, b"#!/bin/sh\n"), ("README", None, b"hi")])

    info = extract_upload("mine.tar", content, dest)

    assert (info.runtime, info.entry_point, list(info.command)) == (
        "executable",
        "bot",
        ["/bot/bot"],
    )


def test_a_manifest_names_the_entry_and_the_runtime(dest):
    content = zip_bytes(
        {"bot.json": manifest(entry="src/run.py", runtime="python"), "src/run.py": BOT_PY}
    )

    info = extract_upload("mine.zip", content, dest)

    assert (info.runtime, info.entry_point) == ("python", "src/run.py")
    assert list(info.command) == ["python3", "/bot/src/run.py"]
    assert json.loads((dest / "bot.json").read_text())["command"] == ["python3", "/bot/src/run.py"]


def test_a_manifest_command_is_kept_and_an_executable_entry_made_executable(dest):
    command = ["/bot/bin/play", "--fast"]
    content = zip_bytes(
        {
            "bot.json": manifest(entry="bin/play", runtime="executable", command=command),
            "bin/play": b"\x7fELF...",
        }
    )

    info = extract_upload("mine.zip", content, dest)

    assert list(info.command) == command
    assert os.access(dest / "bin" / "play", os.X_OK)
    assert resolve(dest)[0] == command


def test_a_manifest_runtime_defaults_to_the_entry_extension(dest):
    content = zip_bytes({"bot.json": manifest(entry="play.js"), "play.js": b""})

    assert extract_upload("mine.zip", content, dest).runtime == "node"


def test_an_archive_of_one_directory_is_unpacked_from_inside_it(dest):
    content = zip_bytes({"mybot/bot.py": BOT_PY, "mybot/mybot/notes": b"same name inside"})

    info = extract_upload("mine.zip", content, dest)

    assert info.entry_point == "bot.py"
    assert sorted(p.name for p in dest.iterdir()) == ["bot.json", "bot.py", "mybot"]
    assert (dest / "mybot" / "notes").read_bytes() == b"same name inside"


def test_the_default_limits():
    assert DEFAULT_LIMITS.max_upload_bytes == 5 * MIB
    assert DEFAULT_LIMITS.max_unpacked_bytes == 50 * MIB
    assert DEFAULT_LIMITS.max_files == 2000
    assert DEFAULT_LIMITS.max_ratio == 100


def test_the_destination_must_be_an_empty_directory(dest):
    (dest / "old").write_text("x")
    with pytest.raises(ValueError, match="not an existing empty directory"):
        extract_upload("mine.py", BOT_PY, dest)


# --- refused ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "content", "match"),
    [
        ("slip.zip", zip_bytes({"../evil.py": BOT_PY}), r"leaves the archive's directory"),
        ("slip.zip", zip_bytes({"bot.py": BOT_PY, "a/../../x": b""}), r"leaves the archive"),
        ("slip.tar", tar_bytes([("../../etc/cron.d/x", None, b"")]), r"leaves the archive"),
        ("abs.zip", zip_bytes({"/etc/passwd": b""}), r"absolute path"),
        ("abs.tar", tar_bytes([("/tmp/x.py", None, b"")]), r"absolute path"),
        ("win.zip", zip_bytes({"..\\evil.py": b""}), r"backslash"),
        ("ctl.zip", zip_bytes({"bot.py": BOT_PY, "a\nb": b""}), r"control character"),
        ("link.tar", tar_bytes([("bot.py", tarfile.SYMTYPE, b"/etc/passwd")]), r"symbolic link"),
        (
            "link.zip",
            zip_bytes({"bot.py": b"/etc/passwd"}, modes={"bot.py": stat.S_IFLNK | 0o777}),
            r"symbolic link",
        ),
        (
            "hard.tar",
            tar_bytes([("a", None, b"x"), ("bot.py", tarfile.LNKTYPE, b"a")]),
            r"hard link",
        ),
        ("dev.tar", tar_bytes([("bot.py", tarfile.CHRTYPE, b"")]), r"device file"),
        ("fifo.tar", tar_bytes([("bot.py", tarfile.FIFOTYPE, b"")]), r"device file or FIFO"),
        ("dup.zip", zip_entries([("bot.py", b"1"), ("./bot.py", b"2")]), r"appears twice"),
        ("dup.tar", tar_bytes([("bot.py", None, b"1"), ("bot.py", None, b"2")]), r"twice"),
        ("both.zip", zip_entries([("a", b"1"), ("a/b", b"2")]), r"both a file and a directory"),
        ("empty.zip", zip_entries([("dir/", b"")]), r"holds no files"),
        ("fake.zip", b"PK but not really a zip", r"not a valid zip archive"),
        ("fake.tar.gz", b"\x1f\x8b not gzip at all", r"not a valid tar.gz archive"),
        ("none.zip", zip_bytes({"README.md": b"hi"}), r"no entry point"),
        ("bot", b"\x7fELF no shebang", r"neither a bot program"),
        ("empty.py", b"", r"is empty"),
    ],
)
def test_unsafe_or_unusable_archives_are_refused(dest, filename, content, match):
    refuse(filename, content, dest, match)


@pytest.mark.parametrize(
    ("files", "match"),
    [
        (
            {"bot.json": manifest(entry="bot.rb", runtime="ruby"), "bot.rb": b""},
            "unknown runtime 'ruby'",
        ),
        ({"bot.json": manifest(entry="x.py", runtime="builtin"), "x.py": b""}, "unknown runtime"),
        (
            {"bot.json": manifest(entry="missing.py"), "bot.py": BOT_PY},
            "'missing.py' is not a file",
        ),
        ({"bot.json": manifest(entry="../x.py")}, "leaves the archive"),
        ({"bot.json": manifest(runtime="python"), "bot.py": BOT_PY}, 'needs "entry"'),
        ({"bot.json": manifest(entry="b.py", cmd=["x"]), "b.py": b""}, r"unknown keys \['cmd'\]"),
        ({"bot.json": manifest(entry="b.py", command="python3 b.py"), "b.py": b""}, '"command"'),
        ({"bot.json": b"{not json", "bot.py": BOT_PY}, "not valid JSON"),
        ({"bot.json": b"[]", "bot.py": BOT_PY}, "must be a JSON object"),
    ],
)
def test_a_bad_manifest_is_refused_naming_the_problem(dest, files, match):
    refuse("mine.zip", zip_bytes(files), dest, match)


def test_an_upload_over_the_size_limit_is_refused(dest):
    refuse("big.py", b"#" * (5 * MIB + 1), dest, "over the upload limit of 5 MiB")


def test_a_zip_bomb_is_stopped_by_the_compression_ratio(dest):
    bomb = zip_bytes({"bot.py": bytes(40 * MIB)})  # 40 MiB of zeros in about 40 KB
    assert len(bomb) < 100_000

    refuse("bomb.zip", bomb, dest, "expands more than 100 times")


def test_a_tar_gz_bomb_is_stopped_by_the_compression_ratio(dest):
    bomb = tar_bytes([("bot.py", None, bytes(20 * MIB))], gz=True)

    refuse("bomb.tar.gz", bomb, dest, "possible archive bomb")


def test_unpacking_stops_at_the_unpacked_size_limit(dest):
    content = zip_bytes({"bot.py": BOT_PY, "data.bin": os.urandom(MIB)})

    refuse("mine.zip", content, dest, "unpacks to more than 1 MiB", max_unpacked_bytes=MIB)


def test_unpacked_bytes_are_counted_not_taken_from_headers(dest):
    """A zip whose headers claim 1 KiB for what decompresses to 2 MiB is refused."""
    content = bytearray(zip_bytes({"bot.py": bytes(2 * MIB)}))
    real_size = (2 * MIB).to_bytes(4, "little")
    lie = (1024).to_bytes(4, "little")
    assert content.count(real_size) == 2  # in the local header and in the central directory
    content = bytes(content).replace(real_size, lie)

    refuse("liar.zip", content, dest, r"cannot be read|expands more than")


def test_too_many_files_are_refused(dest):
    content = zip_bytes({"bot.py": BOT_PY, **{f"f{i}": b"" for i in range(2000)}})

    refuse("many.zip", content, dest, "more than 2000 files")


def test_too_many_directory_entries_are_refused(dest):
    content = zip_entries([("bot.py", BOT_PY), *[(f"d{i}/", b"") for i in range(12)]])

    refuse("dirs.zip", content, dest, "more than 10 entries", max_files=5)


# --- invariant ----------------------------------------------------------------------------

SEGMENTS = st.sampled_from(["a", "b", "bot.py", "..", ".", "", "/", "c d", "\\", "~"])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(names=st.lists(st.lists(SEGMENTS, min_size=1, max_size=5).map("/".join), max_size=6))
def test_whatever_the_names_nothing_is_written_outside_the_destination(tmp_path, names):
    root = tmp_path / "case"
    shutil.rmtree(root, ignore_errors=True)  # hypothesis reuses tmp_path between examples
    dest = root / "inner" / "dest"
    dest.mkdir(parents=True)
    content = tar_bytes([("bot.py", None, BOT_PY), *[(name, None, b"x") for name in names]])

    try:
        extract_upload("mine.tar", content, dest)
    except ArchiveError:
        assert list(dest.iterdir()) == []
    written = {p for p in root.rglob("*")}
    assert all(p == root / "inner" or p.is_relative_to(dest) for p in written)
    assert not any(p.is_symlink() for p in written)
