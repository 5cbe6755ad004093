"""Bag of little bootstraps: coverage by simulation, agreement with the plain bootstrap and
with normal theory, Dask input, joblib backends, adaptive stopping and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import bayescomp as bc
from bayescomp.metrics.blb import BLBCenterWarning


def _accuracy_population(rng, n, acc=0.8):
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < acc, y, 1 - y)


def test_standard_error_matches_binomial_theory():
    y, pred = _accuracy_population(np.random.default_rng(0), 50_000)
    res = bc.blb_metric(y, pred, "accuracy", random_state=0)
    p = np.mean(y == pred)
    assert res.estimate == pytest.approx(p)
    assert res.standard_error == pytest.approx(np.sqrt(p * (1 - p) / y.size), rel=0.1)
    half = stats.norm.ppf(0.975) * np.sqrt(p * (1 - p) / y.size)
    assert res.width == pytest.approx(2 * half, rel=0.12)
    assert res.b == int(np.ceil(50_000**0.7))


def test_agrees_with_plain_bootstrap_on_auc():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 20_000)
    s = y + rng.normal(0, 1.5, 20_000)
    blb = bc.blb_metric(y, s, "roc_auc", random_state=0)
    boot = bc.bootstrap_metric(
        y, s, "roc_auc", method="percentile", n_resamples=500, random_state=0
    )
    assert blb.estimate == pytest.approx(boot.estimate)
    assert blb.width == pytest.approx(boot.width, rel=0.15)
    assert blb.standard_error == pytest.approx(boot.standard_error, rel=0.15)


def test_coverage_accuracy_known_population():
    hits, reps = 0, 120
    for i in range(reps):
        y, pred = _accuracy_population(np.random.default_rng(500 + i), 20_000)
        ci = bc.blb_metric(y, pred, "accuracy", n_subsets=10, n_resamples=60, random_state=i)
        hits += ci.low <= 0.8 <= ci.high
    assert 0.89 <= hits / reps <= 0.99, hits / reps


@pytest.mark.slow
def test_coverage_auc_binormal_slow():
    d = 1.0
    truth = stats.norm.cdf(d / np.sqrt(2))
    hits, reps = 0, 300
    for i in range(reps):
        rng = np.random.default_rng(9000 + i)
        y = rng.integers(0, 2, 50_000)
        s = rng.normal(0, 1, 50_000) + d * y
        ci = bc.blb_metric(y, s, "roc_auc", random_state=i)
        hits += ci.low <= truth <= ci.high
    assert 0.92 <= hits / reps <= 0.975, hits / reps


def test_generic_weighted_sklearn_metric_f1():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 8000)
    pred = np.where(rng.random(8000) < 0.75, y, 1 - y)
    res = bc.blb_metric(y, pred, "f1", n_subsets=6, n_resamples=40, adaptive=False, random_state=0)
    assert res.estimate == pytest.approx(f1_score(y, pred))
    assert res.n_subsets == 6 and res.n_resamples == 240 and res.converged
    assert res.low < res.estimate < res.high


def test_callable_metric_with_sample_weight():
    rng = np.random.default_rng(3)
    y = rng.normal(size=10_000)
    pred = y + rng.normal(0, 1, 10_000)

    def wmse(t, p, sample_weight=None):
        return float(np.average((t - p) ** 2, weights=sample_weight))

    res = bc.blb_metric(y, pred, wmse, random_state=0)
    # MSE of N(0,1) errors: SE = sqrt(Var(e^2)/n) = sqrt(2/n)
    assert res.standard_error == pytest.approx(np.sqrt(2 / 10_000), rel=0.15)


def test_adaptive_stops_before_the_maximum():
    y, pred = _accuracy_population(np.random.default_rng(4), 30_000)
    res = bc.blb_metric(y, pred, "accuracy", n_subsets=40, random_state=0)
    assert res.converged and res.n_subsets < 40
    assert res.history.shape == (res.n_subsets,)
    fixed = bc.blb_metric(
        y, pred, "accuracy", n_subsets=5, n_resamples=50, adaptive=False, random_state=0
    )
    assert fixed.n_subsets == 5 and (fixed.subsets["n_resamples"] == 50).all()


def test_basic_method_mirrors_percentile():
    y, pred = _accuracy_population(np.random.default_rng(5), 20_000)
    p = bc.blb_metric(y, pred, "accuracy", random_state=0)
    b = bc.blb_metric(y, pred, "accuracy", method="basic", random_state=0)
    assert b.estimate - b.low == pytest.approx(p.high - p.estimate)
    assert b.high - b.estimate == pytest.approx(p.estimate - p.low)


def test_dask_arrays_give_the_numpy_answer():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 30_000)
    s = y + rng.normal(0, 1.5, 30_000)
    ref = bc.blb_metric(y, s, "roc_auc", random_state=0)
    res = bc.blb_metric(
        da.from_array(y, chunks=7000), da.from_array(s, chunks=7000), "roc_auc", random_state=0
    )
    assert res.estimate == pytest.approx(ref.estimate, abs=1e-12)
    assert (res.low, res.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert res.estimate_source == "full"


def test_dask_without_streaming_path_widens_and_warns():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 20_000)
    pred = np.where(rng.random(20_000) < 0.8, y, 1 - y)
    ref = bc.blb_metric(y, pred, "f1", n_subsets=5, n_resamples=40, random_state=0)
    with pytest.warns(BLBCenterWarning):
        res = bc.blb_metric(
            da.from_array(y, chunks=5000),
            da.from_array(pred, chunks=5000),
            "f1",
            n_subsets=5,
            n_resamples=40,
            random_state=0,
        )
    assert res.estimate_source == "subsets" and res.width > ref.width
    with pytest.raises(ValueError, match="estimate='subsets'"):
        bc.blb_metric(
            da.from_array(y, chunks=5000), da.from_array(pred, chunks=5000), "f1", estimate="full"
        )


def test_joblib_backends_give_identical_results():
    from joblib import parallel_config

    y, pred = _accuracy_population(np.random.default_rng(8), 20_000)
    seq = bc.blb_metric(
        y, pred, "accuracy", n_subsets=4, n_resamples=40, adaptive=False, random_state=0
    )
    with parallel_config(backend="threading"):
        par = bc.blb_metric(
            y,
            pred,
            "accuracy",
            n_subsets=4,
            n_resamples=40,
            adaptive=False,
            random_state=0,
            n_jobs=2,
        )
    assert (par.low, par.high) == (seq.low, seq.high)


def test_adaptive_stopping_does_not_depend_on_n_jobs():
    """The stopping rule is applied one subset at a time, as on Spark: two subsets resampled
    at once stop at the same subset as one at a time (seeds 1 and 3 stop after an odd
    number of subsets, where a rule checked per batch of two went on to a sixth)."""
    from joblib import parallel_config

    y, pred = _accuracy_population(np.random.default_rng(4), 30_000)
    for seed in (1, 3):
        seq = bc.blb_metric(y, pred, "accuracy", n_subsets=40, random_state=seed)
        with parallel_config(backend="threading"):
            par = bc.blb_metric(y, pred, "accuracy", n_subsets=40, random_state=seed, n_jobs=2)
        assert seq.converged and par.n_subsets == seq.n_subsets == 5
        assert (par.low, par.high) == (seq.low, seq.high)
        np.testing.assert_array_equal(par.history, seq.history)


def test_given_estimate_is_used():
    y, pred = _accuracy_population(np.random.default_rng(9), 20_000)
    res = bc.blb_metric(y, pred, "accuracy", estimate=0.5, random_state=0)
    assert res.estimate == 0.5 and res.low < 0.5 < res.high and res.estimate_source == "given"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"subset_exponent": 0.3}, "subset_exponent"),
        ({"n_subsets": 1}, "n_subsets"),
        ({"method": "bca"}, "percentile"),
        ({"estimate": "mean"}, "estimate"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"n_resamples": 100.0}, "^n_resamples must be an integer >= 20"),
        ({"subset_exponent": "0.7"}, "^subset_exponent must lie in"),
        ({"tol": True}, "^tol must be a number > 0"),
    ],
)
def test_bad_arguments(kwargs, match):
    y, pred = _accuracy_population(np.random.default_rng(0), 2000)
    with pytest.raises(ValueError, match=match):
        bc.blb_metric(y, pred, "accuracy", **kwargs)


def test_nan_scores_and_small_data():
    y = np.r_[np.zeros(1000), np.ones(1000)]
    s = np.random.default_rng(0).random(2000)
    s[5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        bc.blb_metric(y, s, "roc_auc")
    idx = np.r_[10:110, 1000:1100]
    with pytest.warns(UserWarning, match="meant for large"):
        bc.blb_metric(y[idx], 3 * s[idx] + y[idx], "roc_auc", random_state=0)


def test_summary_and_plots():
    y, pred = _accuracy_population(np.random.default_rng(1), 20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = bc.blb_metric(y, pred, "accuracy", random_state=0)
    row = res.summary().iloc[0]
    assert row["b"] == res.b and row["method"] == "blb-percentile"
    assert res.plot().get_xlabel() == "accuracy"
    assert res.plot_convergence().get_xlabel() == "subsets processed"


def test_average_width_is_unbiased():
    """Per-subset quantiles are averaged, so they must be mean-unbiased: with numpy's default
    linear quantile of 100 resamples the interval came out ~5% too narrow."""
    widths = []
    for i in range(20):
        y, pred = _accuracy_population(np.random.default_rng(700 + i), 20_000)
        widths.append(bc.blb_metric(y, pred, "accuracy", random_state=i).width)
    theory = 2 * stats.norm.ppf(0.975) * np.sqrt(0.8 * 0.2 / 20_000)
    assert np.mean(widths) == pytest.approx(theory, rel=0.03)


def test_dask_threshold_matches_numpy():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 20_000)
    s = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.25, 20_000), 0, 1)
    ref = bc.blb_metric(y, s, "accuracy", threshold=0.5, random_state=0)
    res = bc.blb_metric(
        da.from_array(y, chunks=5000),
        da.from_array(s, chunks=5000),
        "accuracy",
        threshold=0.5,
        random_state=0,
    )
    assert res.estimate == pytest.approx(np.mean((s >= 0.5) == y))
    assert (res.low, res.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
