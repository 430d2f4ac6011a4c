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


def built() -> dict[str, Any] | None:
    """The complete build's description (``BUILT``) for this interpreter, else None."""
    try:
        marker = json.loads(BUILT.read_text())
        modules, library = list(marker["modules"]), str(marker["library"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if marker.get("abi") != extension_suffix():
        return None  # built by another interpreter
    files = {name: module_file(name) for name in [*modules, library]}
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


def module_file(module: str) -> Path:
    """Where the build keeps the extension of ``module`` (a dotted name)."""
    *package, name = module.split(".")
    return ROOT.joinpath(*package, name + extension_suffix())


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
