"""Issue 28 on one test set: wrong numbers and silent acceptances of the predictions path
(``holdout_posterior``, ``compare`` on a predictions table, ``select --predictions``,
``plan_test_set``), each checked against an independent computation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

import bayescomp as bc
from bayescomp.posterior.holdout import holdout_posterior
from bayescomp.studies.select_predictions import select_predictions

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "bayescomp", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def probs() -> pd.DataFrame:
    """Predicted probabilities of class 1 (no label values among them), 0/1 truth."""
    rng = np.random.default_rng(0)
    n = 1000
    y = rng.integers(0, 2, n)
    old = np.where(y == 1, rng.beta(5, 2, n), rng.beta(2, 5, n))
    new = np.where(y == 1, rng.beta(6, 2, n), rng.beta(2, 6, n))
    return pd.DataFrame({"y_true": y, "old": old, "new": new})


# -- item 1: a label metric on probabilities -------------------------------------------------


@pytest.mark.parametrize("metric", ["accuracy", "error_rate"])
def test_label_metric_refuses_probabilities(probs, metric):
    y, old, new = probs["y_true"], probs["old"], probs["new"]
    with pytest.raises(ValueError, match=r"look like probabilities.*threshold=0\.5.*roc_auc"):
        holdout_posterior(y, old, new, metric=metric)
    with pytest.raises(ValueError, match="look like probabilities"):
        bc.compare(probs, "old", "new", rope=0.005, metric=metric)
    with pytest.raises(ValueError, match="look like probabilities"):
        select_predictions(probs, baseline="old", rope=0.005, metric=metric)


def test_label_metric_with_threshold_equals_sklearn(probs):
    y, old, new = probs["y_true"].to_numpy(), probs["old"], probs["new"]
    res = holdout_posterior(y, old, new, metric="accuracy", threshold=0.5, random_state=0)
    assert res.baseline_score == pytest.approx(accuracy_score(y, old >= 0.5))
    assert res.candidate_score == pytest.approx(accuracy_score(y, new >= 0.5))
    assert 0.8 < res.baseline_score < 0.95  # the case of the issue: not 0.2 or 0
    via_compare = bc.compare(probs, "old", "new", rope=0.005, threshold=0.5, random_state=0)
    assert via_compare.candidate_score == pytest.approx(accuracy_score(y, new >= 0.5))
    sel = select_predictions(probs, baseline="old", rope=0.005, threshold=0.5)
    means = sel.candidates.set_index("model")["mean"]
    assert means["new"] == pytest.approx(accuracy_score(y, new >= 0.5))


def test_threshold_refused_where_it_would_be_ignored(probs):
    with pytest.raises(ValueError, match="drop it"):
        holdout_posterior(
            probs["y_true"], probs["old"], probs["new"], metric="log_loss", threshold=0.5
        )


def test_cli_label_metric_on_probabilities(probs, tmp_path):
    probs.to_csv(tmp_path / "probs.csv", index=False)
    base = ["--predictions", "probs.csv", "--baseline", "old", "--rope", "0.005"]
    for command in (["compare", *base, "--candidate", "new"], ["select", *base]):
        out = _run(*command, cwd=tmp_path)
        assert out.returncode == 2, out.stdout
        assert "look like probabilities" in out.stderr
        assert "--threshold 0.5" in out.stderr and "threshold=" not in out.stderr
    out = _run("compare", *base, "--candidate", "new", "--threshold", "0.5", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    want = accuracy_score(probs["y_true"], probs["old"] >= 0.5)
    assert f"(accuracy: {want:.4f})" in out.stdout
