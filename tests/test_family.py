"""The family-wise promotion rule (issue 18): its maths against independent computations,
a small version of the operating-characteristics simulation, and ``select(rule=...)``."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import bayescomp as bc
from bayescomp.decision.family import (
    CALIBRATION_SHARE,
    LOOK_SHARE,
    JointDifferences,
    _selective_p,
    _truncated_sf,
    family_test,
    information_fractions,
    joint_differences,
    selection_bounds,
    sequential_levels,
    spent_gammas,
)
from bayescomp.decision.family_walk import family
from bayescomp.splits.repeats import default_cv

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import selection_operating_characteristics as oc


def test_joint_differences_margins_are_the_correlated_ttest():
    rng = np.random.default_rng(0)
    d = rng.normal(0.01, 0.02, size=(50, 3))
    j = joint_differences(d, rho=0.2)
    for i in range(3):
        ref = bc.correlated_ttest(np.zeros(50), d[:, i], rho=0.2, rope=0.01)
        assert j.mean[i] == pytest.approx(ref.mean)
        assert j.scale[i] == pytest.approx(ref.scale)
    assert j.df == 49
    np.testing.assert_allclose(j.shape, np.cov(d.T) * (1 / 50 + 0.2 / 0.8))


def test_truncated_sf_matches_numerical_integration():
    for x, lo, hi in [
        (1.0, -0.5, 3.0),
        (4.0, 3.5, np.inf),
        (-2.0, -np.inf, -1.0),
        (9.0, 8.0, 12.0),
    ]:
        t = stats.t(30)
        num = integrate.quad(t.pdf, x, hi)[0]
        den = integrate.quad(t.pdf, lo, hi)[0]
        assert _truncated_sf(30, x, lo, hi) == pytest.approx(num / den, rel=1e-6)


def test_selection_bounds_are_the_interval_where_the_winner_stays_the_winner():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 4))
    shape = a @ a.T + 4 * np.eye(4)
    mean = np.array([0.3, 1.2, -0.4, 0.9])
    win, lo, hi = selection_bounds(mean, shape)
    assert win == 1
    b = shape[:, 1] / shape[1, 1]
    z = mean - b * mean[1]
    for y in np.linspace(-10, 10, 2001):  # move y_win, keep the independent parts fixed
        moved = z + b * y
        inside = np.argmax(moved) == 1
        assert inside == (lo <= y <= hi) or min(abs(y - lo), abs(y - hi)) < 0.02


def test_family_test_single_challenger_is_the_correlated_ttest():
    rng = np.random.default_rng(5)
    d = rng.normal(0.012, 0.02, size=(200, 100, 1))
    f = family_test(joint_differences(d, 0.1), rope=0.01, gamma=0.95)
    ref = bc.correlated_ttest(np.zeros((200, 100)), d[..., 0], rho=0.1, rope=0.01)
    np.testing.assert_allclose(f.p_right[..., 0], ref.p_right, rtol=1e-10)
    np.testing.assert_allclose(f.p_family[..., 0], 1 - ref.p_right, rtol=1e-10)
    np.testing.assert_array_equal(f.promote, ref.p_right >= 0.95)


def _equicorrelated(t_values, corr, df=99):
    """A joint posterior with unit scales, equicorrelation ``corr`` and the given
    t-statistics against a ROPE of 0."""
    k = len(t_values)
    shape = np.full((k, k), corr) + (1 - corr) * np.eye(k)
    return JointDifferences(np.asarray(t_values, dtype=float), shape, df)


def test_the_max_t_part_alone_is_dunnetts_test():
    """With the whole of 1 - gamma on the max-t band, the family p-value of a challenger is
    P(max_j T_j >= t) under the least-favourable configuration: the multivariate t's
    upper tail (scipy's Genz–Bretz integration), within the calibration draws' error (the
    rule's draws give each statistic its own scale estimate, as the data do; the
    multivariate t shares one, which differs little at 99 degrees of freedom)."""
    for t_values in ([2.4, 0.3, -0.5], [2.0, 1.9, 1.7, 0.0]):
        joint = _equicorrelated(t_values, 0.5)
        f = family_test(joint, 0.0, shares=(0.0, 1.0, 0.0))
        mvt = stats.multivariate_t(np.zeros(len(t_values)), joint.shape, df=joint.df, seed=1)
        exact = 1 - mvt.cdf(np.full(len(t_values), t_values[0]), maxpts=200_000)
        # calibrated at a share of 1 - gamma (CALIBRATION_SHARE): p_family is scaled up
        assert CALIBRATION_SHARE * f.p_family[0] == pytest.approx(exact, abs=0.012)
        # the simultaneous lower bounds: mean - c, c the 95 % quantile of max_j T_j
        c = float(joint.mean[0] - f.lower_bound[0])
        np.testing.assert_allclose(joint.mean - f.lower_bound, c)
        assert mvt.cdf(np.full(len(t_values), c), maxpts=200_000) == pytest.approx(0.95, abs=0.01)


def test_separate_scale_estimates_make_the_maximum_heavier_tailed():
    """The least-favourable draws give each t-statistic its own scale estimate: with
    uncorrelated challengers they are independent Student t's, so P(max of three > c) is
    1 - F(c)^3 (binomial tolerance), above the multivariate t's, which shares one scale."""
    from bayescomp.decision.family import _least_favourable

    n, c = 40_000, 2.0
    t0 = _least_favourable(np.eye(3), np.ones(3, dtype=bool), 5, n)
    exact = 1 - stats.t.cdf(c, 5) ** 3
    hits = int((t0.max(1) > c).sum())
    assert stats.binom.ppf(0.001, n, exact) <= hits <= stats.binom.ppf(0.999, n, exact)
    shared = stats.multivariate_t(np.zeros(3), np.eye(3), df=5, seed=2).rvs(n)
    assert (shared.max(1) > c).mean() < exact - 0.005


def test_the_winner_part_alone_is_the_conditional_test():
    """With the whole of 1 - gamma on the winner's test, its family p-value is the
    conditional p-value given that it won (uniform under the least-favourable
    configuration), within the calibration draws' error."""
    for t_values in ([2.4, 0.3, -0.5], [2.2, 2.0, 1.0]):
        joint = _equicorrelated(t_values, 0.5)
        f = family_test(joint, 0.0, shares=(1.0, 0.0, 0.0))
        keep = np.ones(len(t_values), dtype=bool)
        p = _selective_p(joint.mean, joint.shape, joint.scale, keep, 0.0, joint.df)
        assert CALIBRATION_SHARE * f.p_family[0] == pytest.approx(float(p), abs=0.012)


def test_clearly_worse_challengers_do_not_count():
    """A challenger whose t against the ROPE edge is below -SCREEN leaves the family: one
    good challenger among clearly worse ones is decided by the correlated t-test."""
    f = family_test(_equicorrelated([1.8, -4.0, -5.0, -6.0], 0.5), 0.0)
    assert f.plausible.tolist() == [True, False, False, False]
    assert f.p_family[0] == pytest.approx(stats.t.sf(1.8, 99), rel=1e-10)
    assert f.promote and int(f.promoted) == 0


def test_several_close_winners_are_certified_together_and_the_best_promoted():
    f = family_test(_equicorrelated([4.0, 3.9, 3.8, -3.0], 0.5), 0.0)
    assert f.certified.tolist() == [True, True, True, False]
    assert int(f.promoted) == 0 and int(f.winner) == 0


def test_sequential_levels_reproduce_published_obrien_fleming_boundaries():
    """Lan–DeMets O'Brien–Fleming-type spending, one-sided 0.025, five equally spaced looks:
    the boundaries 4.877, 3.357, 2.680, 2.290, 2.031 (Jennison & Turnbull 2000, and R's
    gsDesign ``sfLDOF``)."""
    z = stats.norm.isf(sequential_levels(0.025, [0.2, 0.4, 0.6, 0.8, 1.0]))
    np.testing.assert_allclose(z, [4.877, 3.357, 2.680, 2.290, 2.031], atol=1e-3)


def test_sequential_levels_cross_with_probability_alpha():
    """The canonical joint distribution of ten looks of the 10 x 10 design (simulated as
    Brownian motion in the information fraction): some look crosses with probability
    alpha, and every look's level is far above the union bound's share."""
    t = information_fractions([100 + 10 * j for j in range(10)], 0.1)
    levels = sequential_levels(0.05, t)
    rng = np.random.default_rng(4)
    runs = 200_000
    b = (rng.standard_normal((runs, 10)) * np.sqrt(np.diff(t, prepend=0.0))).cumsum(axis=1)
    crossed = int((b / np.sqrt(t) >= stats.norm.isf(levels)).any(axis=1).sum())
    assert stats.binom.ppf(0.001, runs, 0.05) <= crossed <= stats.binom.ppf(0.999, runs, 0.05)
    union = np.diff(2 * stats.norm.sf(stats.norm.isf(0.025) / np.sqrt(t)), prepend=0.0)
    assert levels[0] == pytest.approx(union[0])
    assert np.all(levels[1:] > 10 * union[1:])


def test_spent_gammas_one_look_and_the_share_for_a_selection():
    assert spent_gammas(0.95, [100], 0.1).tolist() == [0.95]
    assert spent_gammas(0.95, [100], 0.1, k=10).tolist() == [0.95]
    n = [100 + 10 * j for j in range(10)]
    t = information_fractions(n, 0.1)
    np.testing.assert_allclose(1 - spent_gammas(0.9, n, 0.1), sequential_levels(0.1, t))
    np.testing.assert_allclose(
        1 - spent_gammas(0.9, n, 0.1, k=3), sequential_levels(LOOK_SHARE * 0.1, t)
    )
    with pytest.raises(ValueError, match="must add splits"):
        spent_gammas(0.95, [100, 100], 0.1)


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_family_wise_false_promotion_at_the_edge_with_ten_challengers(mode):
    """A small version of ``bench/selection_operating_characteristics.py``: ten challengers
    all exactly at the ROPE edge.  The family rule keeps the family-wise rate at 5 %; the
    per-step rule promotes a non-improvement in about a quarter of the selections."""
    runs = 500
    fam, _ = oc.cell("family", [1.0] * 10, 1, mode, runs, 11)
    old, _ = oc.cell("champion_challenger", [1.0] * 10, 1, mode, runs, 11)
    # one-sided binomial tolerance: fail only when the count is above the 99.9 % quantile
    assert fam * runs <= stats.binom.ppf(0.999, runs, 0.05)
    assert old * runs >= stats.binom.ppf(0.001, runs, 0.15)


def test_family_is_decisive_where_the_previous_rule_was_not():
    """The issue-30 rows, small (shared scores, one look, 400 runs each): one good
    challenger among nulls (B), three good ones (C), 2.6 / 3.0 / 4.0 ROPE (D), the good one
    alone (E); the targets 0.55 / 0.70 / 0.85 / 0.65 must not be rejected by a one-sided
    binomial test at 0.1 %, and C >= E (more good challengers do not lower the power)."""
    runs = 400
    power = {
        name: oc.cell("family", oc.SCENARIOS[name], 1, "shared", runs, 21)[1]
        for name in ("B", "C", "D", "E")
    }
    for name, target in {"B": 0.55, "C": 0.70, "D": 0.85, "E": 0.65}.items():
        assert power[name] * runs >= stats.binom.ppf(0.001, runs, target), (name, power)
    assert power["C"] >= power["E"] - 2 * np.sqrt(0.25 / runs)
    # and the conditional test alone (the previous rule) fails C
    sel, _ = oc.cell("selective", oc.SCENARIOS["C"], 1, "shared", runs, 21)[::-1]
    assert sel * runs <= stats.binom.ppf(0.999, runs, 0.60)


@pytest.mark.parametrize("k", [1, 10])
def test_sequential_looks_keep_the_family_wise_rate(k):
    """Up to ten looks at the ROPE edge (a small version of the bench's rows with looks)."""
    runs = 400 if k == 1 else 200
    fam, _ = oc.cell("family", [1.0] * k, 10, "shared", runs, 13)
    assert fam * runs <= stats.binom.ppf(0.999, runs, 0.05)


def _scores(gains: dict[str, float], n: int = 100, seed: int = 0) -> bc.Scores:
    """One table of the simulation's model (shared split difficulty, rho = 0.1)."""
    sim, _ = oc.simulate(
        np.random.default_rng(seed), 1, np.array(list(gains.values())), n, "shared"
    )
    names = ["base", *gains]
    f = pd.DataFrame(
        [
            {
                "dataset": "d",
                "model": m,
                "split": j,
                "n_train": 90,
                "n_test": 10,
                "accuracy": 0.8 + sim[0, i, j],
            }
            for i, m in enumerate(names)
            for j in range(n)
        ]
    )
    return bc.Scores(f, metrics=["accuracy"])


def test_select_family_promotes_the_winner_with_a_simultaneous_lower_bound():
    scores = _scores({"a": 0.0, "b": 0.05, "c": -0.03, "d": 0.0}, seed=1)
    sel = bc.select(scores, baseline="base", metric="accuracy", rope=0.01)
    assert sel.champion == "b" and sel.settings["rule"] == "family"
    assert sel.steps["champion"].tolist() == ["base"] * 4
    assert sel.steps["decision"].tolist()[1] == "promote"
    assert sel.steps["looks"].tolist() == [1, 1, 1, 1]
    rec = sel.recommendation
    assert rec["rule"] == "family" and rec["family_size"] == 4 and rec["runners_up"] == []
    assert "rule 'family' (false-promotion rate ≤ 0.05 for the whole selection)" in rec["text"]
    assert "selective" not in rec["text"] and "selective" not in " ".join(sel.steps["reason"])
    # the bound holds for the four challengers at once: below the one-challenger bound
    post = sel.results[1]
    alone = stats.t.ppf(0.05, post.df, post.mean, post.scale)
    assert 0.01 < rec["gain_lower"] < alone < rec["expected_gain"]


def test_select_family_with_one_challenger_decides_like_today():
    for seed in range(5):
        scores = _scores({"a": 0.012}, seed=seed)
        fam = bc.select(scores, baseline="base", metric="accuracy", rope=0.01)
        old = bc.select(
            scores, baseline="base", metric="accuracy", rope=0.01, rule="champion_challenger"
        )
        assert fam.champion == old.champion
        assert fam.steps["decision"].tolist() == old.steps["decision"].tolist()


def test_select_family_refuses_a_per_step_promotion_it_cannot_trust():
    """Ten challengers all at the ROPE edge: on a table where the per-step walk promotes
    one, the family rule keeps the baseline and says why."""
    for seed in range(40):
        scores = _scores({f"m{i}": 0.01 for i in range(10)}, seed=seed)
        old = bc.select(
            scores, baseline="base", metric="accuracy", rope=0.01, rule="champion_challenger"
        )
        fam = bc.select(scores, baseline="base", metric="accuracy", rope=0.01)
        if old.champion != "base" and fam.champion == "base":
            break
    else:
        pytest.fail("no table where the family rule holds back a per-step promotion")
    assert "rule 'family' (false-promotion rate ≤ 0.05" in fam.recommendation["text"]
    alone = fam.steps[fam.steps["p_right"] >= 0.95]
    assert not alone.empty  # better on their own, refused as a family
    assert (alone["decision"] == "inconclusive").all()
    assert alone["reason"].str.contains("selection among 10 challenger").all()


def test_several_good_challengers_promote_the_best_and_name_the_runners_up():
    """Three challengers 3 ROPE widths better (scenario C): the family rule promotes one
    and labels the others it certified 'runner-up', never 'inconclusive'."""
    for seed in range(30):
        sel = bc.select(
            _scores({"a": 0.03, "b": 0.03, "c": 0.03}, seed=seed),
            baseline="base",
            metric="accuracy",
            rope=0.01,
        )
        if sel.recommendation["runners_up"]:
            break
    else:
        pytest.fail("no table with a runner-up")
    d = sel.steps.set_index("challenger")["decision"]
    assert (d == "promote").sum() == 1 and sel.champion == d[d == "promote"].index[0]
    for c in sel.recommendation["runners_up"]:
        assert d[c] == "runner-up"
        row = sel.steps.set_index("challenger").loc[c]
        assert row["p_right"] >= 0.95 and f"{sel.champion} has the larger" in row["reason"]
        assert (
            row["expected_gain"]
            <= sel.steps.set_index("challenger").loc[sel.champion, "expected_gain"]
        )


def test_rule_is_checked():
    with pytest.raises(ValueError, match="rule must be one of"):
        bc.select(
            _scores({"a": 0.0}), baseline="base", metric="accuracy", rope=0.01, rule="bonferroni"
        )


def test_racing_skips_clear_losers_and_keeps_the_decisions(tmp_path):
    """A seeded check on real fits: a dummy classifier is worse beyond the ROPE after the
    first look, so racing does not fit it on the extra repetitions; the selection decides
    as with every challenger fitted on every look (which reads the shared store back)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)

    def lr(c):
        return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))

    models = {"lr": lr(1.0), "lr_c05": lr(0.5), "dummy": DummyClassifier(), "lr_c2": lr(2.0)}
    kw = dict(
        baseline="lr",
        scoring="accuracy",
        rope=0.005,
        cv=default_cv(y, n_splits=5, n_repeats=1),
        max_repeats=2,
        progress=False,
        store=tmp_path / "race.sqlite",
    )
    fast = bc.select_models(models, X, y, **kw)
    full = bc.select_models(models, X, y, rule=partial(family, racing=False), **kw)
    f, g = fast.steps.set_index("challenger"), full.steps.set_index("challenger")
    assert f.loc["dummy", "decision"] == "worse" and f.loc["dummy", "looks"] == 1
    assert (f["looks"].max(), g.loc["dummy", "looks"]) == (3, 3)  # the others went on
    assert fast.champion == full.champion
    assert f.drop(index="dummy")["decision"].tolist() == g.drop(index="dummy")["decision"].tolist()
    assert g.loc["dummy", "decision"] == "worse"
    assert fast.fits_total == full.fits_total - 2 * 5  # two repetitions of 5 splits saved
    assert full.fits_performed == 10 and full.fits_loaded == fast.fits_total


def test_a_winner_among_practically_equal_challengers_says_they_are_tied():
    """Two challengers 0.03 better, 0.001 apart (a tenth of the ROPE): the family rule
    promotes one and says the other is practically tied with it; a clear winner says not."""
    rng = np.random.default_rng(1)
    base = 0.8 + 0.01 * rng.standard_normal(40)
    noise = 0.002 * rng.standard_normal((2, 40))

    def selection(second_gain):
        f = pd.DataFrame(
            {"model": np.repeat(["b", "x", "y"], 40), "split": np.tile(np.arange(40), 3)}
            | {"n_train": 90, "n_test": 10}
            | {"accuracy": np.r_[base, base + 0.03 + noise[0], base + second_gain + noise[1]]}
        )
        return bc.select(bc.Scores.from_frame(f), baseline="b", rope=0.01)

    tied = selection(0.031)
    assert tied.champion == "y" and tied.recommendation["practically_tied"] == ["x"]
    assert "practically tied with x" in tied.recommendation["text"]
    clear = selection(0.06)
    assert clear.champion == "y" and "practically_tied" not in clear.recommendation
