"""Reading an archive's members (zip, tar, tar.gz) one header at a time and unpacking
them under the upload's limits, refusing anything that could leave the tree or exhaust
the disk (``bots.archive``)."""

from __future__ import annotations

import io
import itertools
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from bots.archive.limits import (
    CHUNK_BYTES,
    ZIP_UNIX_SYSTEM,
    ArchiveError,
    UploadLimits,
    _is_control,
    _Member,
    _size,
)

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
