"""Checking and unpacking a bot upload: one program file, or a zip / tar / tar.gz archive.

::

    from bots.archive import ArchiveError, extract_upload

    info = extract_upload("mybot.zip", data, Path("/srv/media/bots/7/3"))
    info.runtime, info.entry_point, info.command  # "python", "main.py", ["python3", "/bot/main.py"]

Pure Python: no web or task framework.

What an upload may be
---------------------

- **One program file**: ``.py`` (python3), ``.js`` (node), ``.sh`` (sh), or any
  other file whose first bytes are ``#!`` (run directly, made executable).
- **An archive**: ``.zip``, ``.tar``, ``.tar.gz`` or ``.tgz`` (chosen by the
  file name, then checked against the content). Only regular files and
  directories are allowed.

The manifest ``bot.json``
-------------------------

At the top of an archive, optional::

    {"entry": "main.py", "runtime": "python"}
    {"entry": "bin/bot", "runtime": "executable", "command": ["/bot/bin/bot", "--fast"]}

- ``entry`` (required): the program, a path inside the archive.
- ``runtime``: ``python``, ``node`` or ``executable``; when left out it follows
  the entry's extension (``.py`` python, ``.js`` node, anything else executable).
  An ``executable`` entry is made executable.
- ``command`` (optional): the exact command run in the sandbox, where the bot's
  files are at ``/bot`` (the working directory). By default ``python3 /bot/<entry>``,
  ``node /bot/<entry>`` or ``/bot/<entry>``.
- ``variants`` (optional): the variant ids the bot plays (``games.variants()``), such
  as ``["money-jordan", "money-syria"]``; left out or empty, every variant. The bot is
  validated in each, and enters only competitions of those it passed.

Without a manifest the entry is found as ``bots.sandbox.resolve`` finds it: the
first of ``bot.py``, ``main.py``, ``bot.js``, ``main.js``, or an executable file
named ``bot``. An archive whose only top-level entry is a directory (``mybot/...``)
is unpacked from inside that directory.

The unpacked tree always gets a ``bot.json`` holding ``entry``, ``runtime`` and
``command``, so ``bots.sandbox.resolve(dest)`` runs exactly what was found here.

What is refused
---------------

Every refusal is an :class:`ArchiveError` (a ``ValueError``) whose message names
the file and the problem: uploads over the size limit; unpacking beyond the
unpacked-size, file-count or compression-ratio limits (bytes are counted while
they are decompressed: sizes written in headers are never trusted); absolute
paths, ``..`` components, backslashes and control characters in names; symbolic
and hard links, device files and FIFOs; the same name twice, or a name used as
both a file and a directory; encrypted zip entries; a corrupt archive; a
manifest that is not valid, names an unknown runtime or an entry that is not in
the upload; no entry point at all.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

import games
from bots.sandbox.resolve import BOT_MOUNT, DIRECTORY_ENTRY_POINTS

MIB = 1024 * 1024
MANIFEST = "bot.json"
MANIFEST_KEYS = ("entry", "runtime", "command", "variants")
MAX_MANIFEST_BYTES = 64 * 1024
#: Runtimes an upload may declare (``builtin`` is for the platform's own bots only).
RUNTIMES = ("python", "node", "executable")
RUNTIME_INTERPRETERS = {"python": "python3", "node": "node"}
#: A single program file: extension -> (runtime, interpreter or None to run it directly).
FILE_PROGRAMS = {".py": ("python", "python3"), ".js": ("node", "node"), ".sh": ("executable", "sh")}
ARCHIVE_SUFFIXES = {".zip": "zip", ".tar": "tar", ".tar.gz": "tar.gz", ".tgz": "tar.gz"}
CHUNK_BYTES = 64 * 1024
#: Where the permission bits of a unix zip entry are kept (``external_attr``).
ZIP_UNIX_SYSTEM = 3


class ArchiveError(ValueError):
    """The upload is refused; the message says why, for the person who uploaded it."""


@dataclass(frozen=True)
class UploadLimits:
    """Caps on one upload.

    ``max_ratio`` bounds unpacked bytes / upload bytes, checked only once more
    than ``ratio_floor_bytes`` have been unpacked (small sources compress well).
    ``max_files`` counts regular files; directories count against twice that.
    """

    max_upload_bytes: int = 5 * MIB
    max_unpacked_bytes: int = 50 * MIB
    max_files: int = 2000
    max_ratio: int = 100
    ratio_floor_bytes: int = 1 * MIB
    max_path_length: int = 255

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"UploadLimits.{name} must be a positive int, got {value!r}")


DEFAULT_LIMITS = UploadLimits()


@dataclass(frozen=True)
class ExtractedUpload:
    """What :func:`extract_upload` found and unpacked."""

    kind: str  # "file", "zip", "tar" or "tar.gz"
    runtime: str  # one of RUNTIMES
    entry_point: str  # path of the program inside the unpacked tree
    command: tuple[str, ...]  # as run in the sandbox (the tree is mounted at /bot)
    file_count: int
    unpacked_size: int  # bytes of the upload's files once unpacked
    upload_size: int
    sha256: str  # of the upload's bytes
    #: The variant ids ``bot.json`` declares (empty: every variant, or no manifest).
    variants: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Member:
    name: str
    kind: str  # "file", "dir", "symlink", "hardlink", "device" or "other"
    mode: int
    open: Callable[[], IO[bytes]]


def upload_kind(filename: str) -> str:
    """``zip``, ``tar`` or ``tar.gz`` by the file name's ending, else ``file``."""
    lower = filename.lower()
    for suffix, kind in ARCHIVE_SUFFIXES.items():
        if lower.endswith(suffix):
            return kind
    return "file"


def extract_upload(
    filename: str, content: bytes, dest: Path, *, limits: UploadLimits = DEFAULT_LIMITS
) -> ExtractedUpload:
    """Check the upload ``(filename, content)`` and unpack it into ``dest``.

    ``dest`` must be an existing empty directory (``ValueError`` otherwise). On
    success it holds the bot's files plus a normalized ``bot.json``; on an
    :class:`ArchiveError` (the upload is refused) it is left empty.
    """
    if not isinstance(content, bytes):
        raise ValueError(f"content must be bytes, got {type(content).__name__}")
    dest = Path(dest)
    if not dest.is_dir() or any(dest.iterdir()):
        raise ValueError(f"destination {str(dest)!r} is not an existing empty directory")
    try:
        return _extract(filename, content, dest, limits)
    except BaseException:
        _empty(dest)
        raise


def _extract(filename: str, content: bytes, dest: Path, limits: UploadLimits) -> ExtractedUpload:
    if not content:
        raise ArchiveError(f"{filename!r} is empty")
    if len(content) > limits.max_upload_bytes:
        raise ArchiveError(
            f"{filename!r} is {len(content)} bytes, over the upload limit of "
            f"{_size(limits.max_upload_bytes)}"
        )
    kind = upload_kind(filename)
    variants: list[str] = []
    if kind == "file":
        runtime, entry, command = _write_program(filename, content, dest)
        files, unpacked = 1, len(content)
    else:
        members = (
            _zip_members(filename, content)
            if kind == "zip"
            else _tar_members(filename, content, kind)
        )
        files, unpacked = _unpack(filename, members, dest, limits, len(content))
        if files == 0:
            raise ArchiveError(f"{filename!r} holds no files")
        _unwrap_single_directory(dest)
        variants = _manifest_variants(filename, dest)
        runtime, entry, command = _find_program(filename, dest, limits)
    manifest = {"entry": entry, "runtime": runtime, "command": command, "variants": variants}
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    os.chmod(dest / MANIFEST, 0o644)
    return ExtractedUpload(
        kind=kind,
        runtime=runtime,
        entry_point=entry,
        command=tuple(command),
        file_count=files,
        unpacked_size=unpacked,
        upload_size=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
        variants=tuple(variants),
    )


# --- one program file ---------------------------------------------------------------------


def _write_program(filename: str, content: bytes, dest: Path) -> tuple[str, str, list[str]]:
    name = PurePosixPath(filename.replace("\\", "/")).name
    if name in ("", ".", "..") or any(_is_control(c) for c in name) or len(name) > 255:
        raise ArchiveError(f"{filename!r} is not a usable file name")
    if name == MANIFEST:
        raise ArchiveError(f"{MANIFEST!r} is the manifest's name; upload it inside an archive")
    program = FILE_PROGRAMS.get(PurePosixPath(name).suffix.lower())
    if program is not None:
        runtime, interpreter = program
        command = [interpreter, f"{BOT_MOUNT}/{name}"]
    elif content.startswith(b"#!"):
        runtime, command = "executable", [f"{BOT_MOUNT}/{name}"]
    else:
        raise ArchiveError(
            f"{filename!r} is neither a bot program (.py, .js, .sh, or a file starting "
            f"with #!) nor an archive ({', '.join(ARCHIVE_SUFFIXES)})"
        )
    path = dest / name
    path.write_bytes(content)
    os.chmod(path, 0o755 if runtime == "executable" else 0o644)
    return runtime, name, command


# --- reading archives ---------------------------------------------------------------------


def _zip_members(filename: str, content: bytes) -> Iterator[_Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except Exception as error:  # parsing untrusted bytes: any failure means "not a zip"
        raise ArchiveError(f"{filename!r} is not a valid zip archive ({error})") from None
    with archive:
        for info in archive.infolist():
            mode = info.external_attr >> 16 if info.create_system == ZIP_UNIX_SYSTEM else 0
            if info.flag_bits & 0x1:
                raise ArchiveError(f"{filename!r}: {info.filename!r} is encrypted")
            file_type = stat.S_IFMT(mode)
            if file_type == stat.S_IFLNK:
                kind = "symlink"
            elif info.is_dir() or file_type == stat.S_IFDIR:
                kind = "dir"
            elif file_type in (0, stat.S_IFREG):
                kind = "file"
            else:
                kind = "device"
            yield _Member(info.filename, kind, mode, lambda info=info: archive.open(info))


def _tar_members(filename: str, content: bytes, kind: str) -> Iterator[_Member]:
    errors = (tarfile.TarError, OSError, EOFError, ValueError, zlib.error)
    try:
        archive = tarfile.open(  # noqa: SIM115  closed by the ``with`` below
            fileobj=io.BytesIO(content), mode="r:gz" if kind == "tar.gz" else "r:"
        )
    except errors as error:
        raise ArchiveError(f"{filename!r} is not a valid {kind} archive ({error})") from None
    with archive:
        while True:
            try:
                member = archive.next()  # one header at a time: nothing is listed in advance
            except errors as error:
                raise ArchiveError(f"{filename!r} is a corrupt {kind} archive ({error})") from None
            if member is None:
                return
            yield _Member(member.name, _tar_kind(member), member.mode, _tar_opener(archive, member))


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "symlink"
    if member.islnk():
        return "hardlink"
    if member.ischr() or member.isblk() or member.isfifo():
        return "device"
    if member.isreg():
        return "file"
    return "dir" if member.isdir() else "other"


def _tar_opener(archive: tarfile.TarFile, member: tarfile.TarInfo) -> Callable[[], IO[bytes]]:
    def open_member() -> IO[bytes]:
        stream = archive.extractfile(member)
        if stream is None:
            raise ArchiveError(f"{member.name!r} cannot be read")
        return stream

    return open_member


# --- unpacking ----------------------------------------------------------------------------


class _Budget:
    """Counts unpacked bytes as they arrive and stops at the first one over a limit."""

    def __init__(self, filename: str, limits: UploadLimits, upload_size: int) -> None:
        self.filename, self.limits, self.upload_size = filename, limits, upload_size
        self.used = 0

    def spend(self, count: int) -> None:
        self.used += count
        if self.used > self.limits.max_unpacked_bytes:
            raise ArchiveError(
                f"{self.filename!r} unpacks to more than "
                f"{_size(self.limits.max_unpacked_bytes)}, the unpacked size limit"
            )
        ratio = self.limits.max_ratio
        if self.used > self.limits.ratio_floor_bytes and self.used > ratio * self.upload_size:
            raise ArchiveError(
                f"{self.filename!r} expands more than {ratio} times its size "
                f"({self.upload_size} bytes): refused as a possible archive bomb"
            )


def _unpack(
    filename: str, members: Iterator[_Member], dest: Path, limits: UploadLimits, upload_size: int
) -> tuple[int, int]:
    """Write every member below ``dest``; (file count, unpacked bytes)."""
    budget = _Budget(filename, limits, upload_size)
    files: set[str] = set()
    directories: set[str] = set()
    entries = 0
    for member in members:
        entries += 1
        if entries > 2 * limits.max_files:
            raise ArchiveError(f"{filename!r} has more than {2 * limits.max_files} entries")
        parts = _safe_parts(filename, member.name, limits)
        _check_kind(filename, member)
        path = "/".join(parts)
        if member.kind == "dir":
            if path in files:
                raise ArchiveError(f"{filename!r}: {path!r} is both a file and a directory")
            directories.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
            if parts:
                dest.joinpath(*parts).mkdir(parents=True, exist_ok=True)
            continue
        if not parts:
            raise ArchiveError(f"{filename!r}: a file has the empty name {member.name!r}")
        _check_new_file(filename, path, parts, files, directories)
        files.add(path)
        directories.update("/".join(parts[:i]) for i in range(1, len(parts)))
        if len(files) > limits.max_files:
            raise ArchiveError(f"{filename!r} has more than {limits.max_files} files")
        _write_member(filename, member, dest.joinpath(*parts), budget)
    for directory in directories:
        os.chmod(dest.joinpath(*directory.split("/")), 0o755)
    return len(files), budget.used


def _safe_parts(filename: str, name: str, limits: UploadLimits) -> tuple[str, ...]:
    """The path components of a member name, refusing anything that could leave the tree."""
    if any(_is_control(c) for c in name):
        raise ArchiveError(f"{filename!r}: the name {name!r} has a control character")
    if "\\" in name:
        raise ArchiveError(f"{filename!r}: the name {name!r} has a backslash")
    if len(name) > limits.max_path_length:
        raise ArchiveError(
            f"{filename!r}: the name {name[:60]!r}... is longer than "
            f"{limits.max_path_length} characters"
        )
    if name.startswith("/"):
        raise ArchiveError(f"{filename!r}: {name!r} is an absolute path")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"{filename!r}: {name!r} leaves the archive's directory ('..')")
    return parts


def _check_kind(filename: str, member: _Member) -> None:
    what = {
        "symlink": "a symbolic link",
        "hardlink": "a hard link",
        "device": "a device file or FIFO",
        "other": "neither a regular file nor a directory",
    }.get(member.kind)
    if what is not None:
        raise ArchiveError(
            f"{filename!r}: {member.name!r} is {what}; only regular files and directories "
            f"are allowed"
        )


def _check_new_file(
    filename: str, path: str, parts: tuple[str, ...], files: set[str], directories: set[str]
) -> None:
    if path in files:
        raise ArchiveError(f"{filename!r}: {path!r} appears twice")
    if path in directories:
        raise ArchiveError(f"{filename!r}: {path!r} is both a file and a directory")
    for i in range(1, len(parts)):
        parent = "/".join(parts[:i])
        if parent in files:
            raise ArchiveError(f"{filename!r}: {parent!r} is both a file and a directory")


def _write_member(filename: str, member: _Member, target: Path, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    with os.fdopen(os.open(target, flags, 0o600), "wb") as out:
        for chunk in _read_chunks(filename, member):
            budget.spend(len(chunk))
            out.write(chunk)
    os.chmod(target, 0o755 if member.mode & 0o111 else 0o644)


def _read_chunks(filename: str, member: _Member) -> Iterator[bytes]:
    """The member's bytes as they are decompressed; a read failure is a corrupt archive."""
    try:
        with member.open() as stream:
            while True:
                chunk = stream.read(CHUNK_BYTES)
                if not chunk:
                    return
                yield chunk
    except ArchiveError:
        raise
    except Exception as error:  # decoding untrusted bytes: zlib, CRC, EOF, unsupported method...
        raise ArchiveError(f"{filename!r}: {member.name!r} cannot be read ({error})") from None


def _unwrap_single_directory(dest: Path) -> None:
    """``mybot/bot.py`` -> ``bot.py`` when the archive is one directory and nothing else."""
    children = list(dest.iterdir())
    if len(children) != 1 or not children[0].is_dir():
        return
    inside = {child.name for child in children[0].iterdir()}
    temporary = next(f".unwrap-{i}" for i in itertools.count() if f".unwrap-{i}" not in inside)
    top = children[0].rename(dest / temporary)
    for child in list(top.iterdir()):
        child.rename(dest / child.name)
    top.rmdir()


# --- finding the program ------------------------------------------------------------------


def _find_program(filename: str, root: Path, limits: UploadLimits) -> tuple[str, str, list[str]]:
    """(runtime, entry point, command) from ``bot.json``, or by the usual names."""
    if (root / MANIFEST).is_file():
        return _read_manifest(filename, root, limits)
    for name in DIRECTORY_ENTRY_POINTS:
        if (root / name).is_file():
            runtime = "python" if name.endswith(".py") else "node"
            return runtime, name, [RUNTIME_INTERPRETERS[runtime], f"{BOT_MOUNT}/{name}"]
    program = root / "bot"
    if program.is_file() and os.access(program, os.X_OK):
        return "executable", "bot", [f"{BOT_MOUNT}/bot"]
    raise ArchiveError(
        f"{filename!r} has no entry point: no {MANIFEST} and none of "
        f"{', '.join(DIRECTORY_ENTRY_POINTS)} or an executable 'bot' at its top level"
    )


def _read_manifest(filename: str, root: Path, limits: UploadLimits) -> tuple[str, str, list[str]]:
    where = f"{filename!r}: {MANIFEST}"
    path = root / MANIFEST
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise ArchiveError(f"{where} is larger than {MAX_MANIFEST_BYTES} bytes")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ArchiveError(f"{where} is not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise ArchiveError(f'{where} must be a JSON object such as {{"entry": "main.py"}}')
    unknown = sorted(set(data) - set(MANIFEST_KEYS))
    if unknown:
        raise ArchiveError(
            f"{where} has unknown keys {unknown} (known: {', '.join(MANIFEST_KEYS)})"
        )
    entry = _manifest_entry(where, filename, root, data.get("entry"), limits)
    runtime = data.get("runtime", _runtime_for(entry))
    if runtime not in RUNTIMES:
        raise ArchiveError(f"{where}: unknown runtime {runtime!r} (known: {', '.join(RUNTIMES)})")
    command = data.get("command")
    if command is None:
        interpreter = RUNTIME_INTERPRETERS.get(runtime)
        command = [interpreter] if interpreter else []
        command.append(f"{BOT_MOUNT}/{entry}")
    elif (
        not isinstance(command, list)
        or not command
        or len(command) > 64
        or not all(isinstance(arg, str) and arg and len(arg) <= 1000 for arg in command)
    ):
        raise ArchiveError(f'{where}: "command" must be a list of 1 to 64 non-empty strings')
    if runtime == "executable":
        os.chmod(root / entry, 0o755)
    return runtime, entry, list(command)


def _manifest_variants(filename: str, root: Path) -> list[str]:
    """The ``variants`` of ``bot.json`` (checked by :func:`check_variants`), or []."""
    path = root / MANIFEST
    if not path.is_file() or path.stat().st_size > MAX_MANIFEST_BYTES:
        return []  # no manifest, or one _read_manifest refuses
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("variants") is None:
        return []
    try:
        return check_variants(data["variants"])
    except ValueError as error:
        raise ArchiveError(f"{filename!r}: {MANIFEST}: {error}") from None


def check_variants(value: object) -> list[str]:
    """A declaration of variants as a sorted list without repeats ([] means every variant).

    Raises ``ValueError`` naming what is wrong: not a list of strings, or an id that
    is not one of ``games.variants()``.
    """
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError('"variants" must be a list of variant ids such as ["money-jordan"]')
    known = games.variants()
    unknown = [v for v in value if v not in known]
    if unknown:
        shown = ", ".join(repr(v[:64]) for v in unknown[:5])
        raise ValueError(f"unknown variant {shown} in \"variants\" (known: {', '.join(known)})")
    return sorted(set(value))


def _manifest_entry(
    where: str, filename: str, root: Path, entry: object, limits: UploadLimits
) -> str:
    if not isinstance(entry, str) or not entry:
        raise ArchiveError(f'{where} needs "entry": the program\'s path, such as "main.py"')
    parts = _safe_parts(filename, entry, limits)
    if not parts or not root.joinpath(*parts).is_file():
        raise ArchiveError(f"{where}: the entry {entry!r} is not a file in the upload")
    return "/".join(parts)


def _runtime_for(entry: str) -> str:
    suffix = PurePosixPath(entry).suffix.lower()
    return {".py": "python", ".js": "node"}.get(suffix, "executable")


# --- small helpers ------------------------------------------------------------------------


def _is_control(char: str) -> bool:
    return ord(char) < 32 or ord(char) == 127


def _size(count: int) -> str:
    return f"{count // MIB} MiB" if count % MIB == 0 else f"{count} bytes"


def _empty(directory: Path) -> None:
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
