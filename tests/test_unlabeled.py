"""precision_at_k_unlabeled: a hand-worked case and a constructed pool whose labels are known."""

from __future__ import annotations

import numpy as np
import pytest

import bayescomp as bc
from bayescomp.metrics.unlabeled import PrecisionAboveOneWarning


def test_hand_worked_case():
    test_s = np.array([0.9, 0.8, 0.6, 0.4, 0.7, 0.2])
    test_y = np.array([1, 1, 1, 1, 0, 0])
    pool = np.array([0.95, 0.85, 0.75, 0.5, 0.3, 0.1])
    res = bc.precision_at_k_unlabeled(test_s, test_y, pool, class_size=2)
    t = res.table
    # k-th highest pool score is the threshold; recall = positives >= threshold / 4
    assert t["threshold"].tolist() == [0.95, 0.85, 0.75, 0.5, 0.3, 0.1]
    assert t["recall_at_k"].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    np.testing.assert_allclose(t["precision_at_k"], [0, 0.25, 1 / 3, 0.375, 0.4, 1 / 3])
    f1 = 2 * t["precision_at_k"] * t["recall_at_k"] / (t["precision_at_k"] + t["recall_at_k"])
    np.testing.assert_allclose(t["f1_at_k"], f1.fillna(0.0))
    assert res.best_k == 5 and res.best_threshold == 0.3
    assert res.best_f1 == pytest.approx(2 * 0.4 / 1.4)


def _population(rng, n_test_pos, n_test_neg, n_pool_pos, n_pool_neg, shift=0.0):
    test_s = np.r_[rng.normal(2 + shift, 1, n_test_pos), rng.normal(0, 1, n_test_neg)]
    test_y = np.r_[np.ones(n_test_pos, int), np.zeros(n_test_neg, int)]
    pool_s = np.r_[rng.normal(2, 1, n_pool_pos), rng.normal(0, 1, n_pool_neg)]
    pool_y = np.r_[np.ones(n_pool_pos, int), np.zeros(n_pool_neg, int)]
    return test_s, test_y, pool_s, pool_y


def test_estimates_match_the_known_pool_labels():
    rng = np.random.default_rng(0)
    test_s, test_y, pool_s, pool_y = _population(rng, 3000, 500, 3000, 27000)
    res = bc.precision_at_k_unlabeled(test_s, test_y, pool_s, class_size=3000)
    order = np.argsort(-pool_s)
    k = np.arange(1, pool_s.size + 1)
    true_prec = np.cumsum(pool_y[order]) / k
    for kk in (1000, 2000, 3000, 5000, 8000):
        assert res.table.loc[kk, "precision_at_k"] == pytest.approx(true_prec[kk - 1], abs=0.04)
    # the chosen threshold is near-optimal for the true F1 on the pool
    true_f1 = 2 * np.cumsum(pool_y[order]) / (k + 3000)
    assert true_f1[res.best_k - 1] >= true_f1.max() - 0.01
    # representative labels: the raw ratio may poke above 1 at a few tiny k by chance, never
    # beyond its sampling error
    assert res.n_above_one_significant == 0
    assert res.n_above_one == int((res.table["precision_at_k_raw"] > 1).sum())


def test_precision_over_one_flags_unrepresentative_labels():
    rng = np.random.default_rng(1)
    # labeled members are much easier than the pool's members
    test_s, test_y, pool_s, _ = _population(rng, 2000, 500, 3000, 27000, shift=1.5)
    with pytest.warns(PrecisionAboveOneWarning, match="do not represent"):
        res = bc.precision_at_k_unlabeled(test_s, test_y, pool_s, class_size=3000)
    assert res.n_above_one_significant > 100
    assert res.table["above_one"].sum() == res.n_above_one >= res.n_above_one_significant
    assert res.best_f1 <= 1.0  # F1 uses precision capped at 1


def test_class_size_interval_bounds_precision():
    rng = np.random.default_rng(2)
    test_s, test_y, pool_s, _ = _population(rng, 1000, 300, 1000, 9000)
    res = bc.precision_at_k_unlabeled(test_s, test_y, pool_s, class_size=(800, 1200))
    t = res.table
    k = t.index.to_numpy()
    np.testing.assert_allclose(
        t["precision_at_k_lower"], np.minimum(t["recall_at_k"] * 800 / k, 1.0)
    )
    np.testing.assert_allclose(
        t["precision_at_k_upper"], np.minimum(t["recall_at_k"] * 1200 / k, 1.0)
    )
    assert (t["f1_at_k_lower"] <= t["f1_at_k"] + 1e-12).all()
    assert (t["f1_at_k"] <= t["f1_at_k_upper"] + 1e-12).all()
    lo_t, hi_t = res.best_threshold_range
    assert lo_t <= res.best_threshold + 1e-12 or hi_t >= res.best_threshold - 1e-12
    assert res.class_size == (800.0, 1200.0)


def test_multiclass_is_per_class_binary():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 3, 600)
    test = rng.random((600, 3)) + np.eye(3)[labels]
    pool = rng.random((3000, 3)) + np.eye(3)[rng.integers(0, 3, 3000)]
    out = bc.precision_at_k_unlabeled(test, labels, pool, class_size={0: 1000, 2: (900, 1100)})
    assert set(out) == {0, 2}
    single = bc.precision_at_k_unlabeled(
        test[:, 2], labels, pool[:, 2], (900, 1100), positive_class=2
    )
    np.testing.assert_array_equal(out[2].table.to_numpy(), single.table.to_numpy())


@pytest.mark.parametrize(
    "size, match",
    [
        (0, "positive"),
        (-5, "positive"),
        (11, "exceeds"),
        ((5, 3), "low > high"),
        ("many", "number"),
        ((1, 2, 3), "interval"),
    ],
)
def test_bad_class_size(size, match):
    with pytest.raises(ValueError, match=match):
        bc.precision_at_k_unlabeled([0.1, 0.9], [0, 1], np.linspace(0, 1, 10), size)


def test_bad_scores():
    with pytest.raises(ValueError, match="NaN"):
        bc.precision_at_k_unlabeled([0.1, np.nan], [0, 1], [0.5, 0.6], 1)
    with pytest.raises(ValueError, match="empty"):
        bc.precision_at_k_unlabeled([0.1, 0.3], [0, 1], [], 1)
    with pytest.raises(ValueError, match="no member"):
        bc.precision_at_k_unlabeled([0.1, 0.3], [0, 0], [0.5, 0.6], 1)
    with pytest.raises(ValueError, match="one label per test row"):
        bc.precision_at_k_unlabeled([0.1, 0.3], [0, 0, 1], [0.5, 0.6], 1)
    with pytest.raises(ValueError, match=r"^unlabeled_scores must be real-valued scores, got comp"):
        bc.precision_at_k_unlabeled([0.1, 0.3], [0, 1], [0.5 + 1j, 0.6], 1)


def test_plot_and_best_row():
    rng = np.random.default_rng(4)
    test_s, test_y, pool_s, _ = _population(rng, 300, 100, 300, 2700)
    res = bc.precision_at_k_unlabeled(test_s, test_y, pool_s, class_size=300)
    row = res.table.loc[res.best_k]
    assert row["threshold"] == res.best_threshold
    assert row["f1_at_k"] == pytest.approx(res.best_f1)
    ax = res.plot()
    assert ax.get_ylabel() == "recall@k"
    ax = bc.precision_at_k_unlabeled(test_s, test_y, pool_s, class_size=(250, 350)).plot()
    assert ax.get_xlabel().startswith("k")


def test_precision_is_bounded_and_flags_agree_with_the_numbers():
    """A few labeled members at the very top: the raw ratio recall * C / k reaches 4 at
    small k, too few labeled rows for that to be significant.  The reported precision is
    capped at 1, ``above_one`` is exactly ``raw > 1`` and the conservative flag is a
    subset of it."""
    import warnings

    rng = np.random.default_rng(7)
    test_s = np.r_[rng.normal(3, 0.1, 5), rng.normal(0, 1, 200)]
    test_y = np.r_[np.ones(5, int), np.zeros(200, int)]
    pool = rng.normal(0, 1, 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bc.precision_at_k_unlabeled(test_s, test_y, pool, class_size=(8, 12))
    t = res.table
    k = t.index.to_numpy()
    raw = t["recall_at_k"].to_numpy() * 10 / k  # independent: the definition
    np.testing.assert_allclose(t["precision_at_k_raw"], raw)
    assert raw.max() >= 4.0
    assert (t["precision_at_k"] <= 1.0).all() and (t["precision_at_k_upper"] <= 1.0).all()
    np.testing.assert_allclose(t["precision_at_k"], np.minimum(raw, 1.0))
    np.testing.assert_array_equal(t["above_one"], raw > 1)
    assert not (t["above_one_significant"] & ~t["above_one"]).any()
    assert res.n_above_one == int((raw > 1).sum())
    assert res.n_above_one_significant == int(t["above_one_significant"].sum())
