"""Running the ```python blocks of a docs page (tests/test_docs_examples.py): only the
standard library here, so the interpreter that runs a page imports nothing else first."""

from __future__ import annotations

import ast
import importlib.abc
import importlib.util
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

#: the tracking server address the pages show; the test puts its real server's there
PLACEHOLDER_URI = "http://127.0.0.1:5000"


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a markdown page, dedented (a block may sit in a list item)."""
    return [
        textwrap.dedent(b)
        for b in re.findall(r"^[ \t]*```python\n(.*?)^[ \t]*```", text, re.S | re.M)
    ]


def missing_modules(code: str) -> list[str]:
    """Top-level packages the block imports that are not installed."""
    roots = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    missing = {r for r in roots if importlib.util.find_spec(r) is None}
    if "pyspark" in roots and shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        missing.add("pyspark")  # installed, but Spark cannot start without a JRE
    return sorted(missing)


#: ``print(expression)  # 'text'``: the example promises that the expression is that string
PROMISE = re.compile(r"^print\((?P<expr>.+)\)\s+#\s+(?P<value>'[^']*')\s*$", re.M)


def check_promises(code: str, namespace: dict, where: str) -> int:
    """Evaluate every promised ``print`` of a block after it ran; the number checked."""
    found = PROMISE.finditer(code)
    for m in found:
        got = eval(m["expr"], namespace)  # the docs' own example code
        assert got == ast.literal_eval(m["value"]), f"{where}: {m['expr']} is {got!r}"
    return len(PROMISE.findall(code))


#: top-level modules a page may not import: not installed by the extras it names
BLOCKED: set[str] = set()


class _Hidden(importlib.abc.MetaPathFinder):
    """A finder of ``sys.meta_path`` that finds nothing of the :data:`BLOCKED` modules, so
    they look and fail as where the package is absent (``find_spec`` gives None)."""

    def __init__(self, inner):
        self.inner = inner

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED or not hasattr(self.inner, "find_spec"):
            return None
        return self.inner.find_spec(name, path, target)

    def find_distributions(self, *args, **kwargs):  # importlib.metadata asks the finders
        find = getattr(self.inner, "find_distributions", None)
        return find(*args, **kwargs) if find is not None else iter(())

    def invalidate_caches(self):
        if hasattr(self.inner, "invalidate_caches"):
            self.inner.invalidate_caches()


def block(modules: set[str]) -> None:
    """Make ``modules`` (top-level names) unimportable in this interpreter from now on."""
    BLOCKED.update(modules)
    sys.meta_path[:] = [f if isinstance(f, _Hidden) else _Hidden(f) for f in sys.meta_path]


def run_page(page: Path) -> int:
    """Run the page's blocks in this interpreter; the number that ran (see the module)."""
    namespace: dict = {"__name__": "__docs__"}
    uri = os.environ.get("BAYESCOMP_DOCS_TRACKING_URI", PLACEHOLDER_URI)
    ran = 0
    for i, code in enumerate(python_blocks(page.read_text(encoding="utf-8"))):
        if missing_modules(code):
            continue
        code = code.replace(PLACEHOLDER_URI, uri)
        try:
            exec(compile(code, f"{page.name}, python block {i + 1}", "exec"), namespace)
        except Exception as exc:  # name the page and block in the failure
            raise AssertionError(
                f"{page.name}, python block {i + 1} failed: {type(exc).__name__}: {exc}"
            ) from exc
        check_promises(code, namespace, f"{page.name}, python block {i + 1}")
        ran += 1
    return ran
