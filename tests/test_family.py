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
    LOOK_SHARE,
    _truncated_sf,
    information_fractions,
    joint_differences,
    selection_bounds,
    sequential_levels,
    spent_gammas,
    winner_test,
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


def test_winner_test_single_challenger_is_todays_rule():
    rng = np.random.default_rng(5)
    d = rng.normal(0.012, 0.02, size=(200, 100, 1))
    w = winner_test(joint_differences(d, 0.1), rope=0.01, gamma=0.95)
    ref = bc.correlated_ttest(np.zeros((200, 100)), d[..., 0], rho=0.1, rope=0.01)
    np.testing.assert_allclose(w.p_right, ref.p_right, rtol=1e-10)
    np.testing.assert_array_equal(w.promote, ref.p_right >= 0.95)


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
    runs = 600
    fam, _ = oc.cell("family", 10, oc.ROPE, 1, mode, runs, seed=11)
    old, _ = oc.cell("champion_challenger", 10, oc.ROPE, 1, mode, runs, seed=11)
    # one-sided binomial tolerance: fail only when the count is above the 99.9 % quantile
    assert fam * runs <= stats.binom.ppf(0.999, runs, 0.05)
    assert old * runs >= stats.binom.ppf(0.001, runs, 0.15)


def test_family_keeps_the_power_of_a_real_improvement():
    fam_fp, fam_power = oc.cell("family", 10, 0.0, 1, "shared", 400, seed=12, power_case=True)
    old_fp, old_power = oc.cell(
        "champion_challenger", 10, 0.0, 1, "shared", 400, seed=12, power_case=True
    )
    assert old_power - fam_power <= 0.10
    assert fam_fp <= old_fp


@pytest.mark.parametrize("k", [1, 10])
def test_sequential_looks_keep_the_family_wise_rate(k):
    """Up to ten looks at the ROPE edge (a small version of the bench's rows with looks)."""
    runs = 500 if k == 1 else 300
    fam, _ = oc.cell("family", k, oc.ROPE, 10, "shared", runs, seed=13)
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


def test_select_family_promotes_the_winner_with_a_corrected_gain():
    scores = _scores({"a": 0.0, "b": 0.05, "c": -0.03, "d": 0.0}, seed=1)
    sel = bc.select(scores, baseline="base", metric="accuracy", rope=0.01)
    assert sel.champion == "b" and sel.settings["rule"] == "family"
    assert sel.steps["champion"].tolist() == ["base"] * 4
    assert sel.steps["decision"].tolist()[1] == "promote"
    assert sel.steps["looks"].tolist() == [1, 1, 1, 1]
    rec = sel.recommendation
    assert rec["rule"] == "family" and rec["family_winner"] == "b"
    assert "rule 'family'" in rec["text"] and "winner's-curse-corrected gain" in rec["text"]
    # the winner is far ahead: the correction is small and never increases the gain much
    assert rec["corrected_gain"] == pytest.approx(rec["expected_gain"], abs=0.005)


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
    """Ten challengers all at the ROPE edge (seed 5 of the simulation's model): the
    per-step walk promotes one; the family rule keeps the baseline and says why."""
    scores = _scores({f"m{i}": 0.01 for i in range(10)}, seed=5)
    old = bc.select(
        scores, baseline="base", metric="accuracy", rope=0.01, rule="champion_challenger"
    )
    fam = bc.select(scores, baseline="base", metric="accuracy", rope=0.01)
    assert old.champion != "base" and old.recommendation["rule"] == "champion_challenger"
    assert fam.champion == "base"
    assert "not better beyond the ROPE once its selection as the best" in fam.recommendation["text"]
    promoted_alone = fam.steps[fam.steps["p_right"] >= 0.95]
    assert not promoted_alone.empty  # better on their own, refused as a family
    assert (promoted_alone["decision"] == "inconclusive").all()
    assert promoted_alone["reason"].str.contains("challenger").all()


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
    assert f.loc["dummy", "decision"] == "reject" and f.loc["dummy", "looks"] == 1
    assert (f["looks"].max(), g.loc["dummy", "looks"]) == (3, 3)  # the others went on
    assert fast.champion == full.champion
    assert f.drop(index="dummy")["decision"].tolist() == g.drop(index="dummy")["decision"].tolist()
    assert g.loc["dummy", "decision"] == "reject"
    assert fast.fits_total == full.fits_total - 2 * 5  # two repetitions of 5 splits saved
    assert full.fits_performed == 10 and full.fits_loaded == fast.fits_total
