"""The closed-form correlated t-test against independent computations.

Reference values come from scipy applied to the published formula
(Benavoli et al. 2017; Nadeau & Bengio 2003), from a simulation with a known
mean, and — where installed — from the baycomp package itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayescomp as bc
from bayescomp.core.rule import Decision
from bayescomp.posterior.frequentist import nadeau_bengio_ttest
from bayescomp.posterior.ttest import (
    CorrelatedTTestResult,
    HeavyTailWarning,
    ZeroVarianceWarning,
)


def reference(baseline, candidate, rho, rope=0.0):
    """The posterior written out by hand with scipy: (dist, p_left, p_rope, p_right)."""
    d = np.asarray(candidate, float) - np.asarray(baseline, float)
    n = d.size
    s2 = np.sum((d - d.mean()) ** 2) / (n - 1)
    scale = np.sqrt(s2 * (1 / n + rho / (1 - rho)))
    dist = stats.t(df=n - 1, loc=d.mean(), scale=scale)
    p_left = dist.cdf(-rope)
    p_right = 1 - dist.cdf(rope)
    return dist, p_left, 1 - p_left - p_right, p_right


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(42)
    base = rng.normal(0.80, 0.03, 100)
    cand = base + rng.normal(0.006, 0.012, 100)
    return base, cand


# --------------------------------------------------------------- closed form
@pytest.mark.parametrize("rho", [0.0, 0.1, 0.2, 1 / 3])
@pytest.mark.parametrize("rope", [0.0, 0.005, 0.02])
def test_closed_form_matches_scipy_on_the_formula(pair, rho, rope):
    base, cand = pair
    res = bc.correlated_ttest(base, cand, rho=rho, rope=rope)
    dist, pl, pe, pr = reference(base, cand, rho, rope)
    assert res.df == 99 and res.n == 100
    assert res.mean == pytest.approx(dist.mean(), rel=1e-12)
    assert res.scale == pytest.approx(dist.std() / np.sqrt(99 / 97), rel=1e-12)
    assert res.p_left == pytest.approx(pl, abs=1e-12)
    assert res.p_rope == pytest.approx(pe, abs=1e-12)
    assert res.p_right == pytest.approx(pr, abs=1e-12)
    assert res.p_better == pytest.approx(dist.sf(0), abs=1e-12)
    assert res.p_worse == pytest.approx(dist.cdf(0), abs=1e-12)
    assert res.p_left + res.p_rope + res.p_right == pytest.approx(1.0)
    assert res.sd == pytest.approx(dist.std(), rel=1e-12)
    lo, hi = res.interval(0.9)
    assert (lo, hi) == pytest.approx(dist.interval(0.9), rel=1e-12)
    assert res.hdi(0.9) == pytest.approx((lo, hi))


def test_hand_worked_small_case():
    # d = (1, 2, 3, 4): mean 2.5, s^2 = 5/3; rho = 0.2 -> scale^2 = 5/3 * (1/4 + 1/4) = 5/6
    res = bc.correlated_ttest(np.zeros(4), [1.0, 2.0, 3.0, 4.0], rho=0.2)
    assert res.mean == 2.5 and res.df == 3
    assert res.scale == pytest.approx(np.sqrt(5 / 6), rel=1e-14)
    assert res.p_worse == pytest.approx(stats.t.cdf(-2.5 / np.sqrt(5 / 6), 3), rel=1e-12)


def test_rho_inflates_the_scale_exactly(pair):
    base, cand = pair
    r0 = bc.correlated_ttest(base, cand, rho=0.0)
    r1 = bc.correlated_ttest(base, cand, rho=0.1)
    # ratio of variances: (1/n + rho/(1-rho)) / (1/n) = 1 + n rho/(1-rho) = 1 + 100/9
    assert (r1.scale / r0.scale) ** 2 == pytest.approx(1 + 100 / 9, rel=1e-12)
    assert r1.mean == r0.mean


def test_agrees_with_baycomp_when_installed(pair):
    baycomp = pytest.importorskip("baycomp")
    base, cand = pair
    # baycomp corrects with 1/(k - 1) for k folds; 10 x 10-fold = rho 0.1
    pl, pe, pr = baycomp.two_on_single(base, cand, rope=0.005, runs=10)
    res = bc.correlated_ttest(base, cand, rho=0.1, rope=0.005)
    assert (res.p_left, res.p_rope, res.p_right) == pytest.approx((pl, pe, pr), abs=1e-10)


def test_agrees_with_baycomp_on_published_data(shared_data):
    baycomp = pytest.importorskip("baycomp")
    from baycomp_data import load_baycomp_accuracies

    scores = bc.Scores.from_frame(load_baycomp_accuracies(shared_data / "baycomp_accuracies.txt"))
    assert scores.rho(dataset="iris") == pytest.approx(0.1)
    for ds in ("iris", "wine", "sonar", "ionosphere"):
        res = bc.compare(scores, "nbc", "aode", metric="accuracy", rope=0.01, dataset=ds)
        p = scores.paired("nbc", "aode", "accuracy", ds)
        ref = baycomp.two_on_single(
            p["baseline"].to_numpy(), p["candidate"].to_numpy(), rope=0.01, runs=10
        )
        assert (res.p_left, res.p_rope, res.p_right) == pytest.approx(ref, abs=1e-10)


# ---------------------------------------------------------------- simulation
def _equicorrelated(rng, n_sim, n, rho, mu, sigma):
    """d_j = mu + sigma (sqrt(rho) z0 + sqrt(1-rho) z_j): pairwise correlation rho."""
    z0 = rng.standard_normal((n_sim, 1))
    z = rng.standard_normal((n_sim, n))
    return mu + sigma * (np.sqrt(rho) * z0 + np.sqrt(1 - rho) * z)


@pytest.mark.parametrize("true_rho,n", [(0.1, 100), (0.2, 30), (1 / 3, 15)])
def test_interval_coverage_simulation(true_rho, n):
    rng = np.random.default_rng(123)
    n_sim, mu = 4000, 0.013
    d = _equicorrelated(rng, n_sim, n, true_rho, mu, sigma=0.02)
    corrected = bc.correlated_ttest(np.zeros_like(d), d, rho=true_rho)
    naive = bc.correlated_ttest(np.zeros_like(d), d, rho=0.0)
    lo, hi = corrected.interval(0.95)
    cover = np.mean((lo <= mu) & (mu <= hi))
    lo0, hi0 = naive.interval(0.95)
    cover0 = np.mean((lo0 <= mu) & (mu <= hi0))
    # binomial s.e. at 4000 draws is 0.35 points; allow 2 points
    assert abs(cover - 0.95) < 0.02, cover
    # ignoring the correlation: the interval is far too narrow
    assert cover0 < 0.85, cover0
    # probability calibration: P(mu_hat side) behaves like a p-value -> uniform
    u = 1 - np.asarray(corrected._tail(mu, upper=True))  # P(posterior mu <= true mu)
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_coverage_on_real_repeated_kfold_with_known_mean():
    """Repeated 5-fold CV of a fixed rule on a finite population: the target is known.

    The 'models' are two fixed classifiers (no fitting), so the expected per-fold
    accuracy difference is exactly the population difference; the split
    correlation comes from the shared rows across repetitions.
    """
    from sklearn.model_selection import RepeatedKFold

    rng = np.random.default_rng(7)
    n_rows, n_sim = 200, 300
    covered = covered0 = 0
    for sim in range(n_sim):
        # a fresh population per simulation: per-row correctness of two models
        a = rng.random(n_rows) < 0.80
        b = rng.random(n_rows) < 0.83
        mu = 0.03  # expected difference of the data-generating process
        cv = RepeatedKFold(n_splits=5, n_repeats=10, random_state=sim)
        splits = [te for _, te in cv.split(np.zeros(n_rows))]
        acc_a = np.array([a[te].mean() for te in splits])
        acc_b = np.array([b[te].mean() for te in splits])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroVarianceWarning)
            lo, hi = bc.correlated_ttest(acc_a, acc_b, rho=0.2).interval(0.95)
            lo0, hi0 = bc.correlated_ttest(acc_a, acc_b, rho=0.0).interval(0.95)
        covered += lo <= mu <= hi
        covered0 += lo0 <= mu <= hi0
    # repeated folds of one sample re-use the same rows: naive coverage collapses
    # (about 45%), the corrected interval is close to nominal (s.e. 1.3 points)
    assert 0.91 < covered / n_sim < 0.99
    assert covered0 / n_sim < 0.6


# --------------------------------------------------------------- vectorising
def test_batch_2d_equals_loop():
    rng = np.random.default_rng(3)
    b = rng.normal(0.8, 0.02, (50, 30))
    c = b + rng.normal(0.002, 0.01, (50, 30))
    rho = rng.uniform(0.05, 0.3, 50)
    rope = rng.uniform(0, 0.01, 50)
    res = bc.correlated_ttest(b, c, rho=rho, rope=rope)
    assert np.shape(res.p_left) == (50,)
    for i in range(50):
        one = bc.correlated_ttest(b[i], c[i], rho=rho[i], rope=rope[i])
        for f in ("mean", "scale", "p_left", "p_rope", "p_right", "p_better", "sd"):
            assert getattr(res, f)[i] == pytest.approx(getattr(one, f), rel=1e-12, abs=1e-15)
        assert res.interval(0.9)[0][i] == pytest.approx(one.interval(0.9)[0], rel=1e-12)
        assert res.decisions(0.9)[i] == one.decision(0.9).outcome


def test_batch_3d_any_axis_equals_loop():
    rng = np.random.default_rng(4)
    b = rng.normal(0.7, 0.05, (4, 25, 3))  # splits on axis 1
    c = b + rng.normal(0.01, 0.02, (4, 25, 3))
    res = bc.correlated_ttest(b, c, rho=0.2, rope=0.01, axis=1)
    assert np.shape(res.p_right) == (4, 3) and res.n == 25
    for i in range(4):
        for k in range(3):
            one = bc.correlated_ttest(b[i, :, k], c[i, :, k], rho=0.2, rope=0.01)
            assert res.p_right[i, k] == pytest.approx(one.p_right, rel=1e-12)
            assert res.p_rope[i, k] == pytest.approx(one.p_rope, rel=1e-12, abs=1e-15)
    table = res.summary()
    assert len(table) == 12
    assert table["p_right"].to_numpy() == pytest.approx(np.ravel(res.p_right))
    draws = res.sample(200, random_state=0)
    assert draws.shape == (200, 4, 3)
    idata = res.to_inference_data(draws=50, random_state=0, chains=2)
    assert idata.posterior["mu"].shape == (2, 50, 12)
    with pytest.raises(ValueError, match="single comparison"):
        res.decision()
    with pytest.raises(ValueError, match="single comparison"):
        res.plot()


# ------------------------------------------------------------ goal p* and compare
def test_goal_p_star_via_array_and_compare():
    rng = np.random.default_rng(5)
    acc = np.clip(rng.normal(0.91, 0.015, 50), 0, 1)
    p_star = 0.9
    res = bc.correlated_ttest(np.full(50, p_star), acc, rho=0.1, rope=0.005)
    _, pl, pe, pr = reference(np.full(50, p_star), acc, 0.1, 0.005)
    assert res.mean == pytest.approx(acc.mean() - p_star)
    assert (res.p_left, res.p_rope, res.p_right) == pytest.approx((pl, pe, pr), abs=1e-12)
    # a scalar goal is accepted too
    scalar = bc.correlated_ttest(p_star, acc, rho=0.1, rope=0.005)
    assert scalar.p_right == pytest.approx(res.p_right, abs=1e-15)

    frame = pd.DataFrame(
        {"model": "forest", "split": np.arange(50), "n_train": 90, "n_test": 10, "accuracy": acc}
    )
    scores = bc.Scores.from_frame(frame)
    via_compare = bc.compare(scores, baseline=p_star, candidate="forest", rope=0.005)
    assert via_compare.p_right == pytest.approx(res.p_right, abs=1e-15)
    assert via_compare.rho == pytest.approx(0.1)
    assert "0.9" in via_compare.baseline_name


def test_goal_on_a_lower_is_better_metric():
    rng = np.random.default_rng(6)
    rmse = rng.normal(1.9, 0.05, 20)
    frame = pd.DataFrame(
        {"model": "m", "split": range(20), "n_train": 4, "n_test": 1, "rmse": rmse}
    )
    res = bc.compare(bc.Scores.from_frame(frame), baseline=2.0, candidate="m")
    # reaching the goal means rmse below 2.0: positive orientation
    assert res.mean == pytest.approx(2.0 - rmse.mean())
    assert res.p_better > 0.98


def test_compare_equals_direct_call_and_flips_lower_is_better():
    rng = np.random.default_rng(8)
    n = 30
    a = rng.normal(0.30, 0.02, n)
    b = a - rng.normal(0.01, 0.005, n)  # lower log loss: b is better
    frame = pd.DataFrame(
        {
            "model": ["a"] * n + ["b"] * n,
            "split": list(range(n)) * 2,
            "n_train": 80,
            "n_test": 20,
            "log_loss": np.r_[a, b],
        }
    )
    res = bc.compare(frame, "a", "b", metric="log_loss", rope=0.002)
    direct = bc.correlated_ttest(-a, -b, rho=0.2, rope=0.002)
    assert res.p_right == pytest.approx(direct.p_right) and res.p_right > 0.95
    assert res.mean > 0
    forced = bc.compare(frame, "a", "b", metric="log_loss", higher_is_better=True)
    assert forced.mean == pytest.approx(-res.mean)


# --------------------------------------------------------------- zero variance
def test_zero_variance_point_mass_with_warning():
    base = np.linspace(0.7, 0.9, 10)
    with pytest.warns(ZeroVarianceWarning, match="identical on every split"):
        res = bc.correlated_ttest(base, base + 0.02, rho=0.1, rope=0.01)
    assert res.scale == 0 and res.mean == pytest.approx(0.02)
    assert (res.p_left, res.p_rope, res.p_right) == (0.0, 0.0, 1.0)
    assert res.interval() == pytest.approx((0.02, 0.02))
    assert np.all(res.sample(10, random_state=0) == res.mean)
    d = res.decision()
    assert d.outcome == "promote" and "point mass" in d.reason
    with pytest.warns(ZeroVarianceWarning):
        same = bc.correlated_ttest(base, base, rho=0.1, rope=0.01)
    assert (same.p_left, same.p_rope, same.p_right) == (0.0, 1.0, 0.0)
    assert same.decision().outcome == "equivalent"


def test_zero_variance_in_part_of_a_batch():
    b = np.zeros((3, 5))
    c = np.array([[1.0] * 5, [0.0, 1, 2, 3, 4], [-1.0] * 5])
    with pytest.warns(ZeroVarianceWarning, match="2 of 3"):
        res = bc.correlated_ttest(b, c, rho=0.2)
    assert res.p_right[0] == 1.0 and res.p_left[2] == 1.0
    assert 0 < res.p_right[1] < 1
    assert np.all(np.isfinite(res.p_rope))


def test_two_splits_warn_heavy_tails():
    with pytest.warns(HeavyTailWarning):
        res = bc.correlated_ttest([0.8, 0.82], [0.83, 0.84], rho=0.5)
    assert res.df == 1 and res.sd == np.inf
    assert res.p_right == pytest.approx(stats.cauchy(res.mean, res.scale).sf(0))


# -------------------------------------------------------------- decision rule
def _result(mean, scale, rope, df=29):
    return CorrelatedTTestResult(
        mean=mean,
        scale=scale,
        df=df,
        rho=0.1,
        n=df + 1,
        rope=rope,
        baseline_name="lr",
        candidate_name="rf",
        metric="auc",
    )


@pytest.mark.parametrize(
    "mean,scale,rope,outcome",
    [
        (0.03, 0.005, 0.01, "promote"),
        (-0.03, 0.005, 0.01, "worse"),
        (0.001, 0.002, 0.01, "equivalent"),
        (0.01, 0.01, 0.01, "inconclusive"),
        (0.03, 0.005, 0.0, "promote"),
    ],
)
def test_decision_rule_cases(mean, scale, rope, outcome):
    res = _result(mean, scale, rope)
    d = res.decision(0.95)
    assert isinstance(d, Decision) and d.outcome == outcome
    assert d.expected_gain == pytest.approx(mean)
    assert d.risk == pytest.approx(stats.t.cdf(0, 29, loc=mean, scale=scale))
    assert (d.p_left, d.p_rope, d.p_right) == pytest.approx((res.p_left, res.p_rope, res.p_right))
    assert d.gamma == 0.95 and d.reason
    assert str(d).startswith(outcome)


def test_positive_gain_with_large_risk_is_visible():
    res = _result(0.004, 0.01, 0.0)
    d = res.decision(0.95)
    assert d.outcome == "inconclusive"
    assert d.expected_gain > 0 and 0.3 < d.risk < 0.4
    assert f"{d.risk:.3f}" in d.reason and "+0.004" in d.reason


def test_decision_threshold_is_inclusive_and_gamma_checked():
    # choose the scale so that P(mu > 0) is exactly 0.9
    scale = 0.01 / stats.t.ppf(0.9, 29)
    res = _result(0.01, scale, 0.0)
    assert res.p_right == pytest.approx(0.9, abs=1e-12)
    assert res.decision(0.9 - 1e-9).outcome == "promote"
    # exactly at gamma counts (>=), for each region
    kw = dict(gamma=0.9, expected_gain=0.0, risk=0.5)
    assert bc.decide(0.05, 0.05, 0.9, **kw).outcome == "promote"
    assert bc.decide(0.9, 0.05, 0.05, **kw).outcome == "worse"
    assert bc.decide(0.05, 0.9, 0.05, **kw).outcome == "equivalent"
    assert res.decision(0.95).outcome == "inconclusive"
    for bad in (0.5, 1.0, 0.2, 1.5):
        with pytest.raises(ValueError, match="gamma"):
            res.decision(bad)


def test_decide_untrusted_is_inconclusive():
    d = bc.decide(
        0.0, 0.0, 1.0, expected_gain=0.1, risk=0.0, trusted=False, untrusted_reason="r_hat 1.2"
    )
    assert d.outcome == "inconclusive" and "r_hat 1.2" in d.reason


# --------------------------------------------------------- Nadeau and Bengio
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_nadeau_bengio_rho0_is_scipy_paired_ttest(pair, alternative):
    base, cand = pair
    ref = stats.ttest_1samp(cand - base, 0.0, alternative=alternative)
    res = nadeau_bengio_ttest(base, cand, rho=0.0, alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    ci = res.confidence_interval(0.9)
    ref_ci = ref.confidence_interval(0.9)
    assert ci[0] == pytest.approx(ref_ci.low, rel=1e-12)
    assert ci[1] == pytest.approx(ref_ci.high, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("shift", [0.004, -0.004])
def test_nadeau_bengio_corrected_matches_scipy(alternative, shift):
    rng = np.random.default_rng(11)
    base = rng.normal(0.8, 0.03, 100)
    cand = base + rng.normal(shift, 0.01, 100)
    rho, n = 0.1, 100
    naive = stats.ttest_1samp(cand - base, 0.0, alternative=alternative)
    # correcting the variance divides t by sqrt(1 + n rho / (1 - rho))
    t_corr = naive.statistic / np.sqrt(1 + n * rho / (1 - rho))
    p_ref = {
        "two-sided": 2 * stats.t.sf(abs(t_corr), n - 1),
        "greater": stats.t.sf(t_corr, n - 1),
        "less": stats.t.cdf(t_corr, n - 1),
    }[alternative]
    res = nadeau_bengio_ttest(base, cand, rho=rho, alternative=alternative)
    assert res.statistic == pytest.approx(t_corr, rel=1e-12)
    assert res.pvalue == pytest.approx(p_ref, rel=1e-10)
    # the frequentist one-sided p-value is the Bayesian P(worse) under the flat prior
    bayes = bc.correlated_ttest(base, cand, rho=rho)
    if alternative == "greater":
        assert res.pvalue == pytest.approx(bayes.p_worse, rel=1e-10)


def test_nadeau_bengio_greater_when_candidate_is_worse():
    rng = np.random.default_rng(12)
    base = rng.normal(0.8, 0.02, 100)
    cand = base + rng.normal(-0.01, 0.01, 100)  # clearly worse
    res = nadeau_bengio_ttest(base, cand, rho=0.1, alternative="greater")
    assert res.statistic < 0 and res.pvalue > 0.5
    # the scikit-learn gallery's "right-tailed" p-value, t.sf(|t|), says the opposite
    gallery = stats.t.sf(np.abs(res.statistic), res.df)
    assert gallery < 0.5 and res.pvalue == pytest.approx(1 - gallery)
    less = nadeau_bengio_ttest(base, cand, rho=0.1, alternative="less")
    assert less.pvalue == pytest.approx(gallery)


def test_nadeau_bengio_bad_input():
    with pytest.raises(ValueError, match="alternative"):
        nadeau_bengio_ttest([0, 1], [1, 2], rho=0.1, alternative="bigger")
    with pytest.raises(ValueError, match="zero variance"):
        nadeau_bengio_ttest([0, 1, 2], [1, 2, 3], rho=0.1)
    with pytest.raises(ValueError, match="rho"):
        nadeau_bengio_ttest([0, 1, 2], [1, 2, 4], rho=1.0)


def test_nadeau_bengio_batch():
    rng = np.random.default_rng(13)
    d = rng.normal(0.01, 0.02, (20, 40))
    res = nadeau_bengio_ttest(np.zeros_like(d), d, rho=0.2, alternative="less")
    for i in (0, 7, 19):
        assert res.pvalue[i] == pytest.approx(
            nadeau_bengio_ttest(np.zeros(40), d[i], rho=0.2, alternative="less").pvalue
        )


# ------------------------------------------------- result methods and ArviZ
@pytest.fixture(scope="module")
def result(pair):
    base, cand = pair
    return bc.correlated_ttest(
        base,
        cand,
        rho=0.1,
        rope=0.003,
        baseline_name="logreg",
        candidate_name="forest",
        metric="roc_auc",
    )


def test_sample_moments(result):
    draws = result.sample(200_000, random_state=1)
    assert draws.shape == (200_000,)
    se = result.sd / np.sqrt(200_000)
    assert draws.mean() == pytest.approx(result.mean, abs=5 * se)
    assert draws.std() == pytest.approx(result.sd, rel=0.02)
    assert np.mean(draws > result.rope) == pytest.approx(result.p_right, abs=0.005)
    again = result.sample(10, random_state=1)
    assert np.array_equal(again, result.sample(10, random_state=1))


@pytest.mark.filterwarnings("ignore:Passing a dict or None as alias_mapping")  # ArviZ vs mpl
def test_to_inference_data_with_arviz(result):
    az = pytest.importorskip("arviz")
    from bayescomp.core.arviz_compat import arviz_major

    idata = result.to_inference_data(draws=5000, random_state=0)
    assert idata.posterior["mu"].shape == (4, 5000)
    if arviz_major() >= 1:  # ArviZ 1.x: DataTree, ci_prob, columns hdi95_lb / hdi95_ub
        summ = az.summary(idata, kind="stats", ci_prob=0.95, ci_kind="hdi", round_to="none")
        cols = ("hdi95_lb", "hdi95_ub")
    else:
        summ = az.summary(idata, kind="stats", hdi_prob=0.95)
        cols = ("hdi_2.5%", "hdi_97.5%")
    assert list(summ.index) == ["mu"]
    assert float(summ.loc["mu", "mean"]) == pytest.approx(result.mean, abs=0.1 * result.sd)
    assert float(summ.loc["mu", "sd"]) == pytest.approx(result.sd, rel=0.05)
    lo, hi = result.hdi(0.95)
    assert float(summ.loc["mu", cols[0]]) == pytest.approx(lo, abs=0.2 * result.sd)
    assert float(summ.loc["mu", cols[1]]) == pytest.approx(hi, abs=0.2 * result.sd)
    assert idata.attrs["candidate"] == "forest" and idata.attrs["rope"] == result.rope
    assert idata.posterior.attrs["candidate"] == "forest"
    if arviz_major() >= 1:
        pc = az.plot_dist(
            idata, var_names=["mu"], rope=(-result.rope, result.rope), backend="matplotlib"
        )
        assert pc.viz is not None
        return
    ax = az.plot_posterior(idata, var_names=["mu"], rope=(-result.rope, result.rope))
    ax = np.ravel(ax)[0]
    assert "mu" in ax.get_title()
    # ArviZ prints the ROPE mass; it must agree with the closed form to sampling error
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "%" in texts


def test_summary_columns(result):
    table = result.summary(confidence_level=0.9, gamma=0.9)
    assert list(table.columns) == [
        "baseline",
        "candidate",
        "metric",
        "baseline_score",
        "candidate_score",
        "difference",
        "mean",
        "sd",
        "hdi_90_low",
        "hdi_90_high",
        "rho",
        "n",
        "df",
        "rope",
        "p_left",
        "p_rope",
        "p_right",
        "p_better",
        "decision",
    ]
    row = table.iloc[0]
    assert len(table) == 1 and row["candidate"] == "forest" and row["metric"] == "roc_auc"
    assert row["difference"] == "forest - logreg"
    assert row["p_right"] == pytest.approx(result.p_right)
    assert row["hdi_90_low"] == pytest.approx(result.hdi(0.9)[0])
    assert row["decision"] == result.decision(0.9).outcome
    assert row["n"] == 100 and row["df"] == 99
    assert "forest - logreg" in repr(result)


def test_interval_level_checked(result):
    for bad in (0, 1, 1.5, -0.1):
        with pytest.raises(ValueError, match="level"):
            result.interval(bad)


def test_plot_returns_axes_and_saves(result, tmp_path):
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    ax = result.plot()
    assert isinstance(ax, Axes)
    title = ax.get_title()
    assert f"{result.p_right:.3f}" in title and f"{result.p_left:.3f}" in title
    assert "ROPE" in ax.get_xlabel()
    out = tmp_path / "posterior.png"
    ax.figure.savefig(out, dpi=80)
    assert out.stat().st_size > 5000
    _, given = plt.subplots()
    assert result.plot(ax=given) is given


def test_plot_point_mass():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        res = bc.correlated_ttest(np.arange(5.0), np.arange(5.0) + 0.01, rho=0.2, rope=0.005)
    ax = res.plot()
    assert any("point mass" in str(t.get_label()) for t in ax.get_lines())


def test_batch_equals_loop_property():
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    @settings(max_examples=40, deadline=None)
    @given(
        data=st.data(),
        batch=st.integers(1, 5),
        n=st.integers(3, 15),
        rho=st.floats(0, 0.5),
        rope=st.floats(0, 0.05),
    )
    def check(data, batch, n, rho, rope):
        elem = st.floats(0, 1, allow_subnormal=False)  # subnormals are refused (issue 23)
        b = data.draw(arrays(float, (batch, n), elements=elem))
        c = data.draw(arrays(float, (batch, n), elements=elem))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bc.correlated_ttest(b.T, c.T, rho=rho, rope=rope, axis=0)
            for i in range(batch):
                one = bc.correlated_ttest(b[i], c[i], rho=rho, rope=rope)
                for f in ("mean", "scale", "p_left", "p_rope", "p_right"):
                    assert np.asarray(getattr(res, f))[i] == pytest.approx(
                        getattr(one, f), rel=1e-9, abs=1e-12
                    )

    check()


def test_zero_variance_shortcut_equals_the_full_rounding_floor():
    """The shortcut computes max |score| only for rows that can be at rounding level; it
    must flag exactly the rows the full definition (16 eps x max |score|) flags."""
    from bayescomp.posterior.differences import corrected_scale, zero_variance

    rng = np.random.default_rng(11)
    bs, cs = [], []
    for scale in (1e-250, 1e-3, 1.0, 1e3, 1e250):
        b = rng.normal(0.8, 0.05, (6, 20)) * scale
        bs += [b, b, b]
        cs += [
            b + 0.01 * scale,  # a copy plus a constant
            b + rng.normal(0, 1e-17, (6, 20)) * scale,  # rounding-level noise
            b + rng.normal(0.01, 0.02, (6, 20)) * scale,
        ]  # a real difference
    b, c = np.concatenate(bs), np.concatenate(cs)
    _, sd, _ = corrected_scale(c - b, np.asarray(0.1))
    full = sd <= 16 * np.finfo(float).eps * np.maximum(np.abs(b).max(-1), np.abs(c).max(-1))
    got = zero_variance(sd, b, c)
    assert got.tolist() == full.tolist()
    assert got.sum() >= 30 and (~got).sum() >= 30  # both kinds are present
