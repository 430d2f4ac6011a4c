"""Where ``games`` takes its compiled modules from, if anywhere.

``build_engines.py`` (``make install``) may compile some modules of this
package with mypyc into ``build/native/`` beside the source, and writes
``build/native/BUILT`` (JSON) last: the modules, their shared library and the
interpreter's extension suffix. Imported first by ``games/__init__.py``, this
module then puts a finder in front of ``sys.meta_path`` that loads exactly
those modules from the build; every other module, and all of them when there
is no complete build for this interpreter, when a compiled module's source has
changed since the build (a warning says so), or when ``CARDROOM_PURE_ENGINES``
is set (to anything but ``0``), comes from the pure source as usual. Nothing here
changes what the engines do: the build compiles the very same source.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Any

#: This package's source directory.
PACKAGE = Path(__file__).resolve().parent
#: The compiled build's directory (``build_engines.py``).
ROOT = PACKAGE.parent / "build" / "native"
#: The file ``build_engines.py`` writes once the build is complete.
BUILT = ROOT / "BUILT"
#: Set (to anything but ``0``) to use the pure source even when the build is there.
PURE_VARIABLE = "CARDROOM_PURE_ENGINES"


def pure_forced() -> bool:
    """True when the environment asks for the pure source (``CARDROOM_PURE_ENGINES``)."""
    return os.environ.get(PURE_VARIABLE, "") not in ("", "0")


def built(root: Path | None = None, suffix: str | None = None) -> dict[str, Any] | None:
    """The complete build's description (``BUILT``) for this interpreter, else None.

    ``root`` and ``suffix`` ask about another build directory (default :data:`ROOT`)
    and another interpreter's extension suffix (default this one's): the sandbox
    asks which build fits the Python its bots run (``bots/sandbox/engine.py``).
    """
    root = ROOT if root is None else root
    suffix = extension_suffix() if suffix is None else suffix
    try:
        marker = json.loads((root / "BUILT").read_text())
        modules, library = list(marker["modules"]), str(marker["library"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if marker.get("abi") != suffix:
        return None  # built by another interpreter
    files = {name: module_file(name, root, suffix) for name in [*modules, library]}
    if not all(path.is_file() for path in files.values()):
        return None
    sources = marker.get("sources", {})
    if any(sources.get(name) != source_digest(name) for name in modules):
        return None  # a source edited since the build: its compiled module is stale
    return {"modules": tuple(modules), "library": library, "files": files}


def source_digest(module: str) -> str | None:
    """SHA-256 of the pure source of ``module`` (what the build compiled), or None."""
    path = PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def extension_suffix() -> str:
    """The file suffix of this interpreter's extension modules (``.cpython-311-...so``)."""
    return str(sysconfig.get_config_var("EXT_SUFFIX"))


def runtime_of(python: str) -> tuple[str, str] | None:
    """``(version, extension suffix)`` of another interpreter (the sandbox's Python),
    or None if it does not run."""
    code = "import sys, sysconfig; print(sys.version.split()[0], sysconfig.get_config_var(SUFFIX))"
    try:
        out = subprocess.run(
            [python, "-E", "-s", "-c", code.replace("SUFFIX", "'EXT_SUFFIX'")],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        version, suffix = out.stdout.split()
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return version, suffix


def module_file(module: str, root: Path | None = None, suffix: str | None = None) -> Path:
    """Where the build (in ``root``, default :data:`ROOT`) keeps the extension of
    ``module`` (a dotted name) for an interpreter whose suffix is ``suffix``."""
    *package, name = module.split(".")
    suffix = extension_suffix() if suffix is None else suffix
    return (ROOT if root is None else root).joinpath(*package, name + suffix)


class NativeFinder:
    """A ``sys.meta_path`` finder for the compiled modules (and their shared library) only."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def _install() -> tuple[str, ...]:
    if pure_forced():
        return ()
    build = built()
    if build is None:
        if BUILT.exists():
            warnings.warn(
                f"games: the compiled build in {ROOT} is incomplete, stale or for another "
                "Python; using the pure source (`make install` rebuilds it)",
                RuntimeWarning,
                stacklevel=2,
            )
        return ()
    sys.meta_path.insert(0, NativeFinder(build["files"]))
    return build["modules"]


#: The modules of ``games`` loaded from the compiled build (``()``: all pure source).
MODULES: tuple[str, ...] = _install()
