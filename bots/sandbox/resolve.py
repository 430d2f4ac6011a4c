"""Turn a bot given as a program file or a directory into the command to run."""

from __future__ import annotations

import json
import os
from pathlib import Path

#: Where the bot's files appear inside the sandbox (read-only, the working directory).
BOT_MOUNT = "/bot"

#: File extension -> interpreter, looked up on the sandbox's PATH (/usr/bin).
INTERPRETERS = {".py": "python3", ".js": "node", ".sh": "sh"}

#: Entry points tried in a directory without ``bot.json``, in this order.
DIRECTORY_ENTRY_POINTS = ("bot.py", "main.py", "bot.js", "main.js")


def resolve(path: str | Path) -> tuple[list[str], Path]:
    """The command (as run inside the sandbox) and the host path to mount at ``/bot``.

    A directory is run by its ``bot.json`` (``{"command": [...]}``, or an upload's
    ``{"entry": "main.py"}`` run by its extension) if present,
    else by the first of bot.py / main.py (python3), bot.js / main.js (node), or
    an executable named ``bot``; the directory is returned as ``bot_dir``. A
    single file is run by its extension (.py python3, .js node, .sh sh) or
    directly if executable; ``bot_dir`` is then the file itself, so only that
    file is mounted (at ``/bot/<name>``) and nothing beside it is visible.

    Raises ``ValueError`` naming the path and the problem.
    """
    path = Path(path).resolve()
    if path.is_dir():
        return _resolve_directory(path), path
    if path.is_file():
        return _resolve_file(path), path
    raise ValueError(f"bot path {str(path)!r} is neither a file nor a directory")


def _resolve_directory(directory: Path) -> list[str]:
    manifest = directory / "bot.json"
    if manifest.is_file():
        return _command_from_manifest(manifest)
    for name in DIRECTORY_ENTRY_POINTS:
        if (directory / name).is_file():
            return [INTERPRETERS[Path(name).suffix], f"{BOT_MOUNT}/{name}"]
    executable = directory / "bot"
    if executable.is_file() and os.access(executable, os.X_OK):
        return [f"{BOT_MOUNT}/bot"]
    raise ValueError(
        f"bot directory {str(directory)!r} has no bot.json, "
        f"{', '.join(DIRECTORY_ENTRY_POINTS)} or executable 'bot'"
    )


def _command_from_manifest(manifest: Path) -> list[str]:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"{str(manifest)!r} is not valid JSON: {error}") from None
    command = data.get("command") if isinstance(data, dict) else None
    entry = data.get("entry") if isinstance(data, dict) else None
    if command is None and isinstance(entry, str) and entry:
        return _command_from_entry(manifest.parent, entry, manifest)
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(arg, str) and arg and "\0" not in arg for arg in command)
    ):
        raise ValueError(
            f'{str(manifest)!r} must hold {{"command": [...]}}, a non-empty list of '
            f'non-empty strings, or {{"entry": "<program>"}}; got {command!r:.200}'
        )
    return list(command)


def _command_from_entry(directory: Path, entry: str, manifest: Path) -> list[str]:
    """The command of an upload's manifest that names only its ``entry`` (as
    ``bots.archive`` runs it): by the entry's extension, else the entry itself."""
    program = (directory / entry).resolve()
    if directory not in program.parents or not program.is_file():
        raise ValueError(f"{str(manifest)!r} names an entry {entry!r} that is not a file in it")
    target = f"{BOT_MOUNT}/{program.relative_to(directory).as_posix()}"
    interpreter = INTERPRETERS.get(program.suffix.lower())
    return [interpreter, target] if interpreter else [target]


def _resolve_file(program: Path) -> list[str]:
    target = f"{BOT_MOUNT}/{program.name}"
    interpreter = INTERPRETERS.get(program.suffix.lower())
    if interpreter:
        return [interpreter, target]
    if os.access(program, os.X_OK):
        return [target]
    raise ValueError(
        f"bot file {str(program)!r} has an unknown extension {program.suffix!r} "
        f"(known: {', '.join(sorted(INTERPRETERS))}) and is not executable"
    )
