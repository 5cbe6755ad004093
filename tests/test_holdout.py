"""One test set, item-level paired predictions: every number against an independent computation."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import f1_score, roc_auc_score

import bayescomp as bc
from bayescomp.core.exceptions import ZeroVarianceWarning
from bayescomp.core.protocols import Posterior
from bayescomp.core.rule import decide
from bayescomp.posterior import holdout_draws as hd
from bayescomp.posterior.holdout import holdout_posterior
from bayescomp.posterior.holdout_frequentist import cluster_robust_se, delong, mcnemar

BENCH = Path(__file__).resolve().parents[1] / "bench" / "test_set_coverage.py"


def _binary(n: int, seed: int = 0, acc=(0.80, 0.86)):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < acc[0], y, 1 - y)
    b = np.where(rng.random(n) < acc[1], y, 1 - y)
    return y, a, b


# ----------------------------------------------------------------- Dirichlet–multinomial
def test_dirichlet_multinomial_matches_closed_form_moments():
    y, a, b = _binary(400)
    res = holdout_posterior(y, a, b, metric="accuracy", draws=200_000, prior=1.0, random_state=0)
    assert res.method == "dirichlet_multinomial"
    c = res.counts
    assert sum(c.values()) == 400
    assert c["only_baseline"] == int(np.sum((a == y) & (b != y)))
    alpha = np.array(
        [c["only_baseline"], c["only_candidate"], c["both"] + c["neither"]]
    ) + np.array([1.0, 1.0, 2.0])
    a0 = alpha.sum()
    mean = (alpha[1] - alpha[0]) / a0
    var = (alpha[0] * (a0 - alpha[0]) + alpha[1] * (a0 - alpha[1]) + 2 * alpha[0] * alpha[1]) / (
        a0**2 * (a0 + 1)
    )
    assert res.expected_gain == pytest.approx(mean, abs=4 * np.sqrt(var / 200_000))
    assert res.sd**2 == pytest.approx(var, rel=0.02)
    assert res.estimate == pytest.approx(np.mean(b == y) - np.mean(a == y))


def test_error_rate_is_oriented_like_accuracy():
    y, a, b = _binary(300, seed=3)
    acc = holdout_posterior(y, a, b, metric="accuracy", random_state=1)
    err = holdout_posterior(y, a, b, metric="error_rate", random_state=1)
    assert not err.higher_is_better
    # an item only the baseline gets wrong is an item only the candidate gets right
    assert err.counts["only_baseline"] == acc.counts["only_candidate"]
    assert err.estimate == pytest.approx(acc.estimate, abs=1e-12)
    assert err.expected_gain == pytest.approx(acc.expected_gain, abs=4 * acc.sd / np.sqrt(4000))
    assert err.summary()["difference"].iloc[0] == "baseline - candidate"


def test_decision_is_the_one_rule_and_the_protocol_holds():
    y, a, b = _binary(1500, seed=2)
    res = bc.holdout_posterior(y, a, b, rope=0.01, random_state=0)
    assert isinstance(res, Posterior)
    d = res.decision(0.9)
    ref = decide(
        res.p_left,
        res.p_rope,
        res.p_right,
        gamma=0.9,
        expected_gain=res.expected_gain,
        risk=res.p_worse,
        rope=0.01,
        baseline="baseline",
        candidate="candidate",
    )
    assert d == ref
    assert res.p_left + res.p_rope + res.p_right == pytest.approx(1.0)
    assert res.p_right == pytest.approx(np.mean(res.draws > 0.01))
    lo, hi = res.hdi(0.95)
    assert np.mean((res.draws >= lo) & (res.draws <= hi)) == pytest.approx(0.95, abs=1e-3)
    assert hi - lo <= np.subtract(*res.interval(0.95)[::-1]) + 1e-12
    row = res.to_dict()
    assert row["decision"] == res.decision().outcome and row["mcnemar_only_baseline"] >= 0
    assert "holdout" not in repr(res).lower() or "HoldoutResult" in repr(res)


def test_undecided_test_set_asks_for_items_or_clusters_not_repetitions():
    y, a, b = _binary(100, seed=0, acc=(0.80, 0.82))
    res = bc.holdout_posterior(y, a, b, rope=0.01, random_state=0)
    reason = res.decision().reason
    assert res.decision().outcome == "inconclusive"
    assert "score more items than these 100" in reason and "plan_test_set" in reason
    assert "repetitions" not in reason
    res_c = bc.holdout_posterior(y, a, b, rope=0.01, cluster=np.arange(100) // 5, random_state=0)
    reason = res_c.decision().reason
    assert "score more clusters than these 20" in reason and "repetitions" not in reason
    # the rule itself keeps its cross-validation wording by default
    plain = decide(0.3, 0.4, 0.3, expected_gain=0.0, risk=0.5, rope=0.01)
    assert "collect more repetitions" in plain.reason


# ------------------------------------------------------------------- Bayesian bootstrap
def test_bayesian_bootstrap_mean_has_rubins_moments():
    rng = np.random.default_rng(4)
    d = rng.gamma(2.0, 1.0, 300)
    x = hd.bayesian_bootstrap_mean(d, 100_000, np.random.default_rng(0), small_sample=False)
    # Dirichlet(1,...,1) weights: E = mean(d), Var = population var / (n + 1)
    assert x.mean() == pytest.approx(d.mean(), abs=4 * d.std() / np.sqrt(301 * 100_000))
    assert x.var() == pytest.approx(d.var() / 301, rel=0.02)


def test_student_scale_turns_normal_draws_into_the_t_posterior():
    """Normal draws of Rubin's variance population var / (k + 1) become exactly
    mean + s / sqrt(k) * t_{k-1} (the normal model's posterior under the Jeffreys prior)."""
    rng = np.random.default_rng(11)
    d = rng.normal(0.3, 2.0, 12)
    k, m, s = d.size, d.mean(), d.std(ddof=1)
    x = m + rng.standard_normal(200_000) * d.std() / np.sqrt(k + 1)
    y = hd.student_scale(x, m, k, np.random.default_rng(12))
    ks = stats.kstest((y - m) / (s / np.sqrt(k)), stats.t(k - 1).cdf)
    assert ks.pvalue > 0.001
    for q in (0.025, 0.975):
        assert np.quantile(y, q) == pytest.approx(
            m + stats.t.ppf(q, k - 1) * s / np.sqrt(k), abs=0.02 * s
        )
    # the plain bootstrap's interval is the normal one of the smaller variance
    assert np.std(x) < np.std(y)


def test_small_sample_bootstrap_covers_like_the_t_interval():
    """20 normal items: the scaled Bayesian bootstrap covers 95 % within binomial error;
    Rubin's plain one covers about 92 % (variance (n-1)/(n+1) of s^2/n, normal tails)."""
    rng = np.random.default_rng(13)
    reps, n = 1500, 20
    hits, hits_plain = 0, 0
    for _ in range(reps):
        d = rng.normal(0.0, 1.0, n)
        for small, out in ((True, "s"), (False, "p")):
            lo, hi = np.quantile(hd.bayesian_bootstrap_mean(d, 1000, rng, small), [0.025, 0.975])
            if out == "s":
                hits += lo <= 0 <= hi
            else:
                hits_plain += lo <= 0 <= hi
    tol = 3 * np.sqrt(0.95 * 0.05 / reps)
    assert abs(hits / reps - 0.95) < tol
    plain = 2 * stats.t.cdf(1.96 * np.sqrt((n - 1) / (n + 1)), n - 1) - 1  # about 0.926
    assert abs(hits_plain / reps - plain) < 3 * np.sqrt(plain * (1 - plain) / reps)
    assert hits_plain < hits


def test_blocked_bootstrap_agrees_with_the_exact_one():
    rng = np.random.default_rng(5)
    d = rng.lognormal(0, 1.5, 10_000) - 0.9 * rng.lognormal(0, 1, 10_000)  # skewed
    exact = np.concatenate(
        [(g @ d) / g.sum(axis=1) for g in hd._weight_chunks(d.size, 2000, np.random.default_rng(1))]
    )
    blocked = hd._blocked_mean(d, 20_000, np.random.default_rng(2))
    assert blocked.var() == pytest.approx(d.var() / (d.size + 1), rel=0.03)
    assert stats.skew(blocked) == pytest.approx(stats.skew(exact), abs=0.15)
    se = exact.std()
    for q in (0.025, 0.5, 0.975):
        assert np.quantile(blocked, q) == pytest.approx(np.quantile(exact, q), abs=0.12 * se)


def test_weighted_metrics_equal_sklearn_with_sample_weight():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 200).astype(bool)
    s = y + rng.normal(0, 1, 200)
    lab = (s > 0.5).astype(float)
    w = rng.standard_exponential((3, 200))
    auc = hd.weighted_metric("roc_auc")(y, s, w)
    f1 = hd.weighted_metric("f1")(y, lab, w)
    for i in range(3):
        assert auc[i] == pytest.approx(roc_auc_score(y, s, sample_weight=w[i]), abs=1e-12)
        assert f1[i] == pytest.approx(f1_score(y, lab, sample_weight=w[i]), abs=1e-12)


def test_log_loss_per_item_mean_equals_sklearn():
    from sklearn.metrics import log_loss

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 500)
    p1 = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.15, 500), 0.01, 0.99)
    p2 = np.clip(0.5 + 0.4 * (y - 0.5) + rng.normal(0, 0.15, 500), 0.01, 0.99)
    res = holdout_posterior(y, p1, p2, metric="log_loss", random_state=0)
    assert res.baseline_score == pytest.approx(log_loss(y, p1), rel=1e-12)
    assert res.candidate_score == pytest.approx(log_loss(y, p2), rel=1e-12)
    assert res.method == "bayesian_bootstrap" and not res.higher_is_better
    assert res.estimate == pytest.approx(log_loss(y, p1) - log_loss(y, p2))


# ------------------------------------------------------------------------- companions
@pytest.mark.parametrize(("b", "c"), [(3, 12), (0, 5), (10, 10), (40, 61), (1, 0), (7, 30)])
def test_mcnemar_equals_statsmodels(b, c):
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    table = [[50, b], [c, 20]]
    r = mcnemar(b, c)
    assert r.pvalue_exact == pytest.approx(sm_mcnemar(table, exact=True).pvalue, abs=1e-10)
    chi = sm_mcnemar(table, exact=False, correction=True)
    assert r.statistic_chi2 == pytest.approx(chi.statistic, abs=1e-10)
    assert r.pvalue_chi2 == pytest.approx(chi.pvalue, abs=1e-10)
    # mid-p: the exact p-value less the probability of the observed count (Fagerland 2013)
    k, n = min(b, c), b + c
    expect = stats.binomtest(k, n, 0.5).pvalue - stats.binom.pmf(k, n, 0.5) if b != c else 1.0
    assert r.pvalue_midp == pytest.approx(expect, abs=1e-10)


def _delong_quadratic(y, s1, s2):
    """DeLong et al. (1988) from the definition: psi over every (positive, negative) pair."""
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    m, n = pos.size, neg.size
    v10, v01 = [], []
    for s in (s1, s2):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    s10, s01 = np.cov(v10), np.cov(v01)
    var = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m + (s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]) / n
    return v10[0].mean(), v10[1].mean(), np.sqrt(var)


def test_delong_equals_the_quadratic_definition():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 300).astype(bool)
    s1 = np.round(y + rng.normal(0, 1.2, 300), 1)  # ties
    s2 = np.round(y + rng.normal(0, 0.9, 300), 1)
    a1, a2, se = _delong_quadratic(y, s1, s2)
    r = delong(y, s1, s2)
    assert r.auc_baseline == pytest.approx(a1, abs=1e-8)
    assert r.auc_candidate == pytest.approx(a2, abs=1e-8)
    assert r.auc_candidate == pytest.approx(roc_auc_score(y, s2), abs=1e-12)
    assert r.standard_error == pytest.approx(se, abs=1e-8)
    assert r.pvalue == pytest.approx(2 * stats.norm.sf(abs((a2 - a1) / se)), abs=1e-8)


def _clustered_auc_data(rng, g, m=5):
    """Items in clusters: the class mix, a shared offset of both models' scores and the
    candidate's edge all vary by cluster."""
    cl = np.repeat(np.arange(g), m)
    y = rng.random(g * m) < (0.2 + 0.6 * rng.random(g))[cl]
    edge = (0.3 + 0.9 * rng.standard_normal(g))[cl]
    u = rng.standard_normal(g * m)
    b = y * 1.0 + 0.7 * rng.standard_normal(g)[cl] + u
    c = y * (1.0 + edge) + 0.7 * rng.standard_normal(g)[cl] + u + 0.5 * rng.standard_normal(g * m)
    return y, b, c, cl


def test_clustered_delong_one_item_per_cluster_is_the_classic_one():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 300).astype(bool)
    s1 = np.round(y + rng.normal(0, 1.2, 300), 1)
    s2 = np.round(y + rng.normal(0, 0.9, 300), 1)
    _, _, se = _delong_quadratic(y, s1, s2)
    r = delong(y, s1, s2, cluster=rng.permutation(300))
    assert r.standard_error == pytest.approx(se, abs=1e-12)
    assert r.standard_error == pytest.approx(delong(y, s1, s2).standard_error, rel=1e-12)


def test_clustered_delong_matches_a_cluster_bootstrap():
    """Obuchowski's clustered DeLong SE against an independent cluster bootstrap (whole
    clusters drawn with replacement, AUCs by the Mann-Whitney rank-sum formula); the
    classic, cluster-blind DeLong SE is far smaller on the same data."""
    rng = np.random.default_rng(21)
    y, b, c, cl = _clustered_auc_data(rng, 200)
    members = np.argsort(cl, kind="stable").reshape(200, 5)

    def auc(yy, s):  # rows of resampled items
        n1 = yy.sum(axis=-1)
        ranks = stats.rankdata(s, axis=-1)
        return ((ranks * yy).sum(axis=-1) - n1 * (n1 + 1) / 2) / (n1 * (yy.shape[-1] - n1))

    idx = members[rng.integers(0, 200, (2000, 200))].reshape(2000, -1)
    boot = auc(y[idx], c[idx]) - auc(y[idx], b[idx])
    r = delong(y, b, c, cluster=cl)
    assert r.difference == pytest.approx(auc(y, c) - auc(y, b), abs=1e-12)
    # the bootstrap SD has a Monte Carlo error of about 2 %
    assert r.standard_error == pytest.approx(np.std(boot, ddof=1), rel=0.1)
    assert delong(y, b, c).standard_error < 0.85 * r.standard_error


def test_auc_with_clusters_reports_the_clustered_delong():
    rng = np.random.default_rng(22)
    y, b, c, cl = _clustered_auc_data(rng, 60)
    res = holdout_posterior(y, b, c, metric="roc_auc", cluster=cl, draws=500, random_state=0)
    ref = delong(y, b, c, cluster=cl)
    assert res.frequentist["delong"].standard_error == pytest.approx(ref.standard_error)
    assert ref.standard_error > delong(y, b, c).standard_error
    with pytest.raises(ValueError, match="one per item"):
        delong(y, b, c, cluster=cl[:-1])
    with pytest.raises(ValueError, match="at least 2"):
        delong(y, b, c, cluster=np.where(y, 0, 1 + np.arange(y.size) % 3))


def test_cluster_robust_se_equals_statsmodels():
    import statsmodels.api as sm

    rng = np.random.default_rng(9)
    cluster = rng.integers(0, 40, 500)
    d = rng.normal(0, 1, 40)[cluster] + rng.normal(0.1, 1, 500)
    fit = sm.OLS(d, np.ones((500, 1))).fit(cov_type="cluster", cov_kwds={"groups": cluster})
    assert cluster_robust_se(d, cluster) == pytest.approx(float(fit.bse[0]), abs=1e-8)
    plain = sm.OLS(d, np.ones((500, 1))).fit()
    assert cluster_robust_se(d) == pytest.approx(float(plain.bse[0]), abs=1e-8)


def test_auc_comparison_reports_delong_and_a_bootstrap_close_to_it():
    rng = np.random.default_rng(10)
    y = rng.integers(0, 2, 1500)
    s1, s2 = y + rng.normal(0, 1.3, 1500), y + rng.normal(0, 1.0, 1500)
    res = holdout_posterior(y, s1, s2, metric="roc_auc", draws=2000, random_state=0)
    dl = res.frequentist["delong"]
    assert res.estimate == pytest.approx(dl.difference, abs=1e-12)
    assert res.sd == pytest.approx(dl.standard_error, rel=0.12)  # two routes to one spread


# ------------------------------------------------------------ clusters, repeated samples
def test_cluster_design_effect_is_close_to_kish():
    rng = np.random.default_rng(11)
    g, m, icc = 400, 10, 0.3
    cluster = np.repeat(np.arange(g), m)
    d = np.sqrt(icc) * rng.normal(size=g)[cluster] + np.sqrt(1 - icc) * rng.normal(size=g * m)
    res = holdout_posterior(
        None,
        np.zeros_like(d),
        d,
        metric=None,
        higher_is_better=True,
        cluster=cluster,
        draws=4000,
        random_state=0,
    )
    assert res.method == "cluster_bayesian_bootstrap" and res.n_clusters == g
    assert res.design_effect == pytest.approx(1 + (m - 1) * icc, rel=0.2)
    se = res.frequentist["standard_error"]
    assert res.sd == pytest.approx(se, rel=0.1)
    one = holdout_posterior(
        None,
        np.zeros_like(d),
        d,
        metric=None,
        higher_is_better=True,
        cluster=np.arange(d.size),
        draws=4000,
        random_state=0,
    )
    assert one.design_effect == pytest.approx(1.0, rel=0.1)


def test_repeated_samples_average_within_item_and_report_the_share():
    rng = np.random.default_rng(12)
    items, k = 200, 5
    item = np.repeat(np.arange(items), k)
    y = np.repeat(rng.integers(0, 2, items), k)
    a = np.where(rng.random(items * k) < 0.7, y, 1 - y)
    b = np.where(rng.random(items * k) < 0.75, y, 1 - y)
    res = holdout_posterior(y, a, b, metric="accuracy", item=item, random_state=0)
    frame = pd.DataFrame({"item": item, "d": (b == y).astype(float) - (a == y)})
    per_item = frame.groupby("item")["d"].mean()
    within = ((frame["d"] - frame.groupby("item")["d"].transform("mean")) ** 2).sum()
    assert res.within_item_share == pytest.approx(
        within / ((frame["d"] - frame["d"].mean()) ** 2).sum(), rel=1e-12
    )
    assert res.n_items == items and res.n_rows == items * k
    assert res.method == "bayesian_bootstrap"  # per-item shares are not 0/1
    assert res.estimate == pytest.approx(per_item.mean(), rel=1e-12)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"y_true": [0, 1, 1], "baseline": [0, 1], "candidate": [1, 1, 0]},
            "one prediction per row",
        ),
        ({"y_true": [0, 1], "baseline": [0, 1, 1], "candidate": [1, 1, 0]}, "y_true has 2 rows"),
        ({"y_true": [0, np.nan, 1], "baseline": [0, 1, 1], "candidate": [1, 1, 0]}, "missing"),
        (
            {"y_true": [0, 1, 1], "baseline": [0, 1, 1], "candidate": [1, 1, 0], "metric": "rmse"},
            "neither a mean",
        ),
        (
            {
                "y_true": [0, 1, 1],
                "baseline": [0, 2, 1],
                "candidate": [1, 1, 0],
                "metric": "log_loss",
            },
            "probabilities",
        ),
        (
            {
                "y_true": [0, 1, 1],
                "baseline": [0.2, 0.7, 0.9],
                "candidate": [0.3, 0.8, 0.4],
                "metric": "f1",
            },
            "threshold=",
        ),
        (
            {
                "y_true": [0, 1, 1, 0],
                "baseline": [0, 1, 1, 0],
                "candidate": [1, 1, 0, 0],
                "cluster": [1, 1, 1, 1],
            },
            "at least 2 clusters",
        ),
        (
            {
                "y_true": [0, 1, 1, 0],
                "baseline": [0, 1, 1, 0],
                "candidate": [1, 1, 0, 0],
                "cluster": [1, 2, 1, 2],
                "item": [0, 0, 1, 1],
            },
            "cluster differs",
        ),
        (
            {
                "y_true": None,
                "baseline": [0.1, np.nan],
                "candidate": [0.2, 0.3],
                "metric": None,
                "higher_is_better": True,
            },
            "NaN",
        ),
        (
            {
                "y_true": [1, 1, 1],
                "baseline": [0.2, 0.7, 0.9],
                "candidate": [0.3, 0.8, 0.4],
                "metric": "roc_auc",
            },
            "both classes",
        ),
    ],
)
def test_bad_input_raises_with_what_to_do(kwargs, match):
    with pytest.raises(ValueError, match=match):
        holdout_posterior(**kwargs)


def test_identical_models_warn_zero_variance():
    a = np.random.default_rng(0).gamma(2.0, 1.0, 100)
    with pytest.warns(ZeroVarianceWarning, match="point mass"):
        res = holdout_posterior(None, a, a.copy(), metric="mse")
    assert res.p_rope == 1.0


# ----------------------------------------------------------------------- plots, planning
def test_plots_draw_the_posterior_and_the_design_effect():
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(13)
    cluster = np.repeat(np.arange(60), 10)
    d = 0.05 + 0.5 * rng.normal(size=60)[cluster] + rng.normal(size=600)
    res = holdout_posterior(
        None,
        np.zeros(600),
        d,
        metric=None,
        higher_is_better=True,
        rope=0.05,
        cluster=cluster,
        random_state=0,
    )
    ax = res.plot()
    assert "P(candidate better beyond the ROPE) =" in ax.get_title()
    ax2 = res.plot_design_effect()
    assert f"design effect {res.design_effect:.2f}" in ax2.get_title()
    assert "<" in res._repr_html_()


def test_plan_matches_simulated_decisions():
    """At the planned size, the share of simulated test sets decided 'promote' is the power."""
    plan = bc.plan_test_set(0.04, rope=0.01, gamma=0.9, power=0.8, discordant=0.16)
    cells = np.array([0.70, 0.06, 0.10, 0.14])  # only-candidate − only-baseline = 0.04
    rng = np.random.default_rng(14)
    reps, wins = 300, 0
    for _ in range(reps):
        cell = rng.choice(4, size=plan.n_items, p=cells)
        b, c = np.isin(cell, (0, 1)).astype(float), np.isin(cell, (0, 2)).astype(float)
        res = holdout_posterior(
            None, b, c, metric="accuracy", rope=0.01, draws=1000, random_state=rng
        )
        wins += res.decision(0.9).outcome == "promote"
    tol = 3 * np.sqrt(0.8 * 0.2 / reps)
    assert wins / reps == pytest.approx(0.8, abs=tol + 0.02)
    assert plan.power_at(plan.n_items) >= 0.8 > plan.power_at(plan.n_items - 30)


def test_plan_from_a_clustered_pilot_uses_its_design_effect():
    rng = np.random.default_rng(15)
    cluster = np.repeat(np.arange(100), 10)
    d = 0.1 + np.sqrt(0.3) * rng.normal(size=100)[cluster] + np.sqrt(0.7) * rng.normal(size=1000)
    pilot = holdout_posterior(
        None, np.zeros(1000), d, metric=None, higher_is_better=True, cluster=cluster, random_state=0
    )
    plan = bc.plan_test_set(0.1, pilot=pilot)
    assert plan.design_effect == pytest.approx(pilot.design_effect)
    assert plan.items_per_cluster == 10 and plan.n_clusters * 10 == plan.n_items
    flat = bc.plan_test_set(0.1, sd=plan.sd)
    assert plan.n_items == pytest.approx(flat.n_items * plan.design_effect, rel=0.01)
    with pytest.raises(ValueError, match="exactly one of"):
        bc.plan_test_set(0.1, sd=1.0, discordant=0.2)
    with pytest.raises(ValueError, match="exceed the rope"):
        bc.plan_test_set(0.01, rope=0.02, sd=1.0)


# ---------------------------------------------------------------------- coverage (small)
def _bench():
    spec = importlib.util.spec_from_file_location("test_set_coverage", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_coverage_bench_small_binary_and_clusters():
    """bench/test_set_coverage.py, few repetitions: 95% intervals cover within binomial error,
    and the cluster-blind interval falls far below."""
    bench = _bench()
    reps = 300
    tol = 3 * np.sqrt(0.95 * 0.05 / reps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        cov, _ = bench.coverage(bench.binary_set, bench.TRUE_BINARY, 200, reps, 0, 1000, "accuracy")
        cov_c, blind = bench.coverage(
            bench.cluster_set, bench.TRUE_CLUSTER, 600, reps, 1, 500, None, blind=True
        )
    assert abs(cov - 0.95) < tol
    assert abs(cov_c - 0.95) < tol
    assert blind < 0.85


def test_coverage_bench_small_the_two_small_sample_cells():
    """The bench's per-item losses on 50 items and binary outcomes in 50 clusters of 10
    (the cells Rubin's plain bootstrap left at 92 %): in the band within binomial error."""
    bench = _bench()
    truth = bench._true_cluster_binary(np.random.default_rng(10_000))
    reps = 500
    tol = 3 * np.sqrt(0.95 * 0.05 / reps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        cov_l, _ = bench.coverage(bench.loss_set, bench.TRUE_LOSS, 50, reps, 3, 1000, "mse")
        cov_b, blind = bench.coverage(
            bench.cluster_binary_set, truth, 500, reps, 8, 1000, "accuracy", blind=True
        )
    assert abs(cov_l - 0.95) < tol
    assert abs(cov_b - 0.95) < tol
    assert blind < 0.85


def test_missing_predictions_name_only_the_columns_that_have_them():
    """A predictions table with gaps in one model's column: the error names that column and
    how many rows, not y_true or the other model."""
    t = pd.DataFrame({"y_true": [0, 1] * 10, "a": [0, 1] * 10, "b": [1.0, 1.0] * 10})
    t.loc[[2, 4, 6], "b"] = np.nan
    with pytest.raises(ValueError, match=r"^missing values in column 'b' \(3 rows\); drop") as e:
        bc.compare(t, "a", "b", rope=0.01)
    assert "y_true" not in str(e.value) and "'a'" not in str(e.value)


@pytest.mark.parametrize(
    "bad",
    [
        {"power": "x"},
        {"power": 1.0},
        {"icc": 2},
        {"items_per_cluster": 0},
        {"design_effect": -1.0},
        {"sd": float("nan")},
        {"difference": "0.03"},
    ],
)
def test_plan_test_set_refuses_a_bad_number_in_one_line(bad):
    """Every number of the plan is checked at its door: text, NaN and out-of-range values
    are refused with the argument's name (text raised a raw TypeError before)."""
    kw = {"difference": 0.03, "rope": 0.01, "sd": 0.5} | bad
    name = next(iter(bad))
    with pytest.raises(ValueError, match=f"^{name} must") as e:
        bc.plan_test_set(**kw)
    assert "\n" not in str(e.value)
