"""The optional compiled build of the game engines (mypyc), beside the pure source.

    python build_engines.py [--clean] [--into DIR]

Compiles the hot modules of ``games/`` (:data:`MODULES`: the trick-taking core
and the Manni, Maniglia and Money families) with mypyc into ``build/native/``: one
extension per module under ``build/native/games/`` and their shared library.
``games/native.py`` (imported first by ``games``) loads exactly those modules
from there and the pure source for everything else; ``CARDROOM_PURE_ENGINES=1``
ignores the build. The source in ``games/`` is never changed and stays the fallback.

``build/native/BUILT`` (JSON: the modules, their sources' SHA-256, the
interpreter) is written last, once every module is built; without it, or once
a compiled module's source has changed since, ``games`` uses the pure source.
Any failure (no mypy, no compiler, a type error) removes the partial build,
prints one line and exits 0, so ``make install`` goes on with the pure source.

Bots run Debian's ``/usr/bin/python3`` in the sandbox (:data:`SANDBOX_PYTHON`),
and every bot gets a copy of the build that fits it (``bots/sandbox/engine.py``).
When that Python's extension suffix is this one's, the same build fits; otherwise
this script runs again under it (``--into build/native-sandbox``), which needs
mypy importable there (Debian's ``python3-mypy``); without it bots get the pure
source, and the last line says so. The extensions are built without debug
information (less for every bot's sandbox to copy).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
NATIVE = ROOT / "build" / "native"
#: The build for the sandbox's Python when its extension suffix differs from ours.
SANDBOX_NATIVE = ROOT / "build" / "native-sandbox"
#: The Python bots run (``bots.sandbox.engine.SANDBOX_PYTHON``).
SANDBOX_PYTHON = "/usr/bin/python3"
LOG = ROOT / "build" / "native.log"
#: The modules compiled, as paths under the repository (the hot loop of every playout).
MODULES = (
    "games/rng.py",
    "games/cards.py",
    "games/suits.py",
    "games/public_history.py",
    "games/tricks.py",
    "games/manni/rules.py",
    "games/manni/state.py",
    "games/manni/basic.py",
    "games/manni/hornafjordur.py",
    "games/manni/laugavatn.py",
    "games/maniglia/rules.py",
    "games/maniglia/state.py",
    "games/maniglia/auction.py",
    "games/maniglia/partners.py",
    "games/money/sets.py",
    "games/money/plans.py",
    "games/money/rules.py",
    "games/money/table.py",
    "games/money/state.py",
)
#: The compiled modules' shared library is ``games.native__mypyc``.
GROUP = "games.native"
#: mypy's settings for the build: the modules not compiled are only read for their types.
MYPY_CONFIG = """\
[mypy]
python_version = {version}
follow_imports = normal
warn_unused_configs = False

[mypy-{ignored}]
ignore_errors = True
"""


def _module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _ignored_modules() -> str:
    """Every module of ``games`` not compiled: type errors there do not stop the build."""
    compiled = {_module_name(p) for p in MODULES}
    names = []
    for source in sorted((ROOT / "games").rglob("*.py")):
        name = _module_name(source.relative_to(ROOT).as_posix()).removesuffix(".__init__")
        if name not in compiled:
            names.append(name)
    return ",".join(names)


def build(target: Path = NATIVE) -> None:
    """Compile :data:`MODULES` into ``target``; raises on any failure."""
    from mypyc.build import mypycify
    from setuptools import setup

    work = Path(tempfile.mkdtemp(prefix="cardroom-mypyc-"))
    try:
        config = work / "mypy.ini"
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        config.write_text(MYPY_CONFIG.format(version=version, ignored=_ignored_modules()))
        os.chdir(ROOT)  # mypyc reads the modules by their paths here
        options = ["--config-file", str(config), "--cache-dir", str(work / "mypy-cache")]
        extensions = mypycify(
            [*options, *MODULES],
            opt_level="3",
            group_name=GROUP,
            target_dir=str(work / "c"),
        )
        os.chdir(work)  # away from pyproject.toml: this setup() builds the extensions only
        os.environ["LDFLAGS"] = os.environ.get("LDFLAGS", "") + " -s"  # no debug information
        setup(
            name="cardroom-native-engines",
            ext_modules=extensions,
            script_args=[
                "build_ext",
                "--build-lib",
                str(target),
                "--build-temp",
                str(work / "obj"),
            ],
        )
    finally:
        os.chdir(ROOT)
        shutil.rmtree(work, ignore_errors=True)
    # The loader's own digest and suffix, so that the build and its check never disagree
    # (no BUILT exists yet: this import loads the pure source).
    from games import native

    modules = [_module_name(p) for p in MODULES]
    marker = {
        "modules": modules,
        "sources": {name: native.source_digest(name) for name in modules},
        "library": f"{GROUP}__mypyc",
        "python": sys.version.split()[0],
        "abi": native.extension_suffix(),
    }
    (target / "BUILT").write_text(json.dumps(marker, indent=1) + "\n")


def compile_into(target: Path, log: Path) -> bool:
    """Build into ``target`` (cleared first), the output in ``log``; one line either way."""
    shutil.rmtree(target, ignore_errors=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            build(target)
    except BaseException as exc:  # SystemExit from setup() or mypyc's type errors too
        shutil.rmtree(target, ignore_errors=True)
        log.write_text(f"{out.getvalue()}\n{type(exc).__name__}: {exc}\n")
        print(f"engines: compiled build failed ({_shown(log)}); using the pure source")
        return False
    log.write_text(out.getvalue())
    print(f"engines: compiled {len(MODULES)} modules with mypyc into {_shown(target)}")
    return True


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it is in it."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def build_for_sandbox(built: bool) -> None:
    """The build bots get: ours when the sandbox's Python shares our suffix, else its own."""
    from games import native

    shutil.rmtree(SANDBOX_NATIVE, ignore_errors=True)
    found = native.runtime_of(SANDBOX_PYTHON)
    if found is None:
        print(f"engines: no {SANDBOX_PYTHON} here (the sandbox's Python); bots need one")
        return
    version, suffix = found

    if suffix == native.extension_suffix():
        state = "get this build (the same suffix)" if built else "get the pure source"
        print(f"engines: bots in the sandbox ({SANDBOX_PYTHON} {version}) {state}")
        return
    log = ROOT / "build" / "native-sandbox.log"
    into = ["--into", str(SANDBOX_NATIVE), "--log", str(log)]
    done = subprocess.run([SANDBOX_PYTHON, __file__, *into], check=False, cwd=ROOT)
    if done.returncode != 0 or not (SANDBOX_NATIVE / "BUILT").is_file():
        print(
            f"engines: bots in the sandbox ({SANDBOX_PYTHON} {version}, {suffix}) get the pure "
            f"source: no build for it ({_shown(log)}; it needs mypy, python3-mypy)"
        )


def main(argv: list[str]) -> int:
    if "--into" in argv:  # run by the sandbox's Python: its own build only
        target = Path(argv[argv.index("--into") + 1])
        log = Path(argv[argv.index("--log") + 1]) if "--log" in argv else LOG
        return 0 if compile_into(target, log) else 1
    shutil.rmtree(NATIVE, ignore_errors=True)
    if "--clean" in argv:
        shutil.rmtree(SANDBOX_NATIVE, ignore_errors=True)
        LOG.unlink(missing_ok=True)
        return 0
    build_for_sandbox(compile_into(NATIVE, LOG))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
