"""The family-wise promotion rule (issue 18): its maths against independent computations,
and a small version of the operating-characteristics simulation."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

import bayescomp as bc
from bayescomp.decision.family import (
    _truncated_sf,
    joint_differences,
    selection_bounds,
    spent_gammas,
    winner_test,
)

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
    for x, lo, hi in [(1.0, -0.5, 3.0), (4.0, 3.5, np.inf), (-2.0, -np.inf, -1.0),
                      (9.0, 8.0, 12.0)]:
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


def test_spent_gammas_spend_exactly_one_minus_gamma():
    assert spent_gammas(0.95, [100], 0.1).tolist() == [0.95]
    g = spent_gammas(0.9, [100 + 10 * j for j in range(10)], 0.1)
    assert (1 - g).sum() == pytest.approx(0.1)
    assert np.all(g > 0.9)


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_family_wise_false_promotion_at_the_edge_with_ten_challengers(mode):
    """A small version of ``bench/selection_operating_characteristics.py``: ten challengers
    all exactly at the ROPE edge.  The family rule keeps the family-wise rate at 5 %; the
    per-step rule promotes a non-improvement in about a quarter of the selections."""
    runs = 600
    fam, _ = oc.cell("family", 10, oc.ROPE, 1, mode, runs, seed=11)
    old, _ = oc.cell("per-step", 10, oc.ROPE, 1, mode, runs, seed=11)
    # one-sided binomial tolerance: fail only when the count is above the 99.9 % quantile
    assert fam * runs <= stats.binom.ppf(0.999, runs, 0.05)
    assert old * runs >= stats.binom.ppf(0.001, runs, 0.15)


def test_family_keeps_the_power_of_a_real_improvement():
    fam_fp, fam_power = oc.cell("family", 10, 0.0, 1, "shared", 400, seed=12, power_case=True)
    old_fp, old_power = oc.cell("per-step", 10, 0.0, 1, "shared", 400, seed=12,
                                power_case=True)
    assert old_power - fam_power <= 0.10
    assert fam_fp <= old_fp


def test_sequential_looks_keep_the_family_wise_rate():
    runs = 500
    fam, _ = oc.cell("family", 5, oc.ROPE, 10, "shared", runs, seed=13)
    assert fam * runs <= stats.binom.ppf(0.999, runs, 0.05)
