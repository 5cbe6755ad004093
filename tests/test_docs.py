"""The docs' contracts that hold without building them: figures come from code, the API
reference covers every public name, the version has one source.

The build itself (``sphinx-build -W --keep-going -b html docs docs/_build/html``) runs in
``.ci/run``; these checks fail fast, in the default suite, when a page shows a pasted image.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import bayescomp

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def _images_shown() -> set[str]:
    names = set()
    for page in DOCS.glob("*.md"):
        text = re.sub(r"```.*?```|`[^`\n]*`", "", page.read_text(), flags=re.S)  # not code
        names |= set(re.findall(r"!\[[^\]]*\]\(img/([^)\s]+)\)", text))
    return names


def _figure_name_patterns() -> list[re.Pattern]:
    """Every ``.png`` name a script in docs/scripts/ can write (f-string fields match anything)."""
    patterns = []
    for script in (DOCS / "scripts").glob("*.py"):
        for node in ast.walk(ast.parse(script.read_text())):
            if isinstance(node, ast.JoinedStr):
                parts = [
                    re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in node.values
                ]
                text = "".join(parts)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = re.escape(node.value)
            else:
                continue
            if text.endswith(r"\.png") or text.endswith(".png"):
                patterns.append(re.compile(text + "$"))
    return patterns


def test_every_image_a_page_shows_is_written_by_a_docs_script():
    shown = _images_shown()
    assert shown, "the guide shows figures from docs/img/"
    patterns = _figure_name_patterns()
    orphans = sorted(n for n in shown if not any(p.match(n) for p in patterns))
    assert not orphans, f"images no script in docs/scripts/ writes: {orphans}"


@pytest.mark.skipif(
    shutil.which("git") is None or not (REPO / ".git").exists(), reason="needs a git checkout"
)
def test_no_built_figure_is_committed():
    tracked = subprocess.run(
        ["git", "ls-files", "docs/img"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked == []


def test_api_reference_lists_every_public_name_once():
    spec = importlib.util.spec_from_file_location("bayescomp_docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    page = conf._api_page()
    listed = re.findall(r"^   (\w+)$", page, flags=re.M)
    assert sorted(listed) == sorted(n for n in bayescomp.__all__ if n != "__version__")
    assert conf.release == bayescomp.__version__


@pytest.mark.parametrize("script", sorted(p.name for p in (DOCS / "scripts").glob("[!_]*.py")))
def test_docs_script_runs_in_the_gallery(script):
    """What sphinx-gallery needs of a script: an underlined title, and no ``__file__``."""
    source = (DOCS / "scripts" / script).read_text()
    doc = ast.get_docstring(ast.parse(source), clean=True) or ""
    lines = doc.splitlines()
    assert (
        len(lines) >= 2 and lines[1] and set(lines[1]) == {"="} and len(lines[1]) >= len(lines[0])
    ), f"{script}: start the docstring with a title underlined with '=' (the gallery's page title)"
    assert "__file__" not in source, (
        f"{script}: the gallery runs scripts without __file__; use `from _docs import REPO, IMG`"
    )
