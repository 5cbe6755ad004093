"""bootstrap_metric: checked against scipy + scikit-learn directly,
and by coverage simulation against known population values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import accuracy_score, roc_auc_score

import bayescomp as bc
from bayescomp.metrics import _fast
from bayescomp.metrics import bootstrap as bmod
from bayescomp.metrics.bootstrap import DegenerateBootstrapWarning


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 150)
    score = np.round(y + rng.normal(0, 1, 150), 1)  # rounded: ties exercise the AUC path
    return y, score


@pytest.mark.parametrize(
    "method, scipy_method", [("bca", "BCa"), ("percentile", "percentile"), ("basic", "basic")]
)
def test_auc_interval_equals_scipy_with_sklearn_metric(binary, method, scipy_method):
    y, s = binary
    ours = bc.bootstrap_metric(y, s, "roc_auc", method=method, n_resamples=400, random_state=3)
    ref = stats.bootstrap(
        (y, s),
        lambda a, b: roc_auc_score(a, b),
        paired=True,
        vectorized=False,
        n_resamples=400,
        method=scipy_method,
        rng=np.random.default_rng(3),
    )
    assert ours.estimate == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=1e-10)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=1e-10)
    assert ours.standard_error == pytest.approx(ref.standard_error, abs=1e-10)
    assert ours.distribution.shape == (400,)


def test_label_metric_with_threshold_equals_scipy(binary):
    y, s = binary
    pred = (s >= 0.5).astype(int)
    ours = bc.bootstrap_metric(
        y, s, "accuracy", threshold=0.5, method="percentile", n_resamples=300, random_state=1
    )
    ref = stats.bootstrap(
        (y, pred),
        lambda a, b: accuracy_score(a, b),
        paired=True,
        vectorized=False,
        n_resamples=300,
        method="percentile",
        rng=np.random.default_rng(1),
    )
    assert (ours.low, ours.high) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)


def test_sklearn_metric_path_precision_and_specificity(binary):
    y, s = binary
    pred = (s >= 0.5).astype(int)
    from sklearn.metrics import precision_score, recall_score

    p = bc.bootstrap_metric(
        y, pred, "precision", method="percentile", n_resamples=200, random_state=0
    )
    assert p.estimate == pytest.approx(precision_score(y, pred))
    sp = bc.bootstrap_metric(
        y, pred, "specificity", method="percentile", n_resamples=200, random_state=0
    )
    assert sp.estimate == pytest.approx(recall_score(y, pred, pos_label=0))
    assert sp.low < sp.estimate < sp.high


def test_stratified_resamples_keep_class_counts(binary):
    y, s = binary

    def prevalence(t, p):
        return float(np.mean(t))

    with pytest.warns(DegenerateBootstrapWarning):
        res = bc.bootstrap_metric(
            y, s, prevalence, stratify=True, method="percentile", n_resamples=200, random_state=0
        )
    assert np.all(res.distribution == y.mean())
    plain = bc.bootstrap_metric(
        y, s, prevalence, method="percentile", n_resamples=200, random_state=0
    )
    assert plain.distribution.std() > 0.01


def test_fast_auc_paths_equal_sklearn():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    s = np.round(rng.normal(size=400) + y, 1)
    rows = rng.integers(0, 400, size=(7, 400))
    np.testing.assert_allclose(
        _fast.auc_rows(y == 1, s, rows), [roc_auc_score(y[r], s[r]) for r in rows], atol=1e-12
    )
    w = rng.multinomial(5000, np.ones(400) / 400, size=6)
    np.testing.assert_allclose(
        _fast.auc_weighted(y == 1, s, w),
        [roc_auc_score(y, s, sample_weight=wi) for wi in w],
        atol=1e-12,
    )
    for prev in (0.1, 0.9):
        yy = rng.random(3000) < prev
        ss = np.round(rng.normal(size=3000) + yy, 1)
        assert _fast.auc_low_memory(yy, ss, chunk=257) == pytest.approx(roc_auc_score(yy, ss))


def _coverage(metric, make, truth, reps, **kw):
    hits = 0
    for i in range(reps):
        y, pred = make(np.random.default_rng(1000 + i))
        ci = bc.bootstrap_metric(y, pred, metric, random_state=i, **kw)
        hits += ci.low <= truth <= ci.high
    return hits / reps


def _accuracy_population(rng, n=200, acc=0.8):
    y = rng.integers(0, 2, n)
    correct = rng.random(n) < acc
    return y, np.where(correct, y, 1 - y)


def test_coverage_accuracy_known_population():
    # accuracy of a fixed classifier that is right with probability 0.8: population value 0.8
    cov = _coverage(
        "accuracy", _accuracy_population, 0.8, reps=300, method="percentile", n_resamples=400
    )
    assert 0.915 <= cov <= 0.98, cov


@pytest.mark.slow
def test_coverage_auc_binormal_bca():
    d = 1.0
    truth = stats.norm.cdf(d / np.sqrt(2))  # AUC of N(d,1) vs N(0,1)

    def make(rng, n=150):
        y = rng.integers(0, 2, n)
        return y, rng.normal(0, 1, n) + d * y

    cov = _coverage("roc_auc", make, truth, reps=600, method="bca", n_resamples=1000, stratify=True)
    assert 0.93 <= cov <= 0.97, cov


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (([], [], "accuracy"), {}, "empty"),
        (([0, 1, 1], [0.2, np.nan, 0.7], "roc_auc"), {}, "NaN"),
        (([1, 1, 1], [0.2, 0.4, 0.7], "roc_auc"), {}, "both classes"),
        (([0, 1, 1], [0.2, 0.4, 0.7], "accuracy"), {}, "threshold="),
        (([0, 1, 1], [0, 1], "accuracy"), {}, "one entry per test row"),
        (([0, 1, 1, 0], [0, 1, 1, 1], "no_such_metric"), {}, "unknown metric"),
        (([0, 1, 1, 0], [0, 1, 1, 1], "accuracy"), {"n_resamples": 10}, "n_resamples"),
        (([0, 1, 1, 0], [0, 1, 1, 1], "accuracy"), {"n_resamples": 150.5}, "an integer >= 100"),
        (([0, 1, 1, 0], [0, 1, 1, 1], "accuracy"), {"n_resamples": "x"}, "^n_resamples must"),
        (([0, 1, 1, 0], [0, 1, 1, 1], "accuracy"), {"method": "student"}, "method"),
        (([0, 1, 1, 0], [0, 1, 1, 1], "neg_log_loss"), {}, "negated"),
    ],
)
def test_bad_input_raises(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        bc.bootstrap_metric(*args, **kwargs)


def test_undefined_on_resamples_is_an_error_not_nan():
    y = np.array([0] * 48 + [1] * 2)
    s = np.random.default_rng(0).random(50)
    with pytest.raises(ValueError, match="stratify=True"):
        bc.bootstrap_metric(y, s, "roc_auc", method="percentile", n_resamples=500, random_state=0)
    ok = bc.bootstrap_metric(
        y, s, "roc_auc", method="percentile", n_resamples=500, random_state=0, stratify=True
    )
    assert np.isfinite(ok.low)


def test_bca_refused_above_row_limit(monkeypatch, binary):
    y, s = binary
    monkeypatch.setattr(bmod, "BCA_MAX_ROWS", 100)
    with pytest.raises(ValueError, match="percentile"):
        bc.bootstrap_metric(y, s, "roc_auc")


def test_result_summary_and_plot(binary):
    y, s = binary
    ci = bc.bootstrap_metric(y, s, "roc_auc", n_resamples=200, random_state=0)
    row = ci.summary().iloc[0]
    assert row["low"] == ci.low and row["method"] == "bca" and row["n"] == 150
    ax = ci.plot()
    assert ax.get_xlabel() == "roc_auc"
    assert ci.contains(ci.estimate)


def test_threshold_with_string_labels_needs_pos_label(binary):
    """Used to raise numpy's DTypePromotionError (a TypeError) from np.where."""
    y, s = binary
    names = np.where(y == 1, "pos", "neg")
    msg = (
        "pos_label=1 is not among y_true's labels ['neg', 'pos']; pass pos_label= with "
        "the positive class (e.g. pos_label='pos')"
    )
    for call in (lambda **kw: bc.bootstrap_metric(names, s, "accuracy", threshold=0.5, **kw),):
        with pytest.raises(ValueError) as err:
            call(n_resamples=100, random_state=0)
        assert str(err.value) == msg
    # a single-class test set of strings with a numeric pos_label is refused too
    with pytest.raises(ValueError, match=r"pos_label=1 is not among y_true's labels \['neg'\]"):
        bc.bootstrap_metric(np.array(["neg"] * 20), s[:20], "accuracy", threshold=0.5)
    # ... but a numeric single-class test set with the default pos_label=1 still works
    only_neg = bc.bootstrap_metric(
        np.zeros(40, int),
        s[:40],
        "accuracy",
        threshold=0.5,
        method="percentile",
        n_resamples=100,
        random_state=0,
    )
    assert only_neg.estimate == pytest.approx(np.mean(s[:40] < 0.5))
    ok = bc.bootstrap_metric(
        names,
        s,
        "accuracy",
        threshold=0.5,
        pos_label="pos",
        method="percentile",
        n_resamples=300,
        random_state=1,
    )
    ref = bc.bootstrap_metric(
        y, s, "accuracy", threshold=0.5, method="percentile", n_resamples=300, random_state=1
    )
    assert ok.estimate == pytest.approx(accuracy_score(names, np.where(s >= 0.5, "pos", "neg")))
    assert (ok.low, ok.high) == (ref.low, ref.high)


def test_specificity_undefined_on_resamples_without_negatives():
    """A resample with no negative made specificity raise 'needs binary labels'; it is
    undefined there (NaN), exactly like recall(pos_label=0)."""
    from sklearn.metrics import recall_score

    from bayescomp.metrics._metric import resolve_metric

    y = np.r_[np.ones(28, int), np.zeros(2, int)]
    p = y.copy()
    p[0] = 0
    kw = dict(method="percentile", n_resamples=200, random_state=0)
    with pytest.raises(ValueError) as err:
        bc.bootstrap_metric(y, p, "specificity", **kw)
    assert str(err.value) == (
        "metric 'specificity' was undefined on 22 of 200 bootstrap resamples (typically a "
        "resample without a positive, or with a single class); use stratify=True to keep "
        "every class in each resample, or a larger test set"
    )
    with pytest.raises(ValueError) as ref:
        bc.bootstrap_metric(y, p, "recall", pos_label=0, **kw)
    assert str(ref.value) == str(err.value).replace("'specificity'", "'recall'")
    # 22 of 200 fits the chance of drawing neither negative, (28/30)^30 = 0.126
    assert stats.binom(200, (28 / 30) ** 30).cdf(22) > 0.05
    assert stats.binom(200, (28 / 30) ** 30).sf(21) > 0.05
    with pytest.warns(DegenerateBootstrapWarning, match="specificity = 1"):
        sp = bc.bootstrap_metric(y, p, "specificity", stratify=True, **kw)
    with pytest.warns(DegenerateBootstrapWarning, match="recall = 1"):
        rc = bc.bootstrap_metric(y, p, "recall", pos_label=0, stratify=True, **kw)
    assert sp.estimate == recall_score(y, p, pos_label=0) == 1.0
    assert (sp.low, sp.high) == (rc.low, rc.high)
    spec = resolve_metric("specificity")
    assert np.isnan(spec(np.ones(5, int), np.r_[np.ones(4, int), 0]))
    with pytest.raises(
        ValueError,
        match=r"specificity needs binary labels with positive "
        r"class 1; y_true holds \[0, 1, 2\]",
    ):
        spec(np.array([0, 1, 2]), np.array([0, 1, 1]))
