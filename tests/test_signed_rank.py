"""Bayesian sign and signed-rank tests: hand-worked cases, simulation, published numbers."""

from __future__ import annotations

import numpy as np
import pytest

from bayescomp.posterior.ranktests import RankTestResult, sign_test, signed_rank_test


# ------------------------------------------------------------------ sign test
def test_sign_test_counts_and_prior_placement():
    z = np.array([-5, -3, -2, 0, 4, 70, 70, 70]) / 100  # left 3, rope 1, right 4 at rope 0.01
    for place, alpha in (("rope", [3, 2, 4]), ("left", [4, 1, 4]), ("right", [3, 1, 5])):
        res = sign_test(z, rope=0.01, prior_place=place, random_state=0, draws=40_000)
        expected = np.array(alpha) / sum(alpha)  # Dirichlet mean
        np.testing.assert_allclose(res.sample.mean(axis=0), expected, atol=0.005)
        assert res.next_dataset.as_tuple() == pytest.approx(tuple(expected), abs=0.005)
    # larger rope moves counts into the rope: rope 0.05 -> (0, 5 + 1, 3)
    res = sign_test(z, rope=0.05, random_state=0, draws=40_000)
    np.testing.assert_allclose(res.sample.mean(axis=0), np.array([0, 6, 3]) / 9, atol=0.005)
    assert np.all(res.sample[:, 0] == 0)  # no observation and no prior on the left: exactly 0


def test_sign_test_hand_worked_argmax_probability():
    # 3 datasets all better, prior 1 on the rope: theta ~ Dirichlet(0, 1, 3) = (0, 1 - B, B)
    # with B ~ Beta(3, 1); right is the largest region iff B > 1/2: 1 - 0.5**3 = 0.875
    res = sign_test([0.02, 0.05, 0.03], rope=0.01, random_state=1, draws=100_000)
    assert res.p_left == 0.0
    assert res.p_right == pytest.approx(0.875, abs=0.005)
    assert res.p_rope == pytest.approx(0.125, abs=0.005)


def test_sign_test_simulation_recovers_region_probabilities():
    rng = np.random.default_rng(4)
    z = rng.normal(0.01, 0.02, size=3000)
    truth = np.array([np.mean(z < -0.005), np.mean(np.abs(z) <= 0.005), np.mean(z > 0.005)])
    res = sign_test(z, rope=0.005, random_state=0, draws=5000)
    np.testing.assert_allclose(res.next_dataset.as_tuple(), truth, atol=0.002)
    # against the population values of the generating normal
    from scipy import stats

    pop = stats.norm(0.01, 0.02)
    np.testing.assert_allclose(
        res.next_dataset.as_tuple(),
        [pop.cdf(-0.005), pop.cdf(0.005) - pop.cdf(-0.005), pop.sf(0.005)],
        atol=0.03,
    )


# ------------------------------------------------------------ signed-rank test
def test_signed_rank_hand_worked_single_observation():
    # one dataset z1 = 0.05, pseudo-observation at 0 with weight s = 1: (w0, w1) ~ Dir(1, 1)
    # rope 0: theta_right = 0.5 w0^2 + 2 w0 w1 + w1^2 = 1 - 0.5 w0^2, E = 1 - 0.5 * 1/3 = 5/6
    res = signed_rank_test([0.05], rope=0.0, prior_strength=1.0, random_state=0, draws=200_000)
    assert res.next_dataset.p_right == pytest.approx(5 / 6, abs=0.003)
    assert res.next_dataset.p_rope == pytest.approx(0.0, abs=1e-12)
    assert res.p_right == 1.0  # 1 - 0.5 w0^2 > 0.5 w0^2 for every draw
    # rope 0.03: only z1 + z1 = 0.1 exceeds 2 * rope -> theta_right = w1^2, E = 2/((1+1)(2+1))
    res = signed_rank_test([0.05], rope=0.03, prior_strength=1.0, random_state=0, draws=200_000)
    assert res.next_dataset.p_right == pytest.approx(1 / 3, abs=0.003)
    assert res.next_dataset.p_left == 0.0


def test_signed_rank_vectorised_equals_a_loop_over_draws():
    z = np.array([0.02, -0.01, 0.0, 0.04, 0.015, -0.03])
    res = signed_rank_test(
        z, rope=0.01, prior_strength=0.5, random_state=5, draws=300, chunk_size=300
    )
    w = np.random.default_rng(5).dirichlet(np.r_[0.5, np.ones(6)], 300)
    zz = np.r_[0.0, z]
    for k in range(300):
        right = left = 0.0
        for i in range(7):
            for j in range(7):
                s = zz[i] + zz[j]
                right += w[k, i] * w[k, j] * ((s > 0.02) + 0.5 * (s == 0.02))
                left += w[k, i] * w[k, j] * ((-s > 0.02) + 0.5 * (-s == 0.02))
        assert res.sample[k, 2] == pytest.approx(right, abs=1e-12)
        assert res.sample[k, 0] == pytest.approx(left, abs=1e-12)


def test_signed_rank_simulation_matches_pairwise_average_probabilities():
    rng = np.random.default_rng(2)
    z = rng.normal(0.01, 0.02, size=400)
    # the quantity the test estimates: P((Z + Z') / 2 > rope) for independent Z, Z'
    from scipy import stats

    pair = stats.norm(0.01, 0.02 / np.sqrt(2))
    res = signed_rank_test(z, rope=0.005, random_state=0, draws=2000)
    np.testing.assert_allclose(
        res.next_dataset.as_tuple(),
        [pair.cdf(-0.005), pair.cdf(0.005) - pair.cdf(-0.005), pair.sf(0.005)],
        atol=0.04,
    )


def test_prior_at_infinity_favours_that_side():
    z = [0.001, -0.002, 0.0015, 0.0005]
    right = signed_rank_test(
        z, rope=0.0, prior_place="right", prior_strength=2.0, random_state=0, draws=5000
    )
    left = signed_rank_test(
        z, rope=0.0, prior_place="left", prior_strength=2.0, random_state=0, draws=5000
    )
    assert right.next_dataset.p_right > left.next_dataset.p_right


# ------------------------------------------------------------- common interface
def test_mapping_input_is_averaged_per_dataset_and_seeded():
    d = {"a": [0.01, 0.03], "b": [-0.02, 0.0, 0.01], "c": [0.05, 0.05]}
    res = signed_rank_test(d, rope=0.01, random_state=3, draws=1000)
    np.testing.assert_allclose(res.differences, [0.02, -1 / 300, 0.05])
    assert res.dataset_names == ("a", "b", "c")
    again = signed_rank_test(d, rope=0.01, random_state=3, draws=1000)
    np.testing.assert_array_equal(res.sample, again.sample)
    assert isinstance(res, RankTestResult)


@pytest.mark.parametrize("fn", [sign_test, signed_rank_test])
def test_bad_input(fn):
    with pytest.raises(ValueError, match="rope"):
        fn([0.1, 0.2], rope=-0.1)
    with pytest.raises(ValueError, match="prior_strength"):
        fn([0.1, 0.2], prior_strength=0)
    with pytest.raises(ValueError, match="prior_place"):
        fn([0.1, 0.2], prior_place="middle")
    with pytest.raises(ValueError, match="NaN"):
        fn([0.1, np.nan])
    with pytest.raises(ValueError, match="1-D"):
        fn(np.zeros((2, 2)))


def test_decision_summary_and_plot():
    from matplotlib.axes import Axes

    z = np.array([0.02, 0.03, 0.015, 0.04, 0.025, 0.03, 0.01, 0.05, 0.035, 0.02])
    res = signed_rank_test(
        z,
        rope=0.005,
        random_state=0,
        draws=5000,
        baseline_name="old",
        candidate_name="new",
        metric="auc",
    )
    assert res.decision(0.95).outcome == "promote"
    assert res.expected_gain == pytest.approx(z.sum() / (len(z) + 0.5), rel=0.05)
    s = res.summary()
    assert list(s.quantity) == ["baycomp_convention", "next_dataset"]
    ax = res.plot_simplex()
    assert isinstance(ax, Axes)
    assert "new better" in " ".join(t.get_text() for t in ax.texts)


# ---------------------------------------------------------- published numbers
@pytest.fixture(scope="module")
def nbc_aode_means(shared_data):
    from baycomp_data import load_baycomp_accuracies

    frame = load_baycomp_accuracies(shared_data / "baycomp_accuracies.txt")
    m = frame.groupby(["dataset", "model"])["accuracy"].mean().unstack()
    z = (m["aode"] - m["nbc"]).to_numpy()
    # the published analyses used all 54 rows, with `credit` twice
    return np.append(z, (m["aode"] - m["nbc"])["credit"])


def test_published_signed_rank_nbc_vs_aode(nbc_aode_means):
    """Benavoli et al.'s tutorial (bayesiantests.signrank, prior 0.6, rope 0.01, 54 datasets):
    P(NBC > AODE) = 0.0, P(rope) = 0.12, P(AODE > NBC) = 0.88."""
    res = signed_rank_test(nbc_aode_means, rope=0.01, prior_strength=0.6, random_state=0)
    assert res.p_left == pytest.approx(0.0, abs=0.005)
    assert res.p_rope == pytest.approx(0.12, abs=0.03)
    assert res.p_right == pytest.approx(0.88, abs=0.03)


def test_published_sign_test_nbc_vs_aode(nbc_aode_means):
    """Same tutorial, sign test (prior 1 on the rope): 0.0 / 0.71 / 0.29.  On this copy of the
    data the region counts are (3, 28, 23), which gives about 0.80 / 0.20: same direction,
    the rope most probable, aode never worse."""
    z = nbc_aode_means
    assert (np.sum(z < -0.01), np.sum(np.abs(z) <= 0.01), np.sum(z > 0.01)) == (3, 28, 23)
    res = sign_test(z, rope=0.01, random_state=0)
    assert res.p_left == pytest.approx(0.0, abs=0.005)
    assert 0.65 < res.p_rope < 0.9
    assert 0.1 < res.p_right < 0.35
