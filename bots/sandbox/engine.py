"""Which engine a sandboxed bot gets: the compiled build that fits the sandbox's Python.

Bots run Debian's ``/usr/bin/python3`` (``isolation.RUNTIMES``), which need not
be the interpreter the platform runs. ``build_engines.py`` (``make install``)
compiles the engines for the platform's interpreter into ``build/native/`` and,
when the sandbox's Python has another extension suffix, for that one into
``build/native-sandbox/``. :func:`install` copies the build that fits the
sandbox's Python beside the copy of ``games`` that every bot gets
(``isolation.packages()``: ``/opt/cardroom/build/native/``, where the copy's
``games/native.py`` looks for it), after checking that this Python loads it
from the copy. Without a fitting build, or when the check fails, bots get the
pure source and the reason is logged as a warning. ``CARDROOM_PURE_ENGINES``
set for the platform gives bots the pure source too.

The build is the very same source compiled: a game's record does not depend on
which engine a bot uses (``tests/bots/sandbox/test_sandbox_engine.py``).
"""

from __future__ import annotations

import functools
import json
import logging
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from games import native

log = logging.getLogger(__name__)

#: The Python a bot's ``python3`` command runs (``isolation.RUNTIMES["python3"]``).
SANDBOX_PYTHON = "/usr/bin/python3"
#: Where the builds are looked for, in order: the platform's, then one made for the
#: sandbox's Python when its extension suffix differs (``build_engines.py``).
BUILDS = (native.ROOT, native.ROOT.parent / "native-sandbox")
#: Where a build goes in the packages' copy: where the copied ``games/native.py`` looks.
TARGET = Path("build") / "native"
#: Run by the sandbox's Python in the packages' copy: which modules came from the build.
_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import games
print(json.dumps({"modules": list(games.native.MODULES)}))
"""


@dataclass(frozen=True)
class Engine:
    """The engine bots get: ``modules`` compiled (``()``: the pure source), and why."""

    modules: tuple[str, ...]
    python: str
    reason: str
    build: Path | None = None

    @property
    def compiled(self) -> bool:
        return bool(self.modules)

    def describe(self) -> str:
        if self.compiled:
            return (
                f"compiled: {len(self.modules)} modules of games from the mypyc build "
                f"{self.build}, for {self.python} {self.reason}"
            )
        return f"pure source: {self.reason}"


@functools.cache
def runtime(python: str = SANDBOX_PYTHON) -> tuple[str, str] | None:
    """``(version, extension suffix)`` of the sandbox's Python, or None if it does not run."""
    return native.runtime_of(python)


def fitting_build(python: str = SANDBOX_PYTHON) -> tuple[Path | None, str]:
    """The first of :data:`BUILDS` complete and current for ``python``, with the reason."""
    found = runtime(python)
    if found is None:
        return None, f"{python} does not run here"
    version, suffix = found
    for root in BUILDS:
        if native.built(root, suffix) is not None:
            return root, f"{version}, {suffix}"
    return None, (
        f"no complete, current build in build/native for {python} {version} ({suffix}); "
        "`make install` builds it (build_engines.py, build/native.log)"
    )


def install(root: Path, python: str = SANDBOX_PYTHON) -> Engine:
    """Copy the build that fits ``python`` into ``root`` (holding the copy of ``games``).

    Returns the engine bots get; logs a warning when it is the pure source for
    any reason other than ``CARDROOM_PURE_ENGINES``.
    """
    if native.pure_forced():
        return Engine((), python, f"{native.PURE_VARIABLE} is set for the platform")
    build, reason = fitting_build(python)
    if build is None:
        return _pure(python, reason)
    target = root / TARGET
    shutil.copytree(build, target, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    modules = tuple(native.built(build, runtime(python)[1])["modules"])  # type: ignore[index]
    loaded = _probe(root, python)
    if loaded != modules:
        shutil.rmtree(root / "build", ignore_errors=True)
        return _pure(python, f"{python} did not load the build from the copy ({loaded})")
    return Engine(modules, python, reason, build)


def _probe(root: Path, python: str) -> tuple[str, ...] | str:
    """The compiled modules ``python`` loads from the copy in ``root``, or what went wrong."""
    try:
        out = subprocess.run(
            [python, "-B", "-E", "-s", "-c", _PROBE, str(root)],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"{type(error).__name__}: {error}"
    if out.returncode != 0:
        return (out.stderr.strip().splitlines() or ["no output"])[-1]
    try:
        return tuple(json.loads(out.stdout)["modules"])
    except (ValueError, KeyError, TypeError):
        return out.stdout.strip()[-200:]


def _pure(python: str, reason: str) -> Engine:
    log.warning("bots get the pure source of the engines: %s", reason)
    return Engine((), python, reason)
