"""The family-wise rule of ``select`` over several models' predictions on one test set."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

import bayescomp as bc
from bayescomp.decision.family import JointDifferences, family_test
from bayescomp.decision.steps import joint_item_differences
from bayescomp.posterior.holdout import holdout_posterior

BENCH = Path(__file__).resolve().parents[1] / "bench" / "test_set_selection.py"


def _bench():
    spec = importlib.util.spec_from_file_location("test_set_selection", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _ols_var(d, groups=None):
    import statsmodels.api as sm

    x = np.ones((d.size, 1))
    if groups is None:
        return float(sm.OLS(d, x).fit().bse[0] ** 2)
    fit = sm.OLS(d, x).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0] ** 2)


@pytest.mark.parametrize("clustered", [False, True])
def test_joint_covariance_equals_statsmodels(clustered):
    """Each margin's variance is statsmodels' (cluster-robust) variance of that mean
    difference, and each covariance that of the sum of two differences."""
    rng = np.random.default_rng(0)
    n = 600
    cluster = np.repeat(np.arange(60), 10) if clustered else None
    base = rng.gamma(2.0, 0.5, n)
    shift = rng.normal(0, 0.3, 60)[np.repeat(np.arange(60), 10)]
    chals = [base * rng.uniform(0.7, 1.2, n) + s * shift for s in (0.0, 0.5, 1.0)]
    j = joint_item_differences(
        None, base, chals, metric="mse", higher_is_better=False, cluster=cluster
    )
    d = [base - c for c in chals]  # lower loss is better: oriented base - challenger
    np.testing.assert_allclose(j.mean, [x.mean() for x in d], rtol=1e-12)
    for a in range(3):
        assert j.shape[a, a] == pytest.approx(_ols_var(d[a], cluster), rel=1e-10)
        for b in range(a + 1, 3):
            both = _ols_var(d[a] + d[b], cluster)
            assert j.shape[a, a] + j.shape[b, b] + 2 * j.shape[a, b] == pytest.approx(
                both, rel=1e-10
            )
    assert j.df == (59 if clustered else n - 1)


def test_joint_auc_draws_share_weights_and_match_each_comparison():
    """Whole-set metrics: each margin's scale is the single comparison's posterior sd,
    and the shared weights make the two challengers' differences correlated."""
    rng = np.random.default_rng(1)
    n = 800
    y = rng.integers(0, 2, n)
    base = y + rng.normal(0, 1.3, n)
    noise = rng.normal(0, 1.0, n)
    chals = [y + noise, y + noise + rng.normal(0, 0.3, n)]
    j = joint_item_differences(
        y, base, chals, metric="roc_auc", higher_is_better=True, draws=1500, random_state=0
    )
    for k, c in enumerate(chals):
        ref = holdout_posterior(y, base, c, metric="roc_auc", draws=1500, random_state=k)
        assert j.mean[k] == pytest.approx(ref.estimate, abs=1e-12)
        assert np.sqrt(j.shape[k, k]) == pytest.approx(ref.sd, rel=0.08)
    corr = j.shape[0, 1] / np.sqrt(j.shape[0, 0] * j.shape[1, 1])
    assert corr > 0.8


def test_family_rule_promotes_the_certified_winner():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 1200)
    t = pd.DataFrame(
        {
            "y_true": y,
            **{
                m: np.where(rng.random(1200) < acc, y, 1 - y)
                for m, acc in (("old", 0.80), ("a", 0.80), ("b", 0.81), ("new", 0.88))
            },
        }
    )
    sel = bc.select(t, baseline="old", rope=0.01, compare_options={"random_state": 0})
    assert sel.champion == "new" and sel.recommendation["rule"] == "family"
    assert sel.steps["champion"].tolist() == ["old"] * 3  # all against the baseline
    row = sel.steps.set_index("challenger").loc["new"]
    assert row["p_family"] < 0.05 and row["looks"] == 1
    new = sel.results[sel.steps["challenger"].tolist().index("new")]
    # its simultaneous bound: below its estimate, above the ROPE (it was certified)
    assert 0.01 < row["gain_lower"] < new.estimate
    # the same through bc.select and the plain rule through rule=
    same = bc.select(t, baseline="old", rope=0.01, compare_options={"random_state": 0})
    assert same.champion == "new" and same.steps["p_family"].equals(sel.steps["p_family"])
    cc = bc.select(t, baseline="old", rope=0.01, rule="champion_challenger")
    assert "p_family" not in cc.steps.columns
    with pytest.raises(ValueError, match="rule must be"):
        bc.select(t, baseline="old", rope=0.01, rule="bonferroni")


def test_family_rule_holds_a_promotion_that_only_wins_by_selection():
    """A challenger promoted on its own but not certified for a selection among many is
    'inconclusive', and the recommendation keeps the baseline."""
    bench = _bench()
    for seed in range(200):
        frame = bench.table(np.random.default_rng(seed), [bench.ROPE] * 10)
        kw = dict(baseline="base", rope=bench.ROPE, metric="accuracy")
        opts = {"y_true": None, "draws": 500, "random_state": seed}
        cc = bc.select(frame, rule="champion_challenger", compare_options=opts, **kw)
        if cc.steps["decision"].iloc[0] == "promote" or cc.champion == "base":
            continue  # look for a table where some challenger passes on its own
        fam = bc.select(frame, compare_options=opts, **kw)
        if fam.champion == "base":
            break
    else:
        pytest.fail("no table where the family rule holds back a promotion")
    assert fam.recommendation["action"] == "keep"
    held = fam.steps[fam.steps["p_right"] >= 0.95]
    assert len(held) and (held["decision"] == "inconclusive").all()
    assert held["reason"].str.contains("selection among 10 challenger").all()


def _batch_rates(bench, deltas, reps, clusters, seed):
    """False promotions of the family rule (family test on the joint of the predictions)
    and of each step on its own (any challenger with P(> rope) >= gamma), batched."""
    rng = np.random.default_rng(seed)
    means, shapes, dfs = [], [], set()
    for _ in range(reps):
        f = bench.table(rng, deltas, clusters)
        j = joint_item_differences(
            None,
            f["base"].to_numpy(),
            [f[f"c{k}"].to_numpy() for k in range(len(deltas))],
            metric="accuracy",
            higher_is_better=True,
            cluster=f["cluster"].to_numpy() if clusters else None,
        )
        means.append(j.mean)
        shapes.append(j.shape)
        dfs.add(j.df)
    (df,) = dfs
    joint = JointDifferences(np.array(means), np.array(shapes), df)
    fam = family_test(joint, bench.ROPE, bench.GAMMA).promote
    p_right = special.stdtr(df, (joint.mean - bench.ROPE) / joint.scale)
    return float(np.mean(fam)), float(np.mean((p_right >= bench.GAMMA).any(axis=1)))


@pytest.mark.parametrize("clusters", [False, True])
def test_operating_characteristics_small(clusters):
    """bench/test_set_selection.py, small: five challengers at the ROPE edge.  The family
    rule promotes at most 1 - gamma within binomial error; step by step about 20 %."""
    bench = _bench()
    reps = 300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fam, each = _batch_rates(bench, [bench.ROPE] * 5, reps, clusters, seed=3)
    assert fam <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
    assert each >= 0.12
