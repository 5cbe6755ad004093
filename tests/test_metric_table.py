"""metric_table: published confusion-matrix values, scikit-learn formulas, shared resamples."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import bayescomp as bc


def _slide_example(scale=1):
    # lecture slides (seed 002): TP 90, FN 210, FP 140, TN 9560
    tp, fn, fp, tn = np.array([90, 210, 140, 9560]) // scale
    y = np.r_[np.ones(tp + fn, int), np.zeros(fp + tn, int)]
    pred = np.r_[np.ones(tp, int), np.zeros(fn, int), np.ones(fp, int), np.zeros(tn, int)]
    return y, pred


def test_published_values_without_intervals():
    y, pred = _slide_example()
    t = bc.metric_table(y, pred, interval=False)
    e = t["estimate"]
    assert e["precision (PPV)"] == pytest.approx(0.3913, abs=5e-5)
    assert e["recall (TPR, sensitivity)"] == pytest.approx(0.30)
    assert e["specificity (TNR)"] == pytest.approx(0.9856, abs=5e-5)
    assert e["accuracy"] == pytest.approx(0.965)
    assert e["error_rate"] == pytest.approx(0.035)
    assert e["f1"] == pytest.approx(skm.f1_score(y, pred))
    assert e["f_beta (beta=2)"] == pytest.approx(skm.fbeta_score(y, pred, beta=2))
    assert t["higher_is_better"].tolist() == [True, False, True, True, True, True, True]
    assert t["low"].isna().all()


def test_intervals_share_resamples_with_bootstrap_metric():
    y, pred = _slide_example(scale=20)
    t = bc.metric_table(y, pred, n_resamples=200, random_state=4)
    one = bc.bootstrap_metric(
        y, pred, "accuracy", method="percentile", n_resamples=200, random_state=4
    )
    assert (t.loc["accuracy", "low"], t.loc["accuracy", "high"]) == pytest.approx(
        (one.low, one.high)
    )
    f1 = bc.bootstrap_metric(y, pred, "f1", method="percentile", n_resamples=200, random_state=4)
    assert t.loc["f1", "high"] == pytest.approx(f1.high)
    assert (t["low"] <= t["estimate"]).all() and (t["estimate"] <= t["high"]).all()
    assert t.attrs["n"] == y.size and t.attrs["method"] == "percentile"


def test_scores_add_auc_and_average_precision():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 150)
    s = y + rng.normal(0, 1, 150)
    t = bc.metric_table(y, (s > 0.5).astype(int), y_score=s, n_resamples=100, random_state=0)
    assert t.loc["roc_auc", "estimate"] == pytest.approx(skm.roc_auc_score(y, s))
    assert t.loc["average_precision", "estimate"] == pytest.approx(
        skm.average_precision_score(y, s)
    )


def test_regression_metrics():
    rng = np.random.default_rng(1)
    y = rng.normal(size=200)
    pred = y + rng.normal(0, 0.5, 200)
    t = bc.metric_table(y, pred, n_resamples=300, random_state=0)
    assert list(t.index) == ["r2", "mse", "rmse", "mae"]
    assert t.loc["r2", "estimate"] == pytest.approx(skm.r2_score(y, pred))
    assert t.loc["rmse", "estimate"] == pytest.approx(np.sqrt(skm.mean_squared_error(y, pred)))
    assert t.loc["mae", "estimate"] == pytest.approx(skm.mean_absolute_error(y, pred))
    # same resamples: the rmse bound is (up to quantile interpolation) the root of the mse bound
    assert t.loc["rmse", "low"] ** 2 == pytest.approx(t.loc["mse", "low"], rel=1e-4)
    assert t.loc["mse", "higher_is_better"] is np.False_ or not t.loc["mse", "higher_is_better"]


def test_multiclass_macro_average_and_no_specificity():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    pred = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    t = bc.metric_table(y, pred, interval=False)
    assert "specificity (TNR)" not in t.index
    assert t.loc["f1", "estimate"] == pytest.approx(skm.f1_score(y, pred, average="macro"))


def test_undefined_metric_gets_a_note_not_a_silent_nan():
    y = np.array([0, 0, 1, 1, 0, 1, 0, 0, 1, 0])
    pred = np.zeros(10, int)
    t = bc.metric_table(y, pred, n_resamples=100, random_state=0)
    assert "undefined" in t.loc["precision (PPV)", "note"]
    assert np.isnan(t.loc["precision (PPV)", "estimate"])


def test_bad_input():
    with pytest.raises(ValueError, match="empty"):
        bc.metric_table([], [])
    with pytest.raises(ValueError, match="y_score"):
        bc.metric_table([0, 1, 1, 0], [0, 1, 0, 0], metrics=["roc_auc"])
    with pytest.raises(ValueError, match="task"):
        bc.metric_table([0, 1], [0, 1], task="ranking")


def test_forest_plot():
    from bayescomp.report.metric_plots import plot_metric_table

    y, pred = _slide_example(scale=20)
    ax = plot_metric_table(bc.metric_table(y, pred, n_resamples=100, random_state=0))
    assert len(ax.get_yticklabels()) == 7


def test_registry_orients_every_metric_of_the_table():
    from bayescomp.core.orientation import higher_is_better

    for name in (
        "accuracy",
        "recall",
        "specificity",
        "tnr",
        "ppv",
        "npv",
        "f2",
        "f0.5",
        "precision_at_k_unlabeled",
        "f1_at_k",
        "roc_auc",
        "r2",
    ):
        assert higher_is_better(name) is True, name
    for name in ("error_rate", "mse", "rmse", "mae", "fpr"):
        assert higher_is_better(name) is False, name
    assert bc.bootstrap_metric.__module__ == "bayescomp.metrics.bootstrap"


def test_two_negatives_specificity_row_is_a_note_not_a_crash():
    """Resamples without a negative used to crash the whole table ('needs binary labels')."""
    y = np.r_[np.ones(28, int), np.zeros(2, int)]
    p = y.copy()
    p[0] = 0
    t = bc.metric_table(y, p, n_resamples=200, random_state=0)
    row = t.loc["specificity (TNR)"]
    assert row["estimate"] == skm.recall_score(y, p, pos_label=0) == 1.0
    assert np.isnan(row["low"]) and np.isnan(row["high"])
    assert row["note"].startswith(
        "metric 'specificity' was undefined on 22 of 200 bootstrap resamples"
    )
    assert t.loc["recall (TPR, sensitivity)", "estimate"] == pytest.approx(27 / 28)
