"""Several metrics at once: the joint correlated-t posterior, guardrails and the cost rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayescomp as bc
from bayescomp.core.protocols import Posterior
from bayescomp.posterior.multivariate import multivariate_ttest
from bayescomp.splits.repeats import default_cv

N = 30


def _frame(seed: int = 1, n: int = N) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    common = rng.standard_normal(n)  # makes the metrics' differences correlated
    return pd.DataFrame(
        {
            "model": np.repeat(["a", "b", "c"], n),
            "split": np.tile(np.arange(n), 3),
            "roc_auc": np.r_[
                0.80 + 0.01 * rng.standard_normal(n),
                0.83 + 0.01 * rng.standard_normal(n) + 0.004 * common,
                0.86 + 0.01 * rng.standard_normal(n),
            ],
            "neg_log_loss": np.r_[
                -0.40 + 0.02 * rng.standard_normal(n),
                -0.40 + 0.02 * rng.standard_normal(n) + 0.01 * common,
                -0.50 + 0.02 * rng.standard_normal(n),
            ],
            "fit_time": np.r_[
                1.0 + 0.1 * rng.standard_normal(n),
                1.5 + 0.1 * rng.standard_normal(n),
                1.0 + 0.1 * rng.standard_normal(n),
            ],
        }
    )


@pytest.fixture(scope="module")
def scores() -> bc.Scores:
    return bc.Scores.from_frame(_frame(), test_fraction=0.1)


ROPES = {"roc_auc": 0.01, "neg_log_loss": 0.02, "fit_time": 0.6}
ROPES2 = {"roc_auc": 0.01, "neg_log_loss": 0.02}


def test_one_metric_is_exactly_the_univariate_ttest(scores):
    uni = bc.compare(scores, "a", "b", metric="roc_auc", rope=0.01)
    f = scores.to_frame()
    direct = bc.correlated_ttest(
        f.loc[f.model == "a", "roc_auc"].to_numpy(),
        f.loc[f.model == "b", "roc_auc"].to_numpy(),
        rho=0.1,
        rope=0.01,
        baseline_name="a",
        candidate_name="b",
    )
    multi = bc.compare(scores, "a", "b", metric=["roc_auc"], rope={"roc_auc": 0.01})
    for res in (uni, multi):
        assert (res.p_left, res.p_rope, res.p_right) == (
            direct.p_left,
            direct.p_rope,
            direct.p_right,
        )
        assert res.hdi(0.9) == direct.hdi(0.9)
        assert res.p_better == direct.p_better
    assert multi.p_joint == direct.p_right and multi.p_joint_se == 0.0
    d = multi.decision(0.95)
    assert (d.outcome, d.reason) == (direct.decision(0.95).outcome, direct.decision(0.95).reason)
    assert isinstance(multi, Posterior)


def test_every_marginal_is_its_univariate_ttest_and_orientation(scores):
    res = bc.compare(scores, "a", "b", metric=["roc_auc", "neg_log_loss", "fit_time"], rope=ROPES)
    assert res.directions == (True, True, False) and res.df == N - 1
    f = scores.to_frame()
    for m in res.metrics:
        uni = (
            bc.compare(scores, "a", "b", metric=m, rope=ROPES[m], higher_is_better=m != "fit_time")
            if m != "fit_time"
            else None
        )
        if uni is None:  # fit_time is bookkeeping in a table: check against the t-test directly
            uni = bc.correlated_ttest(
                f.loc[f.model == "a", m].to_numpy(),
                f.loc[f.model == "b", m].to_numpy(),
                rho=0.1,
                rope=ROPES[m],
                higher_is_better=False,
            )
        mar = res.marginal(m)
        assert mar.p_left == pytest.approx(uni.p_left, abs=1e-12)
        assert mar.p_right == pytest.approx(uni.p_right, abs=1e-12)
        assert mar.hdi() == pytest.approx(uni.hdi(), abs=1e-12)
    # fit_time is lower-is-better: its difference is baseline - candidate (b is slower)
    tb, ta = (f.loc[f.model == k, "fit_time"].mean() for k in "ba")
    assert res.marginal("fit_time").mean == pytest.approx(ta - tb)
    assert res.summary()["difference"].tolist() == ["b - a", "b - a", "a - b"]


def test_closed_form_against_normal_inverse_wishart_simulation(scores):
    """The multivariate t is the mu-marginal of the NIW posterior: sample Sigma from the
    inverse Wishart, then mu | Sigma from the normal, and compare."""
    metrics = ["roc_auc", "neg_log_loss", "fit_time"]
    for prior, nu0 in (("marginal", 2), ("jeffreys", 0)):
        res = bc.compare(
            scores,
            "a",
            "b",
            metric=metrics,
            rope=ROPES,
            prior=prior,
            draws=200_000,
            random_state=3,
        )
        d = res.differences
        n, p = d.shape
        centred = d - d.mean(axis=0)
        c = 1 / n + 0.1 / 0.9
        rng = np.random.default_rng(11)
        m = 200_000
        sigma = stats.invwishart(df=n - 1 + nu0, scale=centred.T @ centred).rvs(m, random_state=rng)
        chol = np.linalg.cholesky(sigma)
        mu = d.mean(axis=0) + np.sqrt(c) * np.einsum(
            "mij,mj->mi", chol, rng.standard_normal((m, p))
        )
        p_sim = float(np.mean(res.joint_event(mu)))
        se = math.sqrt(p_sim * (1 - p_sim) / m) + res.p_joint_se
        assert abs(res.p_joint - p_sim) < 4 * se, (prior, res.p_joint, p_sim)
        assert res.df == n - p + nu0
        # the marginal tail probabilities of the closed form match the simulation too
        for j in range(p):
            assert np.mean(mu[:, j] < -res.rope[j]) == pytest.approx(
                res.marginal(metrics[j]).p_left, abs=4e-3
            )


def test_joint_probability_against_genz_integration(scores):
    res = bc.compare(scores, "a", "b", metric=["roc_auc", "neg_log_loss"], rope=ROPES2)
    # P(mu1 > r1, mu2 >= -r2) = P(-mu1 < -r1, -mu2 <= r2): a CDF of -mu (Genz's QMC in scipy)
    dist = stats.multivariate_t(loc=-res.mean, shape=res.shape, df=res.df)
    exact = dist.cdf(np.array([-res.rope[0], res.rope[1]]), random_state=0, maxpts=2_000_000)
    assert res.p_joint == pytest.approx(exact, abs=4 * res.p_joint_se + 1e-3)
    assert res.p_joint < res.p_right  # the guardrail can only lower it


def test_seeded_and_reproducible(scores):
    kw = dict(metric=["roc_auc", "neg_log_loss"], rope=ROPES2)
    p0 = bc.compare(scores, "a", "b", **kw).p_joint
    assert bc.compare(scores, "a", "b", **kw).p_joint == p0
    assert bc.compare(scores, "a", "b", random_state=0, **kw).p_joint == p0
    assert bc.compare(scores, "a", "b", random_state=5, **kw).p_joint != p0


def _synthetic(mean: list[float], sd: list[float], n: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.asarray(mean) + rng.standard_normal((n, len(mean))) * np.asarray(sd)


def test_decision_rule_cases():
    rope = [0.01, 0.02]
    # clearly better, guardrail safe: promote
    d = multivariate_ttest(_synthetic([0.05, 0.0], [0.01, 0.005]), rho=0.1, rope=rope).decision()
    assert d.outcome == "promote" and d.p_joint >= 0.95
    # clearly better on the primary metric but the guardrail is clearly broken: worse
    res = multivariate_ttest(
        _synthetic([0.05, -0.1], [0.01, 0.01]), rho=0.1, rope=rope, metrics=["auc", "neg_ll"]
    )
    d = res.decision()
    assert res.p_right > 0.99 and d.outcome == "worse"
    assert d.reason.startswith("guardrail neg_ll broken") and d.p_right == res.p_right
    # better on the primary, guardrail uncertain: inconclusive, naming the weakest guardrail
    res = multivariate_ttest(
        _synthetic([0.05, -0.02], [0.01, 0.03]), rho=0.1, rope=rope, metrics=["auc", "neg_ll"]
    )
    d = res.decision()
    assert res.p_right >= 0.95 > res.p_joint and d.outcome == "inconclusive"
    assert "weakest guardrail neg_ll" in d.reason
    # primary equivalent, guardrail safe: equivalent; primary worse: worse
    assert (
        multivariate_ttest(_synthetic([0.0, 0.0], [0.005, 0.005]), rho=0.1, rope=rope)
        .decision()
        .outcome
        == "equivalent"
    )
    assert (
        multivariate_ttest(_synthetic([-0.05, 0.0], [0.01, 0.005]), rho=0.1, rope=rope)
        .decision()
        .outcome
        == "worse"
    )


def test_utility_against_hand_computation():
    # four splits, two metrics, rho = 0.25: every number below is done by hand
    d = np.array([[0.02, -1.0], [0.04, 1.0], [0.01, 0.0], [0.03, 0.0]])
    res = multivariate_ttest(
        d, rho=0.25, rope=[0.0, 0.0], metrics=["auc", "fit_time"], directions=[True, False]
    )
    # means 0.025 and 0; centred auc (-.005, .015, -.015, .005), fit_time (-1, 1, 0, 0):
    # scatter auc 0.0005, fit_time 2, cross 0.005 + 0.015 = 0.02
    # c = 1/4 + 0.25/0.75 = 7/12; df = 3; shape = c * scatter / 3
    u = res.utility({"auc": 1000.0, "fit_time": 10.0}, switching_cost=20.0)
    loc = 1000 * 0.025 + 10 * 0.0 - 20  # = 5
    var = (7 / 12) / 3 * (1000**2 * 0.0005 + 10**2 * 2 + 2 * 1000 * 10 * 0.02)  # 7/36 * 1100
    assert u.expected_utility == pytest.approx(loc)
    assert u.p_positive == pytest.approx(stats.t.sf(0, 3, loc, math.sqrt(var)))
    assert u.sd == pytest.approx(math.sqrt(var * 3))
    assert u.outcome == "switch"
    assert res.utility({"auc": 1000.0}, switching_cost=30.0).outcome == "stay"
    # reported beside the probability rule: the decision carries both
    res = multivariate_ttest(
        d,
        rho=0.25,
        rope=[0.0, 0.0],
        metrics=["auc", "fit_time"],
        gains={"auc": 1000.0, "fit_time": 10.0},
        switching_cost=20.0,
    )
    dec = res.decision(0.95)
    assert dec.outcome == "inconclusive" and dec.utility.outcome == "switch"
    assert dec.step_fields()["expected_utility"] == pytest.approx(5.0)


def test_select_with_guardrails(scores):
    # the per-step rule: guardrails decide each step (the family rule promotes one winner)
    plain = bc.select(scores, baseline="a", metric="roc_auc", rope=0.01, rule="champion_challenger")
    from bayescomp.decision.walk import SCORE_COLUMNS, STEP_COLUMNS

    # without guardrails: the plain steps table (with the two mean-score columns), no extras
    expected = STEP_COLUMNS[:3] + SCORE_COLUMNS + STEP_COLUMNS[3:] + ["rope"]  # its half-width
    assert plain.steps.columns.tolist() == expected
    assert plain.steps["decision"].tolist() == ["promote", "promote"]
    sel = bc.select(
        scores,
        baseline="a",
        metric="roc_auc",
        rope=0.01,
        rule="champion_challenger",
        compare_options={"guardrails": {"neg_log_loss": 0.02, "fit_time": 0.6}},
    )
    # c improves roc_auc further but loses 0.1 log loss: its guardrail is broken
    assert sel.steps["decision"].tolist() == ["promote", "worse"]
    assert sel.champion == "b"
    assert "guardrail neg_log_loss broken" in sel.steps["reason"].iloc[1]
    assert "[guardrails: neg_log_loss" in sel.steps["reason"].iloc[0]
    # the same posterior as compare at every step
    res = bc.compare(
        scores, "a", "b", metric=["roc_auc", "neg_log_loss", "fit_time"], rope=ROPES, random_state=0
    )
    assert sel.steps["p_joint"].iloc[0] == res.p_joint
    assert sel.steps["p_right"].tolist()[0] == plain.steps["p_right"].tolist()[0]
    assert "P(that and every guardrail held)" in sel.recommendation["text"]


def test_select_fitted_with_fit_time_guardrail():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    models = {
        "nb": GaussianNB(),
        "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
    }
    sel = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        scoring=["roc_auc", "neg_log_loss"],
        metric="roc_auc",
        rope=0.0,
        progress=False,
        cv=default_cv(y, n_splits=5, n_repeats=2),
        compare_options={"guardrails": {"neg_log_loss": 0.01, "fit_time": 1.0}},
    )
    assert sel.champion == "lr" and sel.steps["decision"].tolist() == ["promote"]
    assert sel.steps["p_joint"].iloc[0] >= 0.95 and "fit_time" in sel.steps["guardrails"][0]


def test_plot(scores):
    import matplotlib

    matplotlib.use("Agg")
    res = bc.compare(scores, "a", "b", metric=["roc_auc", "neg_log_loss", "fit_time"], rope=ROPES)
    axes = res.plot()
    assert len(axes) == 2 and axes[1].get_ylabel().startswith("fit_time")
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(metric=["roc_auc", "neg_log_loss"], rope=0.01), "ambiguous; pass a dict"),
        (dict(metric=["roc_auc", "neg_log_loss"], rope={"accuracy": 0.01}), "not compared"),
        (dict(metric=["roc_auc", "roc_auc"]), "distinct"),
        (dict(metric=["roc_auc", "neg_log_loss"], method="hierarchical"), "multivariate"),
        (dict(metric=["roc_auc", "neg_log_loss"], gains={"accuracy": 1.0}), "gains name"),
        (dict(metric=["roc_auc", "neg_log_loss"], prior="flat"), "prior must be"),
        (
            dict(metric=["roc_auc", "neg_log_loss"], gains={"roc_auc": 1.0}, switching_cost="2"),
            "switching_cost must be a number",
        ),
    ],
)
def test_bad_input(scores, kwargs, match):
    with pytest.raises(ValueError, match=match):
        bc.compare(scores, "a", "b", **kwargs)


def test_bad_input_design():
    f = _frame()
    two = pd.concat([f.assign(dataset="x"), f.assign(dataset="y")])
    s2 = bc.Scores.from_frame(two, test_fraction=0.1)
    with pytest.raises(ValueError, match="pass dataset=NAME"):
        bc.compare(s2, "a", "b", metric=["roc_auc", "neg_log_loss"])
    s = bc.Scores.from_frame(f.assign(mystery=1.0), test_fraction=0.1)
    with pytest.raises(ValueError, match=r"higher_is_better=\{'mystery'"):
        bc.compare(s, "a", "b", metric=["roc_auc", "mystery"])
    with pytest.raises(ValueError, match="performance goal"):
        bc.compare(s, 0.8, "b", metric=["roc_auc", "neg_log_loss"])
    with pytest.raises(ValueError, match="too few"):
        multivariate_ttest(np.ones((3, 3)) + np.eye(3), rho=0.1, prior="jeffreys")


def test_guardrails_as_the_first_call_of_a_process():
    """The built-in methods are registered when the registry is first read: a joint
    comparison as a process's first call finds the multivariate method (it did not)."""
    import subprocess
    import sys

    code = (
        "import numpy as np, pandas as pd, bayescomp as bc\n"
        "rng = np.random.default_rng(0)\n"
        "f = pd.DataFrame({'model': np.repeat(['a', 'b'], 20), 'split': np.tile(range(20), 2),\n"
        "                  'accuracy': rng.normal(0.8, 0.01, 40), 'fit_time': rng.normal(1, 0.1, 40)})\n"
        "s = bc.Scores.from_frame(f, test_fraction=0.1)\n"
        "r = bc.compare(s, 'a', 'b', metric=['accuracy', 'fit_time'], rope={'accuracy': 0.01, 'fit_time': 0.5})\n"
        "print(type(r).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "MultiMetricResult"


def test_family_rule_promotes_the_best_challenger_that_holds_every_guardrail(scores):
    """Issue 30: c is the best on roc_auc but breaks its log-loss guardrail; b is better
    beyond the ROPE and holds every guardrail.  The family rule promotes b (as the per-step
    walk does) and says why c was not promoted: its guardrail, not its selection."""
    guarded = {"guardrails": {"neg_log_loss": 0.02, "fit_time": 0.6}}
    sel, cc = (
        bc.select(
            scores, baseline="a", metric="roc_auc", rope=0.01, rule=rule, compare_options=guarded
        )
        for rule in ("family", "champion_challenger")
    )
    assert sel.champion == cc.champion == "b"
    steps = sel.steps.set_index("challenger")
    assert steps.loc["c", "expected_gain"] > steps.loc["b", "expected_gain"]  # c won roc_auc
    assert steps.loc["b", "decision"] == "promote" and steps.loc["b", "p_joint"] >= 0.95
    assert steps.loc["c", "decision"] == "worse"
    why = steps.loc["c", "reason"]
    assert "certified better beyond the ROPE for the whole selection" in why
    assert "guardrail neg_log_loss broken" in why and "selective" not in why
