"""Every test named in conftest.CI_STAGE exists, so a rename cannot drop it from CI."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import CI_STAGE

ROOT = Path(__file__).resolve().parents[1]


def missing_tests(nodes: set[str]) -> list[str]:
    """The node ids whose file has no test function of that name."""
    missing = []
    for node in sorted(nodes):
        path, name = node.split("::")
        file = ROOT / path
        tree = ast.parse(file.read_text(encoding="utf-8")) if file.is_file() else ast.Module([])
        defs = {f.name for f in tree.body if isinstance(f, ast.FunctionDef)}
        if name.split("[")[0] not in defs:
            missing.append(node)
    return missing


def test_ci_stage_names_existing_tests():
    assert not missing_tests(CI_STAGE), "CI_STAGE names tests that do not exist"


def test_a_renamed_or_moved_test_is_caught():
    assert missing_tests({"tests/test_store.py::test_no_such_test[x]"}) == [
        "tests/test_store.py::test_no_such_test[x]"
    ]
    assert missing_tests({"tests/no_such_file.py::test_a"}) == ["tests/no_such_file.py::test_a"]
