"""No module of the suite imports a test module: what tests share lives in
``tests/factories.py`` (plain functions), the other support modules of ``tests/`` and the
``conftest.py`` files (fixtures). A test module imported by another runs its module-level
code twice, drags its fixtures along by name and breaks when it is renamed or split.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def is_test_module(dotted: str) -> bool:
    return dotted.split(".")[-1].startswith("test_")


def test_modules_imported(source: str, module: str) -> list[str]:
    """The test modules (``test_*``) that ``source``, the text of ``module`` (dotted name),
    imports, relative imports resolved."""
    package = module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            if is_test_module(base):
                found.append(base)
            else:  # from tests.x import test_y
                found += [f"{base}.{a.name}" for a in node.names if is_test_module(a.name)]
    return found


test_modules_imported.__test__ = False  # a helper, not a test


def test_no_module_of_the_suite_imports_a_test_module():
    offenders = {}
    for path in sorted(TESTS.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        imported = test_modules_imported(path.read_text(), module)
        if imported:
            offenders[str(path.relative_to(ROOT))] = imported
    assert not offenders, f"move the shared helpers to tests/factories.py: {offenders}"


def test_every_form_of_importing_a_test_module_is_caught():
    module = "tests.web.test_pages"
    cases = {
        "from tests.api.test_knockouts import enter_copies": ["tests.api.test_knockouts"],
        "from tests.tournaments import test_tasks as shared": ["tests.tournaments.test_tasks"],
        "import tests.dashboard.test_browser": ["tests.dashboard.test_browser"],
        "from .test_organisers import post_action": ["tests.web.test_organisers"],
        "from ..dashboard.test_live_script import open_page": ["tests.dashboard.test_live_script"],
        "def f():\n    from tests.bots.test_transcript import raw_bot": [
            "tests.bots.test_transcript"
        ],
    }
    for source, expected in cases.items():
        assert test_modules_imported(source, module) == expected, source


def test_support_modules_and_conftest_files_may_be_imported():
    module = "tests.web.test_pages"
    for source in (
        "from tests.factories import make_user",
        "from tests.web.conftest import once_value",
        "from tests import workers",
        "import tests.browser",
        "from .conftest import post_action",
    ):
        assert test_modules_imported(source, module) == [], source
