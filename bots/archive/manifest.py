"""Finding the program of an unpacked upload: its manifest ``bot.json`` (entry, runtime,
command, variants), or the usual names (``bots.archive``)."""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

import games
from bots.archive.limits import (
    MANIFEST,
    MANIFEST_KEYS,
    MAX_MANIFEST_BYTES,
    RUNTIME_INTERPRETERS,
    RUNTIMES,
    ArchiveError,
    UploadLimits,
)
from bots.archive.unpacking import _safe_parts
from bots.sandbox.resolve import BOT_MOUNT, DIRECTORY_ENTRY_POINTS

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
