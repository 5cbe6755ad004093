"""Every ```python block of docs/*.md runs on a fresh install of the extras the page names.

The blocks of one page run in order in one namespace (a page is one session), in a fresh
interpreter inside an empty temporary folder, so an example cannot lean on files of the
repository (``models/``, ``../shared/data``) or on names it never defines.  That
interpreter sees only what ``pip install "bayescomp[EXTRA]"`` installs for the extras the
page names (every other installed package is made unimportable), so an example that needs
an extra it does not name fails as it does for a reader.  A block that itself imports a
package outside those extras (or pyspark where there is no Java to run it) is skipped,
and only that block.  Every page runs in the default suite, except the cluster page: an
example of a page once marked slow broke unnoticed.  mlflow.md runs against the session's
real ``mlflow server`` (tests/test_mlflow.py), in place of its placeholder address.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_pages import PLACEHOLDER_URI, check_promises, missing_modules, python_blocks  # noqa: F401

with contextlib.suppress(pytest.skip.Exception):  # no MLflow here: mlflow.md skips
    from test_mlflow import server  # noqa: F401 - the session's real mlflow server

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
#: pages whose examples start Dask, Ray and Spark clusters (about two minutes): run with -m slow
SLOW: set[str] = {"scaling_out.md"}
# cli.md has its own test below: its python blocks, then every command it shows
PAGES = sorted(
    p
    for p in DOCS.glob("*.md")
    if "```python" in p.read_text(encoding="utf-8") and p.name != "cli.md"
)


def test_promises_are_found_and_checked():
    code = "x = 'a'\nprint(x)  # 'a'\nprint(x)  # a comment, not a promise\n"
    assert check_promises(code, {"x": "a"}, "here") == 1
    with pytest.raises(AssertionError, match="x is 'b'"):
        check_promises(code, {"x": "b"}, "here")


def test_the_extractor_finds_indented_blocks_and_their_imports():
    page = "text\n\n```python\nx = 1\n```\n\n* item\n\n  ```python\n  import nopkg_xyz\n  ```\n"
    assert python_blocks(page) == ["x = 1\n", "import nopkg_xyz\n"]
    assert missing_modules("import nopkg_xyz\nfrom os import path") == ["nopkg_xyz"]


def page_extras(text: str) -> set[str]:
    """The extras a page names (``bayescomp[mlflow]``, ``'bayescomp[dask,ray]'``)."""
    return {e for group in re.findall(r"bayescomp\[([\w,-]+)\]", text) for e in group.split(",")}


def installed_with(extras: set[str]) -> set[str]:
    """The distributions ``pip install "bayescomp[extras]"`` installs (bayescomp included),
    from the installed packages' metadata: their requirements followed to the end."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    todo = [("bayescomp", frozenset(extras))]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, wanted = todo.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            req = Requirement(line)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((canonicalize_name(req.name), frozenset(req.extras)))
    return {name for name, _ in seen}


def outside(extras: set[str]) -> list[str]:
    """The importable top-level modules that only packages outside ``extras`` provide."""
    from importlib import metadata

    from packaging.utils import canonicalize_name

    kept = installed_with(extras)
    return sorted(
        module
        for module, dists in metadata.packages_distributions().items()
        if module.isidentifier() and not {canonicalize_name(d) for d in dists} & kept
    )


#: a fresh interpreter: packages outside the page's extras unimportable, then the page
RUNNER = """
import sys
from pathlib import Path
from docs_pages import block, run_page
block(set(sys.argv[2].split(",")) - set(sys.modules))  # what the runner imported stays
print("ran", run_page(Path(sys.argv[1])))
"""


def test_a_page_sees_only_the_packages_of_its_extras():
    assert page_extras("pip install 'bayescomp[mcmc]' or bayescomp[dask,ray]") == {
        "mcmc",
        "dask",
        "ray",
    }
    base, mlflow = installed_with(set()), installed_with({"mlflow"})
    assert {"bayescomp", "numpy", "scikit-learn"} <= base and "pymc" not in base
    assert "mlflow-skinny" in mlflow - base
    assert "pymc" in outside(set()) and "pymc" not in outside({"mcmc"})


def _page_param(p: Path):
    marks = [pytest.mark.slow] if p.name in SLOW else []
    if p.name == "mlflow.md":
        marks.append(pytest.mark.xdist_group("mlflow"))  # the session's one server
    return pytest.param(p, id=p.name, marks=marks)


@pytest.mark.parametrize("page", [_page_param(p) for p in PAGES])
def test_docs_page_examples_run(page, tmp_path, request):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}
    if page.name == "mlflow.md":
        pytest.importorskip("mlflow")
        env["BAYESCOMP_DOCS_TRACKING_URI"] = request.getfixturevalue("server")
    blocked = ",".join(outside(page_extras(page.read_text(encoding="utf-8"))))
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, str(page), blocked],
        cwd=tmp_path,  # no repository files: what a fresh install sees
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert int(proc.stdout.split()[-1]) >= 1, proc.stdout[-2000:]


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


def test_one_test_set_page_prints_what_its_command_prints(tmp_path, monkeypatch, capsys):
    """docs/one_test_set.md: the output shown under ``bayescomp compare --predictions
    evals.csv ...`` is what the command prints on the page's own table (it once said 1.52x
    where the command printed 1.53x)."""
    import shlex

    from bayescomp.cli.main import main

    monkeypatch.chdir(tmp_path)
    text = (DOCS / "one_test_set.md").read_text(encoding="utf-8")
    scope: dict = {}
    exec(compile(python_blocks(text)[0], "one_test_set.md, block 1", "exec"), scope)
    scope["evals"].to_csv("evals.csv", index=False)
    command, shown = re.search(
        r"```\n(bayescomp compare --predictions evals\.csv.*?)```.*?```\n(baseline: .*?)```",
        text,
        re.S,
    ).groups()
    capsys.readouterr()
    assert main(shlex.split(command.replace("\\\n", " "))[1:]) == 0
    printed = capsys.readouterr().out
    assert [s.rstrip() for s in printed.strip().splitlines()] == shown.strip().splitlines()


def test_the_spark_dataframe_example_stands_on_its_own():
    """docs/scaling_out.md's Spark DataFrame block is copied on its own into a Databricks
    notebook: every name it uses is imported or assigned in it (it once lacked ``bc``)."""
    import ast
    import builtins

    blocks = python_blocks((DOCS / "scaling_out.md").read_text(encoding="utf-8"))
    tree = ast.parse(next(b for b in blocks if "SparkSession" in b))
    nodes = list(ast.walk(tree))
    imported = {
        a.asname or a.name.split(".")[0]
        for n in nodes
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    names = [n for n in nodes if isinstance(n, ast.Name)]
    assigned = {n.id for n in names if isinstance(n.ctx, ast.Store)}
    used = {n.id for n in names if isinstance(n.ctx, ast.Load)}
    assert used - imported - assigned - set(dir(builtins)) == set()
