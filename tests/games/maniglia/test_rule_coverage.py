"""Every Maniglia rule and example of RULES.md is cited by at least one test docstring."""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).parent
RULES = Path(__file__).parents[3] / "docs" / "RULES.md"


def cited_ids() -> set[str]:
    ids: set[str] = set()
    for path in HERE.glob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                doc = ast.get_docstring(node) or ""
                ids |= set(re.findall(r"\b[A-Z][A-Z0-9-]*-\d+\b", doc))
    return ids


def test_every_maniglia_rule_is_cited():
    """Section 6 rule IDs, LIMIT-4, ACTION-5 and the EX-MANI examples each have a test."""
    text = RULES.read_text()
    section = text[text.index("## 6. Maniglia") : text.index("## 7. ")]
    wanted = set(re.findall(r"\*\*(MANIGLIA-[A-Z0-9]+-\d+)\*\*", section))
    wanted |= set(re.findall(r"\*\*(EX-MANI-\d+)\*\*", text))
    wanted |= {"LIMIT-4", "ACTION-5"}
    assert len(wanted) == 7 + 6 + 8 + 7 + 2
    assert wanted - cited_ids() == set()
