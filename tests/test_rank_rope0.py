"""Rank tests at rope 0: baycomp's numbers (tie draws dropped, left/right rescaled), never
"equivalent", and an explicit refusal when the ties leave too few draws."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayescomp.posterior.ranktests import MIN_KEPT_DRAWS, sign_test, signed_rank_test

CASES = {
    "3 ties": np.r_[np.zeros(3), np.full(10, 0.01), np.full(4, -0.02)],
    "no ties": np.r_[np.full(7, 0.01), np.full(5, -0.02)],
    "8 ties": np.r_[np.zeros(8), np.full(6, 0.01), np.full(3, -0.02)],
    "mixed sizes": np.r_[0.0, 0.0, 0.03, -0.01, 0.02, 0.005, -0.004, 0.0, 0.011],
}


def _baycomp(test, z, n):
    baycomp = pytest.importorskip("baycomp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(baycomp, test).probs(np.zeros_like(z), z, rope=0, random_state=1, nsamples=n)


@pytest.mark.parametrize("name", sorted(CASES))
def test_sign_test_at_rope_zero_reports_baycomps_numbers(name):
    z = CASES[name]
    ref_left, ref_right = _baycomp("SignTest", z, 50_000)
    res = sign_test(z, rope=0, random_state=0, draws=50_000)
    p = res.baycomp_convention
    assert p.p_rope == 0.0 and p.p_left + p.p_right == pytest.approx(1.0)
    kept = res.kept_draws
    se = np.sqrt(ref_left * ref_right * (1 / kept + 1 / kept))  # two independent estimates
    assert abs(p.p_left - ref_left) < 4 * se + 1e-9
    assert (res.p_left, res.p_rope, res.p_right) == p.as_tuple()


@pytest.mark.parametrize("name", sorted(CASES))
def test_signed_rank_at_rope_zero_reports_baycomps_numbers(name):
    z = CASES[name]
    ref_left, ref_right = _baycomp("SignedRankTest", z, 20_000)
    res = signed_rank_test(z, rope=0, random_state=0, draws=20_000)
    assert res.kept_draws == 20_000 and np.all(res.sample[:, 1] == 0)  # H(0) = 1/2: no tie mass
    se = np.sqrt(ref_left * ref_right * 2 / 20_000)
    assert abs(res.p_left - ref_left) < 4 * se + 1e-9
    assert res.p_rope == 0.0


def test_next_dataset_at_rope_zero_is_the_exact_dirichlet_mean():
    # issue 23 item 2: the tie cell is kept; counts (3, 8, 6) plus the prior 1 on the tie
    z = CASES["8 ties"]
    res = sign_test(z, rope=0, random_state=0, draws=100_000)
    assert res.next_dataset.as_tuple() == pytest.approx((3 / 18, 9 / 18, 6 / 18), abs=1e-12)
    # the draws agree with the exact mean
    np.testing.assert_allclose(res.sample.mean(axis=0), (3 / 18, 9 / 18, 6 / 18), atol=0.003)
    # theta_left / (theta_left + theta_right) ~ Beta(3, 6): mean 1/3, under its own name
    assert res.next_dataset_given_no_tie.p_left == pytest.approx(3 / 9, abs=0.003)
    assert res.next_dataset_given_no_tie.p_rope == 0.0
    assert res.next_dataset_given_no_tie.p_right == pytest.approx(6 / 9, abs=0.003)


def test_sign_test_next_dataset_matches_the_audit_reference_case():
    # counts (left, rope, right) = (5, 2, 2) at rope 0 with the prior on the tie: the exact
    # posterior mean is Dirichlet(5, 3, 2)'s (0.5, 0.3, 0.2), not (0.71, 0, 0.29)
    z = np.array([-1, -1, -1, -1, -1, 0, 0, 1, 1.0])
    res = sign_test(z, rope=0, random_state=0, draws=2000)
    assert res.next_dataset.as_tuple() == pytest.approx((0.5, 0.3, 0.2), abs=1e-12)


def test_twenty_ties_and_two_wins_is_inconclusive_not_equivalent():
    z = np.r_[np.zeros(20), [0.01, 0.02]]
    res = sign_test(z, rope=0, random_state=0)
    assert res.kept_draws < MIN_KEPT_DRAWS
    d = res.decision(0.95)
    assert d.outcome == "inconclusive"
    assert "rope > 0" in d.reason and f"only {res.kept_draws} are left" in d.reason
    # with a ROPE the same data answer the equivalence question
    assert sign_test(z, rope=0.005, random_state=0).decision(0.8).outcome == "equivalent"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("test", [sign_test, signed_rank_test])
def test_rope_zero_never_decides_equivalent(seed, test):
    rng = np.random.default_rng(seed)
    z = np.r_[np.zeros(rng.integers(5, 40)), rng.normal(0, 0.01, rng.integers(0, 6))]
    res = test(z, rope=0, random_state=seed, draws=5000)
    for on in ("baycomp_convention", "next_dataset"):
        for gamma in (0.6, 0.8, 0.95):
            assert res.decision(gamma, on=on).outcome != "equivalent"


def test_all_ties_give_even_odds_and_no_decision():
    # issue 28: no draw left is "nothing favours either side" (was NaN), never a decision
    res = sign_test(np.zeros(10), rope=0, random_state=0, draws=2000)
    assert res.kept_draws == 0
    assert res.baycomp_convention.as_tuple() == (0.5, 0.0, 0.5)
    assert res.next_dataset_given_no_tie.as_tuple() == (0.5, 0.0, 0.5)
    assert res.next_dataset.as_tuple() == (0.0, 1.0, 0.0)
    assert res.decision().outcome == "inconclusive"
