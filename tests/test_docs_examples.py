"""Every ```python block of docs/*.md runs on a fresh install, from built-in data only.

The blocks of one page run in order in one namespace (a page is one session), inside an
empty temporary folder, so an example cannot lean on files of the repository (``models/``,
``../shared/data``) or on names it never defines.  A block that imports an optional
package which is not installed (e.g. dask for the cluster example, or pyspark where there
is no Java to run it) is skipped, and only that block.  Every page runs in the default
suite: an example of a page once marked slow broke unnoticed.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import textwrap
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: pages whose examples start Dask, Ray and Spark clusters (about two minutes): run with -m slow
SLOW: set[str] = {"scaling_out.md"}
# pages whose examples talk to a tracking server at a placeholder address: their flow runs
# against a real `mlflow server` in tests/test_mlflow.py and docs/scripts/mlflow_screenshots.py
NEEDS_SERVER = {"mlflow.md"}
# cli.md has its own test below: its python blocks, then every command it shows
PAGES = sorted(
    p
    for p in DOCS.glob("*.md")
    if "```python" in p.read_text(encoding="utf-8")
    and p.name != "cli.md"
    and p.name not in NEEDS_SERVER
)


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


def test_promises_are_found_and_checked():
    code = "x = 'a'\nprint(x)  # 'a'\nprint(x)  # a comment, not a promise\n"
    assert check_promises(code, {"x": "a"}, "here") == 1
    with pytest.raises(AssertionError, match="x is 'b'"):
        check_promises(code, {"x": "b"}, "here")


def test_the_extractor_finds_indented_blocks_and_their_imports():
    page = "text\n\n```python\nx = 1\n```\n\n* item\n\n  ```python\n  import nopkg_xyz\n  ```\n"
    assert python_blocks(page) == ["x = 1\n", "import nopkg_xyz\n"]
    assert missing_modules("import nopkg_xyz\nfrom os import path") == ["nopkg_xyz"]


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW else []) for p in PAGES],
)
def test_docs_page_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no repository files: what a fresh install sees
    namespace: dict = {"__name__": "__docs__"}
    ran = 0
    for i, code in enumerate(python_blocks(page.read_text(encoding="utf-8"))):
        if missing_modules(code):
            continue
        try:
            exec(compile(code, f"{page.name}, python block {i + 1}", "exec"), namespace)
        except Exception as exc:  # name the page and block in the failure
            raise AssertionError(
                f"{page.name}, python block {i + 1} failed: {type(exc).__name__}: {exc}"
            ) from exc
        check_promises(code, namespace, f"{page.name}, python block {i + 1}")
        ran += 1
    assert ran >= 1


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced block, in order (language "" when none)."""
    blocks, lang, body = [], None, []
    for line in text.splitlines():
        fence = line.strip().startswith("```")
        if fence and lang is None:
            lang, body = line.strip()[3:].strip(), []
        elif fence:
            blocks.append((lang, "\n".join(body) + "\n"))
            lang = None
        elif lang is not None:
            body.append(line)
    return blocks


def shell_commands(text: str) -> list[str]:
    """``bayescomp ...`` lines of the plain ``` blocks, continuation lines joined."""
    out = []
    for lang, block in fenced_blocks(text):
        if lang:
            continue
        joined = block.replace("\\\n", " ")
        out += [
            line.split("  #")[0].strip()
            for line in joined.splitlines()
            if line.startswith("bayescomp ")
        ]
    return out


def test_cli_page_commands_run_on_the_files_its_example_writes(tmp_path, monkeypatch, capsys):
    """docs/cli.md: its python block writes the CSVs, then every command shown runs."""
    import shlex

    from bayescomp.cli.main import main

    monkeypatch.chdir(tmp_path)
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for i, code in enumerate(python_blocks(text)):
        exec(compile(code, f"cli.md, python block {i + 1}", "exec"), {})
    # lines that are commands (not quoted output such as "bayescomp select: Warning ...")
    commands = [c for c in shell_commands(text) if not c.split()[1].endswith(":")]
    assert len(commands) >= 7
    for cmd in commands:
        argv = shlex.split(cmd)[1:]
        if "models/" in cmd:  # cross-validation from model files: one repetition is enough
            argv += ["--n-repeats", "1", "--quiet"]
        code = main(argv)
        assert code == 0, f"{cmd!r} exited {code}: {capsys.readouterr().err}"
