"""A small seeded version of ``bench/real_learner_calibration.py``: real learners, real
cross-validation, the truth from a held-out population."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import real_learner_calibration as bench

import bayescomp as bc
from bayescomp.posterior.repetitions import decisive_rates


def test_placements_average_to_the_roc_auc_of_each_class():
    """DeLong's placements (ties count a half): their mean over the positives, and over the
    negatives, is scikit-learn's ROC AUC."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 60)
    score = np.round(rng.normal(y * 0.7, 1.0), 1)  # rounded: ties
    v = bench._placements(score, y)
    auc = roc_auc_score(y, score)
    assert v[y == 1].mean() == pytest.approx(auc) and v[y == 0].mean() == pytest.approx(auc)


def test_split_variance_is_the_packages_correlated_ttest():
    """The bench's ``split`` posterior is :func:`bayescomp.correlated_ttest` at
    rho = n_test / n."""
    n = 120
    rec = bench.one_dataset("easy", "nb/logreg", n, 0, folds=3, repeats=2)
    assert rec["folds"] == 3 and len(rec["acc"]) == 6 and sum(rec["n_test"]) == 2 * n
    d = np.asarray(rec["acc"])
    res = bc.correlated_ttest(np.zeros(6), d, rho=1 / 3)
    mean, scale, df = bench.posterior(rec, "acc", n, "split")
    assert (mean, scale, df) == (pytest.approx(res.mean), pytest.approx(res.scale), 5)
    assert scale == pytest.approx(np.sqrt(d.var(ddof=1) * (1 / 6 + 0.5)))
    # averaging a row's differences over repetitions first can only cancel
    assert rec["acc_row_cum"][1] <= max(rec["acc_row_each"]) + 1e-12


def _record(e: np.ndarray, folds: int) -> dict:
    """A bench record of per-row accuracy differences ``e`` (repetitions × rows): a random
    partition into ``folds`` test folds per repetition, no fits."""
    repeats, n = e.shape
    rng = np.random.default_rng(0)
    acc = [
        e[r, f].mean() for r in range(repeats) for f in np.array_split(rng.permutation(n), folds)
    ]
    cum = np.cumsum(e, axis=0) / np.arange(1, repeats + 1)[:, None]
    return {
        "folds": folds,
        "acc": acc,
        "n_test": [n // folds] * (folds * repeats),
        "acc_row_cum": cum.var(axis=1, ddof=1).tolist(),
        "acc_row_each": e.var(axis=1, ddof=1).tolist(),
    }


def test_rows_variance_tells_persistent_differences_from_partition_noise():
    """Flips that do not repeat over the repetitions are partition noise: ``rows`` keeps only
    the CV mean's partition variance (far below ``split``) and ``gated`` reads it; the same
    differences in every repetition are all persistent: ``rows`` is their row-sampling
    variance and ``gated`` falls back to ``split``; one repetition cannot tell them apart."""
    rng = np.random.default_rng(1)
    n, k, repeats = 2000, 10, 10
    flips = rng.choice([-1.0, 0.0, 1.0], p=[0.05, 0.9, 0.05], size=(repeats, n))
    v = bench.variances(_record(flips, k), "acc", n)
    assert v["gated"] == v["rows"] < v["split"] / 3
    means = flips.mean(axis=1)
    rho = 1 / k
    partition = means.var(ddof=1) / repeats / (1 / (k * repeats) + rho / (1 - rho))
    assert v["rows"] == pytest.approx(partition, rel=0.5)
    same = np.repeat(flips[:1], repeats, axis=0)
    v = bench.variances(_record(same, k), "acc", n)
    assert v["gated"] == v["split"]
    assert v["rows"] == pytest.approx(k * same[0].var(ddof=1) / n)
    one = bench.variances(_record(flips, k), "acc", n, repeats=1)
    assert one["gated"] == one["split"] and np.isnan(one["rows"])


@pytest.mark.slow
def test_split_variance_covers_the_cv_estimand_on_real_learners():
    """20 data sets of 200 rows, naive Bayes vs logistic regression, 10 × 2 CV, the CV
    truth from 20 training sets: the split variance covers it about 95 % of the time
    (binomial tolerance: at least 0.95 − 3 se); without nested records the nested variances
    are left out."""
    records = {
        ("truth", "easy", "nb/logreg", 200, 0): bench.truth_chunk(
            "easy", "nb/logreg", 200, 0, draws=20
        )
    }
    for i in range(20):
        rec = bench.one_dataset("easy", "nb/logreg", 200, i, repeats=2)
        records[("data", "easy", "nb/logreg", 200, i)] = {**rec, "cpu_s": 0.0}
    rows = bench.cell_table(records)
    # no nested records: the nested variances are missing, not zero
    assert {r["variance"] for r in rows} == set(bench.VARIANCES) - set(bench.NESTED_VARIANCES)
    # nested records for 5 of the 20 data sets: the nested variances on those 5, the others
    # on all 20 (or on the 5 with nested_only)
    for i in range(5):
        rec = bench.nested_dataset("easy", "nb/logreg", 200, i, repeats=2)
        records[("nested", "easy", "nb/logreg", 200, i)] = rec
    got = {(r["variance"], r["metric"]): r["datasets"] for r in bench.cell_table(records)}
    assert got == {(v, m): 5 if v in bench.NESTED_VARIANCES else 20 for v, m in got}
    assert len(got) == 2 * len(bench.VARIANCES)
    only = bench.cell_table(records, nested_only=True)
    assert {r["datasets"] for r in only} == {5}
    se = np.sqrt(0.05 * 0.95 / 20)
    lo, hi = stats.chi2.ppf([0.001, 0.999], 19) / 19
    for r in rows:
        assert r["datasets"] == 20
        if r["variance"] == "split":
            assert r["cover_cv"] >= 0.95 - 3 * se, r
            assert lo / 2 < r["var_ratio"] < hi * 2, r


def test_the_planner_at_the_pilots_own_size_is_its_decision():
    """The package's planner as the bench reads it (a batch of pilots): continued by no
    repetition, each pilot decides as it stands by :func:`bench._decided` (rates 0 or 1),
    and the three outcomes never overlap."""
    rng = np.random.default_rng(3)
    d = 0.01 + 0.02 * rng.standard_normal((40, 20))
    up, down, eq = decisive_rates(d, 10, 0.1, bench.ROPE, bench.GAMMA, [2, 10], draws=500)
    assert up.shape == (40, 2)
    assert np.array_equal(up[:, 0] + down[:, 0] + eq[:, 0], bench._decided(d, 0.1))
    assert np.all(up + down + eq <= 1 + 1e-12)


def test_nested_mse_of_fixed_predictors_is_the_sampling_variance(monkeypatch):
    """Two "learners" whose probabilities do not depend on the training rows: the CV of a
    data set of ``m`` rows is then the mean of its rows' differences, so the nested MSE (of
    a CV on the outer training rows, about the deployed difference, which is the population
    mean) has the expectation ``var(e) / m`` (accuracy) — exact, from the population — and,
    for AUC, the variance over independent data sets of the inner CV estimate.  200 seeded
    data sets of 200 rows, 5 folds, 2 repetitions: the mean estimate is within 4 se of
    both.  Without ``b`` subtracted it would be 5 × too large; the test fails if it is."""
    rng = np.random.default_rng(11)
    pool = 4000
    X = rng.standard_normal((pool, 2))
    y = (rng.random(pool) < 1 / (1 + np.exp(-1.5 * X[:, 0] - 0.5 * X[:, 1]))).astype(int)

    def fixed(pair, X_train, y_train, X_test):
        return 1 / (1 + np.exp(-X_test[:, 0])), 1 / (1 + np.exp(-X_test[:, 0] - X_test[:, 1]))

    monkeypatch.setattr(bench, "POOL", pool)
    monkeypatch.setattr(bench, "population", lambda name: (X, y))
    monkeypatch.setattr(bench, "_pair_probabilities", fixed)
    n, k, sets = 200, 5, 200
    recs = [
        bench.nested_dataset("synthetic", "fixed", n, i, folds=k, repeats=2) for i in range(sets)
    ]
    pb, pc = fixed(None, None, None, X)
    e = ((pc > 0.5) == y).astype(float) - ((pb > 0.5) == y)
    m = n - n // k
    for metric, truth in (
        ("acc", e.var() / m),
        ("auc", np.var([r["auc_inner"][0] for r in recs], ddof=1)),
    ):
        mse = np.array([bench.nested_mse(r, metric) for r in recs])
        se = mse.std(ddof=1) / np.sqrt(sets)
        if metric == "auc":  # the truth is itself estimated: its se from χ²(sets − 1)
            se = np.hypot(se, truth * np.sqrt(2 / (sets - 1)))
        assert abs(mse.mean() - truth) <= 4 * se, (metric, mse.mean(), truth, se)
        b = np.mean([np.mean(r[f"{metric}_b"]) for r in recs])
        assert b > 8 * se  # a missing b (+4 × the truth) would fail by 4 se at least


def test_nested_units_use_the_data_units_rows():
    """A nested unit draws the rows of the data unit of the same cell and index (its two
    lines of row drawing are a copy): the same class counts; its records are per outer fold
    and repetition; its fingerprint is not the data grid's."""
    rec = bench.one_dataset("easy", "nb/logreg", 120, 3, folds=3, repeats=1)
    nested = bench.nested_dataset("easy", "nb/logreg", 120, 3, folds=3, repeats=2)
    assert nested["n_pos"] == rec["n_pos"]
    assert all(
        len(nested[f"{m}_{p}"]) == 6 for m in ("acc", "auc") for p in ("inner", "outer", "b")
    )
    assert bench.nested_fingerprint() != bench.fingerprint()
    grid = bench.nested_grid()
    assert len(grid) == len(set(grid)) == sum(u[0] == "data" for u in bench.grid())
    assert grid[0][1:4] == bench.NESTED_FIRST[0]
