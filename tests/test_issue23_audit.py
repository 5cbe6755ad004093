"""Issue 23: the audit's wrong numbers and silent acceptances, each checked once
deterministically, plus the rank tests' symmetry as hypothesis properties.

Run the big fuzz by hand: ``HYPOTHESIS_PROFILE=slow python -m pytest tests/test_issue23_audit.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bayescomp.posterior.ranktests import sign_test, signed_rank_test

# ------------------------------------------------------------ item 1/2: rank-test symmetry
_diffs = st.lists(st.sampled_from([-0.03, -0.02, -0.01, -0.005, 0.0, 0.005, 0.01, 0.02, 0.1])
                  | st.floats(-0.05, 0.05, allow_subnormal=False), min_size=1, max_size=12)
_mirror = {"rope": "rope", "left": "right", "right": "left"}


@given(z=_diffs, rope=st.sampled_from([0.0, 0.005, 0.01]), seed=st.integers(0, 2**16),
       place=st.sampled_from(["rope", "left", "right"]), n=st.integers(1, 400))
def test_sign_test_mirrors_exactly_when_the_models_swap(z, rope, seed, place, n):
    a = sign_test(np.array(z), rope=rope, prior_place=place, random_state=seed, n_samples=n)
    b = sign_test(-np.array(z), rope=rope, prior_place=_mirror[place], random_state=seed,
                  n_samples=n)
    mirrored = a.sample[:, ::-1]
    if a.alpha[0] == a.alpha[2]:  # mirrored pairs: the same set of draws
        mirrored = mirrored[np.lexsort(mirrored.T)]
        np.testing.assert_array_equal(b.sample[np.lexsort(b.sample.T)], mirrored)
    else:
        np.testing.assert_array_equal(b.sample, mirrored)
    assert (b.p_left, b.p_rope, b.p_right) == (a.p_right, a.p_rope, a.p_left) or np.isnan(a.p_left)
    assert b.next_dataset.as_tuple() == a.next_dataset.as_tuple()[::-1]
    assert (b.p_better, b.p_worse) == (a.p_worse, a.p_better)


@given(z=_diffs, rope=st.sampled_from([0.0, 0.005, 0.01]), seed=st.integers(0, 2**16),
       place=st.sampled_from(["rope", "left", "right"]), n=st.integers(1, 300))
def test_signed_rank_test_mirrors_exactly_when_the_models_swap(z, rope, seed, place, n):
    a = signed_rank_test(np.array(z), rope=rope, prior_place=place, random_state=seed,
                         n_samples=n)
    b = signed_rank_test(-np.array(z), rope=rope, prior_place=_mirror[place],
                         random_state=seed, n_samples=n)
    np.testing.assert_array_equal(b.sample, a.sample[:, ::-1])
    assert (b.p_left, b.p_rope, b.p_right) == (a.p_right, a.p_rope, a.p_left)
    assert (b.p_better, b.p_worse) == (a.p_worse, a.p_better)


@given(m=st.integers(1, 15), value=st.floats(-1, 1), rope=st.sampled_from([0.0, 0.01]),
       seed=st.integers(0, 2**16), n=st.integers(1, 300))
def test_identical_models_give_equal_left_and_right(m, value, rope, seed, n):
    # identical scores: every per-dataset difference is exactly 0
    z = np.full(m, value) - np.full(m, value)
    for test in (sign_test, signed_rank_test):
        res = test(z, rope=rope, random_state=seed, n_samples=n)
        assert res.baycomp_convention.p_left == res.baycomp_convention.p_right or \
            np.isnan(res.p_left)
        assert res.p_better == res.p_worse


def test_signed_rank_on_identical_models_is_even_not_0768():
    # issue 23 item 1: m = 10 identical datasets gave p_left = 0.768 (float rounding of
    # 1 - theta_right decided every draw); the exact answer is one half each way
    res = signed_rank_test(np.zeros(10), rope=0, random_state=0, n_samples=5000)
    assert (res.p_left, res.p_rope, res.p_right) == (0.5, 0.0, 0.5)


def test_signed_rank_mirror_at_rope_zero_is_exact():
    rng = np.random.default_rng(3)
    z = np.round(rng.normal(0, 0.01, 10), 3)
    a = signed_rank_test(z, rope=0, random_state=1, n_samples=5000)
    b = signed_rank_test(-z, rope=0, random_state=1, n_samples=5000)
    assert (a.p_left, a.p_right) == (b.p_right, b.p_left)


def test_sign_test_equal_counts_give_equal_shares():
    res = sign_test(np.array([-0.02, -0.03, 0.02, 0.03]), rope=0.01, random_state=0,
                    n_samples=1001)
    assert res.p_left == res.p_right
    assert res.sample[:, 0].mean() == pytest.approx(2 / 5, abs=0.02)  # Dirichlet(2, 1, 2)
