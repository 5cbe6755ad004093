"""docs/own_data.md: its python blocks write the table and the model files, then every
``bayescomp`` command the page shows runs from the shell (``python -m bayescomp``)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from test_docs_examples import python_blocks, shell_commands

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "own_data.md"


def test_own_data_page_commands_run_from_the_shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = PAGE.read_text(encoding="utf-8")
    for i, code in enumerate(python_blocks(text)):
        exec(compile(code, f"own_data.md, python block {i + 1}", "exec"), {})
    commands = shell_commands(text)
    assert len(commands) == 4
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for cmd in commands:
        r = subprocess.run(
            [sys.executable, "-m", "bayescomp", *shlex.split(cmd)[1:], "--quiet"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert r.returncode == 0, f"{cmd!r} exited {r.returncode}: {r.stderr}{r.stdout}"
        if "--fail-unless promote" in cmd:
            assert "recommendation: promote with_plan" in r.stdout, r.stdout
        if "--time" in cmd:
            assert "time-ordered windows" in r.stdout, r.stdout
        if "--guardrail" in cmd:
            assert "p_joint" in r.stdout, r.stdout
