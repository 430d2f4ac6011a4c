"""The optional compiled build of the game engines (mypyc), beside the pure source.

    python build_engines.py [--clean]

Compiles the hot modules of ``games/`` (:data:`MODULES`: the trick-taking core
and the Manni and Maniglia families) with mypyc into ``build/native/``: one
extension per module under ``build/native/games/`` and their shared library.
``games/native.py`` (imported first by ``games``) loads exactly those modules
from there and the pure source for everything else; ``CARDROOM_PURE_ENGINES=1``
ignores the build. The source in ``games/`` is never changed and stays the fallback.

``build/native/BUILT`` (JSON: the modules, their sources' SHA-256, the
interpreter) is written last, once every module is built; without it, or once
a compiled module's source has changed since, ``games`` uses the pure source.
Any failure (no mypy, no compiler, a type error) removes the partial build,
prints one line and exits 0, so ``make install`` goes on with the pure source.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
NATIVE = ROOT / "build" / "native"
LOG = ROOT / "build" / "native.log"
#: The modules compiled, as paths under the repository (the hot loop of every playout).
MODULES = (
    "games/rng.py",
    "games/cards.py",
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


def build() -> None:
    """Compile :data:`MODULES` into :data:`NATIVE`; raises on any failure."""
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
        setup(
            name="cardroom-native-engines",
            ext_modules=extensions,
            script_args=[
                "build_ext",
                "--build-lib",
                str(NATIVE),
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
    (NATIVE / "BUILT").write_text(json.dumps(marker, indent=1) + "\n")


def main(argv: list[str]) -> int:
    shutil.rmtree(NATIVE, ignore_errors=True)
    if "--clean" in argv:
        LOG.unlink(missing_ok=True)
        return 0
    LOG.parent.mkdir(parents=True, exist_ok=True)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            build()
    except BaseException as exc:  # SystemExit from setup() or mypyc's type errors too
        shutil.rmtree(NATIVE, ignore_errors=True)
        LOG.write_text(f"{out.getvalue()}\n{type(exc).__name__}: {exc}\n")
        print(f"engines: compiled build failed ({LOG.relative_to(ROOT)}); using the pure source")
        return 0
    LOG.write_text(out.getvalue())
    print(f"engines: compiled {len(MODULES)} modules with mypyc into {NATIVE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
