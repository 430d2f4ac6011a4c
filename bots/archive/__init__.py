"""Checking and unpacking a bot upload: one program file, or a zip / tar / tar.gz archive.

::

    from bots.archive import ArchiveError, extract_upload

    info = extract_upload("mybot.zip", data, Path("/srv/media/bots/7/3"))
    info.runtime, info.entry_point, info.command  # "python", "main.py", ["python3", "/bot/main.py"]

Pure Python: no web or task framework. This package checks the upload and writes a
single program; what an upload may be is :mod:`bots.archive.limits`, reading and
unpacking an archive :mod:`bots.archive.unpacking`, finding its program
:mod:`bots.archive.manifest`. Their public names are importable from here.

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
import json
import os
import shutil
from pathlib import Path, PurePosixPath

from bots.archive.limits import (
    ARCHIVE_SUFFIXES,
    CHUNK_BYTES,
    DEFAULT_LIMITS,
    FILE_PROGRAMS,
    MANIFEST,
    MANIFEST_KEYS,
    MAX_MANIFEST_BYTES,
    MIB,
    RUNTIME_INTERPRETERS,
    RUNTIMES,
    ZIP_UNIX_SYSTEM,
    ArchiveError,
    ExtractedUpload,
    UploadLimits,
    _is_control,
    _size,
)
from bots.archive.manifest import _find_program, _manifest_variants, check_variants
from bots.archive.unpacking import _tar_members, _unpack, _unwrap_single_directory, _zip_members
from bots.sandbox.resolve import BOT_MOUNT

__all__ = [
    "ARCHIVE_SUFFIXES",
    "CHUNK_BYTES",
    "DEFAULT_LIMITS",
    "FILE_PROGRAMS",
    "MANIFEST",
    "MANIFEST_KEYS",
    "MAX_MANIFEST_BYTES",
    "MIB",
    "RUNTIMES",
    "RUNTIME_INTERPRETERS",
    "ZIP_UNIX_SYSTEM",
    "ArchiveError",
    "ExtractedUpload",
    "UploadLimits",
    "check_variants",
    "extract_upload",
    "upload_kind",
]


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


# --- small helpers ------------------------------------------------------------------------


def _empty(directory: Path) -> None:
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
