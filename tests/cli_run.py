"""The command line as a user runs it: ``python -m bayescomp ...`` in a subprocess that
imports this checkout (shared by the CLI tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_cli(*args: str, cwd: Path, timeout: int = 300, **kw) -> subprocess.CompletedProcess:
    """Run ``bayescomp *args`` in ``cwd``; ``env=`` adds variables to the environment."""
    env = {**os.environ, "PYTHONPATH": str(REPO), **kw.pop("env", {})}
    return subprocess.run(
        [sys.executable, "-m", "bayescomp", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )
