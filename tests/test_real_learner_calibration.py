"""A small seeded version of ``bench/real_learner_calibration.py``: real learners, real
cross-validation, the truth from a held-out population."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import real_learner_calibration as bench


def test_intervals_are_the_correlated_ttest_written_out():
    """The bench's ``ttest`` is Nadeau–Bengio's t at rho = n_test / n (scipy, by hand) and
    ``row_variance`` the same formula with s² = k · (per-row variance) / n."""
    data = bench.one_dataset("nb/logreg", "easy", 100, 5, 2, seed=3)
    base, cand = (np.asarray(x) for x in data["accuracy"])
    d = cand - base
    assert data["rho"] == pytest.approx(0.2)
    got = bench.intervals({**data, "n": 100}, "accuracy", 5)
    scale = np.sqrt(d.var(ddof=1) * (1 / 10 + 0.2 / 0.8))
    assert got["ttest"][0] == pytest.approx(d.mean()) and got["ttest"][1] == pytest.approx(scale)
    assert got["ttest_rho0"][1] == pytest.approx(d.std(ddof=1) / np.sqrt(10))
    row = np.sqrt(5 * data["row_var"] / 100 * (1 / 10 + 0.2 / 0.8))
    assert got["row_variance"][1] == pytest.approx(row)
    assert data["row_mean_var"] <= data["row_var"] + 1e-12  # averaging first cancels
    row = np.sqrt(5 * data["row_mean_var"] / 100 * (1 / 10 + 0.2 / 0.8))
    assert got["row_mean_variance"][1] == pytest.approx(row)
    # each row is predicted once per repetition: the per-split accuracy differences are the
    # means of the per-row differences, so their overall mean is the rows' mean difference
    assert 0 <= data["row_var"] <= 1
    assert "row_variance" not in bench.intervals({**data, "n": 100}, "roc_auc", 5)


@pytest.mark.slow
def test_correlated_ttest_covers_the_cv_estimand_on_real_learners(tmp_path):
    """20 data sets of 200 rows, naive Bayes vs logistic regression, 10 × 2 CV: the
    corrected interval covers the CV truth about 95 % of the time (binomial tolerance: at
    least 0.95 − 3 se), the uncorrected one (rho = 0) clearly less often."""
    ck = bench.Checkpoint(str(tmp_path / "ck.json"))
    res = ck.cell("nb/logreg", "hard", 200, 10, 2, 20, 20, 7)
    se = np.sqrt(0.05 * 0.95 / 20)
    for metric in ("accuracy", "roc_auc"):
        corrected, naive = res[f"{metric}|ttest"], res[f"{metric}|ttest_rho0"]
        assert corrected["cover_cv"] >= 0.95 - 3 * se
        assert naive["width"] < corrected["width"]
        assert naive["cover_cv"] <= corrected["cover_cv"]
        # the variance ratio of 20 data sets: an F-like spread around the truth
        lo, hi = stats.chi2.ppf([0.001, 0.999], 19) / 19
        assert lo / 2 < corrected["var_ratio"] < hi * 2
    # resumable: the checkpoint answers the same cell without recomputing it
    again = bench.Checkpoint(str(tmp_path / "ck.json"))
    assert again.cells and again.cell("nb/logreg", "hard", 200, 10, 2, 20, 20, 7) == res
