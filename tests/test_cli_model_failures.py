"""A model file whose ``fit`` raises is the user's model failing: one line naming the model
and exit 2 (it used to be 'internal error … please report it', exit 3); ``select`` with
``--on-error skip`` goes on without it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[1]
GOOD = (ROOT / "models" / "naive_bayes.py").read_text()
BAD = """
from sklearn.base import BaseEstimator, ClassifierMixin


class Boom(BaseEstimator, ClassifierMixin):
    def fit(self, X, y):
        raise {exc}("boom in fit")

    def predict(self, X):
        return X[:, 0] > 0


model = Boom()
"""


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd)


@pytest.mark.parametrize("exc", ["RuntimeError", "TypeError", "ZeroDivisionError"])
def test_compare_names_the_failing_model(tmp_path, exc):
    (tmp_path / "nb.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD.format(exc=exc))
    res = _run(
        [
            "compare",
            "nb.py",
            "bad.py",
            "--dataset",
            "breast_cancer",
            "--metric",
            "accuracy",
            "--rope",
            "0.01",
            "--n-splits",
            "2",
            "--n-repeats",
            "1",
        ],
        tmp_path,
    )
    assert res.returncode == 2, res.stderr
    assert "internal error" not in res.stderr
    assert f"model 'bad' failed on split 0: {exc}: boom in fit; fix the model file" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_select_skips_the_failing_model(tmp_path):
    (tmp_path / "nb.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD.format(exc="RuntimeError"))
    args = [
        "select",
        ".",
        "--dataset",
        "breast_cancer",
        "--baseline",
        "nb",
        "--metric",
        "accuracy",
        "--rope",
        "0.01",
        "--n-splits",
        "2",
        "--n-repeats",
        "2",
        "--quiet",
    ]
    res = _run([*args, "--on-error", "raise"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert "'bad'" in res.stderr and "boom in fit" in res.stderr
    assert "internal error" not in res.stderr
    res = _run([*args, "--on-error", "skip"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "bad" in res.stdout + res.stderr  # the skipped model is reported


@pytest.mark.parametrize("code", ["0", "3", "'bye'"])
def test_compare_refuses_a_model_file_that_exits_at_import(tmp_path, code):
    """``sys.exit(0)`` in a model file used to end ``compare --fail-unless promote`` with
    status 0 and no output: a CI gate passed without a comparison."""
    (tmp_path / "nb.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(f"import sys\nsys.exit({code})\n")
    res = _run(
        [
            *("compare", "nb.py", "bad.py", "--dataset", "breast_cancer", "--rope", "0.01"),
            *("--fail-unless", "promote"),
        ],
        tmp_path,
    )
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert res.stdout == ""
    assert res.stderr.startswith("bayescomp compare: error: bad.py: exits at import")
    assert len(res.stderr.strip().splitlines()) == 1
