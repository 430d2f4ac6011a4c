"""The transcripts a regression run replays (``manage.py match --replay PATH BOT``).

``PATH`` is one transcript file, a zip of transcripts (a match's, as the site gives
them: "download all transcripts"), or a folder holding either, searched recursively
(a folder of downloaded matches). Each file found is a :class:`TranscriptSource`,
named by its path (a zip's members as ``archive.zip:member``) and read only when it
is replayed, so that a large folder is never held in memory at once. A file that
cannot be read or is not a transcript is not an error of the run: its source says
why, and the others are replayed.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bots.referee.transcript import Transcript, TranscriptError, parse_transcript, read_transcript

#: The largest member of a zip read as a transcript (a game's transcript is far smaller).
MAX_MEMBER_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class TranscriptSource:
    """One file to replay: ``name`` as the summary shows it, ``load`` reads it (raising
    ``TranscriptError`` saying why it is not a transcript)."""

    name: str
    load: Callable[[], Transcript]


def transcript_sources(path: Path) -> Iterator[TranscriptSource]:
    """Every file under ``path`` (a transcript, a zip of them, or a folder of either,
    recursively), in natural order of their names (``game-2`` before ``game-10``).

    Raises ``TranscriptError`` if ``path`` itself cannot be opened (missing, not a
    file or a folder): there is nothing to replay."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise TranscriptError(f"cannot open it: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        yield from _folder(path)
    elif stat.S_ISREG(mode) and zipfile.is_zipfile(path):
        yield from _zip(path)
    else:
        yield TranscriptSource(str(path), lambda: read_transcript(path))


def natural_key(name: str) -> list[int | str]:
    """``name`` split into text and numbers, numbers compared as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _folder(folder: Path) -> Iterator[TranscriptSource]:
    files: list[Path] = []
    for root, dirs, names in os.walk(folder):  # links to folders are not followed
        dirs.sort(key=natural_key)
        files += [Path(root) / name for name in names]
    for file in sorted(files, key=lambda f: natural_key(str(f.relative_to(folder)))):
        if file.suffix.lower() == ".zip" and _is_zip(file):
            yield from _zip(file)
        else:
            yield TranscriptSource(str(file), lambda file=file: read_transcript(file))


def _is_zip(path: Path) -> bool:
    try:
        return path.is_file() and zipfile.is_zipfile(path)
    except OSError:
        return False


def _zip(archive: Path) -> Iterator[TranscriptSource]:
    try:
        with zipfile.ZipFile(archive) as zf:
            members = [m for m in zf.infolist() if not m.is_dir()]
    except (OSError, zipfile.BadZipFile) as exc:
        yield TranscriptSource(str(archive), _refusal(f"not a zip that can be read: {exc}"))
        return
    for member in sorted(members, key=lambda m: natural_key(m.filename)):
        yield TranscriptSource(f"{archive}:{member.filename}", _member_loader(archive, member))


def _member_loader(archive: Path, member: zipfile.ZipInfo) -> Callable[[], Transcript]:
    def load() -> Transcript:
        if member.file_size > MAX_MEMBER_BYTES:
            raise TranscriptError(
                f"it holds {member.file_size} bytes, more than a transcript "
                f"({MAX_MEMBER_BYTES} at most)"
            )
        try:
            with zipfile.ZipFile(archive) as zf, zf.open(member) as file:
                data = file.read(MAX_MEMBER_BYTES + 1)
        except (OSError, zipfile.BadZipFile, RuntimeError, ValueError) as exc:
            raise TranscriptError(f"cannot read it from the zip: {exc}") from None
        if len(data) > MAX_MEMBER_BYTES:
            raise TranscriptError(f"it holds more than {MAX_MEMBER_BYTES} bytes")
        return parse_transcript(data)

    return load


def _refusal(reason: str) -> Callable[[], Transcript]:
    def load() -> Transcript:
        raise TranscriptError(reason)

    return load
