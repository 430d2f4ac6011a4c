"""What an upload may be and what checking it finds: the limits of one upload, the names
and runtimes it may use, the refusal (:class:`ArchiveError`), and what was unpacked
(:class:`ExtractedUpload`). Pure Python (``bots.archive``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

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


def _is_control(char: str) -> bool:
    return ord(char) < 32 or ord(char) == 127


def _size(count: int) -> str:
    return f"{count // MIB} MiB" if count % MIB == 0 else f"{count} bytes"
