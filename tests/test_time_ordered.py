"""Time-ordered designs: detection, the AR(1) posterior, its coverage and the dispatch."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.core.exceptions import TimeOrderedDesignWarning
from bayescomp.posterior.time_ordered import TimeOrderedResult, _components, time_ordered_test
from bayescomp.splits.design import is_time_ordered

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import time_ordered_coverage as bench


def test_detection():
    from sklearn.model_selection import KFold, RepeatedKFold, TimeSeriesSplit

    X = np.zeros((60, 1))
    assert is_time_ordered(TimeSeriesSplit(5, gap=2).split(X))
    rolling = [(np.arange(i, i + 20), np.arange(i + 20, i + 25)) for i in range(0, 35, 5)]
    assert is_time_ordered(rolling)  # a custom rolling-origin (sliding) window
    assert not is_time_ordered(KFold(5).split(X))
    assert not is_time_ordered(RepeatedKFold(n_splits=3, n_repeats=2, random_state=0).split(X))
    leaky = [(np.array([0, 1, 5]), np.array([3, 4])), (np.arange(4), np.array([4, 5]))]
    assert not is_time_ordered(leaky)  # one training row (5) after a test row


def _ar1_cov(phi: float, n: int) -> np.ndarray:
    i = np.arange(n)
    return phi ** np.abs(i[:, None] - i[None, :]) / (1 - phi**2)


def test_components_match_dense_gls_and_likelihood():
    """Per cell of phi: the GLS mean and its scale (statsmodels GLS) and the marginal
    likelihood of phi (dense linear algebra) equal the tridiagonal closed form."""
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    z = rng.standard_normal(12)
    z = (z - z.mean()) / z.std()
    phi, logw, loc, scale = _components(z, (1.0, 1.0), 40)  # flat prior: mass equal
    n = len(z)
    ref = []
    for k in (0, 7, 20, 33, 39):
        R = _ar1_cov(phi[k], n)
        fit = sm.GLS(z, np.ones(n), sigma=R).fit()
        assert loc[k] == pytest.approx(fit.params[0], rel=1e-9, abs=1e-12)
        assert scale[k] == pytest.approx(fit.bse[0], rel=1e-9)
        Ri = np.linalg.inv(R)
        a = np.ones(n) @ Ri @ np.ones(n)
        r = z - fit.params[0]
        ref.append(
            -0.5 * np.linalg.slogdet(R)[1] - 0.5 * np.log(a) - 0.5 * (n - 1) * np.log(r @ Ri @ r)
        )
    got = logw[[0, 7, 20, 33, 39]]
    np.testing.assert_allclose(got - got[0], np.array(ref) - ref[0], rtol=1e-9, atol=1e-9)


def test_region_probabilities_and_interval():
    rng = np.random.default_rng(1)
    d = 0.01 + 0.01 * rng.standard_normal(15)
    res = time_ordered_test(np.zeros(15), d, rope=0.005, metric="auc")
    assert isinstance(res, TimeOrderedResult)
    assert res.p_left + res.p_rope + res.p_right == pytest.approx(1.0)
    draws = res.sample(200_000, random_state=0)  # Monte Carlo from the mixture
    assert res.p_right == pytest.approx(np.mean(draws > 0.005), abs=0.005)
    assert res.p_better == pytest.approx(np.mean(draws > 0), abs=0.005)
    lo, hi = res.interval(0.9)
    assert np.mean((draws >= lo) & (draws <= hi)) == pytest.approx(0.9, abs=0.005)
    assert res.decision(0.95).outcome in ("promote", "inconclusive", "equivalent", "worse")
    row = res.summary().iloc[0]
    assert row["p_right"] == pytest.approx(res.p_right) and -1 < row["phi"] < 1
    # losses: the same differences negated give the mirrored answer
    neg = time_ordered_test(np.zeros(15), -d, rope=0.005, higher_is_better=False)
    assert neg.p_right == pytest.approx(res.p_right)


def test_refusals():
    with pytest.raises(ValueError, match="at least 3 test windows"):
        time_ordered_test([0.1, 0.2], [0.2, 0.3])
    with pytest.raises(ValueError, match="NaN"):
        time_ordered_test(np.zeros(5), [0.1, np.nan, 0.2, 0.1, 0.0])
    with pytest.warns(bc.core.exceptions.ZeroVarianceWarning):
        res = time_ordered_test(np.zeros(6), np.full(6, 0.02), rope=0.01)
    assert res.p_right == 1.0


def test_coverage_small_version():
    """The bench's seeded simulation, smaller: per cell the 95 % interval must not
    under-cover beyond a binomial tolerance of 93 %, and pooled over the 8 cells it must
    lie in 93–97 % within 3 standard errors; the equicorrelated t-test fails the same
    check at phi = 0.8."""
    reps = 300
    cov = bench.coverage_table(reps, seed=11, kinds=("time_ordered", "ttest_rho"))
    se_cell = np.sqrt(0.93 * 0.07 / reps)
    ours = {k[1:]: v for k, v in cov.items() if k[0] == "time_ordered"}
    for cell, c in ours.items():
        assert c >= 0.93 - 3 * se_cell, (cell, c)
    pooled = np.mean(list(ours.values()))
    se_pooled = np.sqrt(0.95 * 0.05 / (reps * len(ours)))
    assert 0.93 - 3 * se_pooled <= pooled <= 0.97 + 3 * se_pooled, pooled
    old = cov[("ttest_rho", 10, 0.8)]
    assert old < 0.93 - 3 * se_cell  # what bayescomp did before: far too narrow


def test_cross_validate_paired_and_compare_dispatch():
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold, TimeSeriesSplit

    rng = np.random.default_rng(0)
    X = rng.standard_normal((240, 3))
    y = X @ [1.0, 0.5, 0.0] + rng.standard_normal(240)
    models = {"mean": DummyRegressor(), "ridge": Ridge()}
    s = bc.cross_validate_paired(models, X, y, cv=TimeSeriesSplit(10), scoring="r2", progress=False)
    assert s.to_frame()["time_ordered"].all()
    res = bc.compare(s, "mean", "ridge", metric="r2", rope=0.01)
    assert isinstance(res, TimeOrderedResult) and res.n == 10
    assert res.decision().outcome == "promote"
    with pytest.warns(TimeOrderedDesignWarning, match="time-ordered"):
        bc.compare(s, "mean", "ridge", metric="r2", rope=0.01, method="ttest")
    # the flag survives a CSV round trip
    s2 = bc.Scores.read_csv(_roundtrip(s))
    assert isinstance(bc.compare(s2, "mean", "ridge", metric="r2"), TimeOrderedResult)
    k = bc.cross_validate_paired(models, X, y, cv=KFold(5), scoring="r2", progress=False)
    assert "time_ordered" not in k.to_frame().columns
    with warnings.catch_warnings():
        warnings.simplefilter("error", TimeOrderedDesignWarning)
        assert not isinstance(bc.compare(k, "mean", "ridge", metric="r2"), TimeOrderedResult)


def _roundtrip(s):
    import tempfile

    path = Path(tempfile.mkdtemp()) / "scores.csv"
    s.to_csv(path)
    return path


def test_select_on_time_ordered_design():
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import TimeSeriesSplit

    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.standard_normal((200, 2)), columns=["a", "b"])
    y = X["a"] * 2 + rng.standard_normal(200)
    sel = bc.select_models(
        {"mean": DummyRegressor(), "ridge": Ridge()},
        X,
        y,
        baseline="mean",
        scoring="r2",
        rope=0.01,
        cv=TimeSeriesSplit(8),
        progress=False,
    )
    assert isinstance(sel.results[0], TimeOrderedResult)
    assert sel.champion == "ridge"
