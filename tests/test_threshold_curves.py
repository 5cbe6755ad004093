"""threshold_curves: fixed thresholds across repetitions, checked against scikit-learn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score, precision_score, recall_score

import bayescomp as bc


@pytest.fixture(scope="module")
def reps():
    rng = np.random.default_rng(0)
    out = []
    for _ in range(6):
        y = rng.integers(0, 2, 60)
        p = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, 60), 0, 1)
        out.append((y, np.round(p, 2)))
    return out


def test_values_equal_sklearn_at_each_threshold(reps):
    thr = np.linspace(0, 1, 11)
    cur = bc.threshold_curves(
        predictions=reps, thresholds=thr, metrics=("precision", "recall", "fpr", "f1", "accuracy")
    )
    for r, (y, s) in enumerate(reps):
        for j, t in enumerate(cur.thresholds):
            pred = (s >= t).astype(int)
            if pred.sum():
                assert cur.metric_values("precision")[r, j] == pytest.approx(
                    precision_score(y, pred)
                )
                assert cur.metric_values("f1")[r, j] == pytest.approx(f1_score(y, pred))
            else:
                assert np.isnan(cur.metric_values("precision")[r, j])
            assert cur.metric_values("recall")[r, j] == pytest.approx(recall_score(y, pred))
            assert cur.metric_values("fpr")[r, j] == pytest.approx(
                1 - recall_score(y, pred, pos_label=0)
            )
            assert cur.metric_values("accuracy")[r, j] == pytest.approx(np.mean(pred == y))


def test_undefined_precision_is_counted_not_zeroed(reps):
    cur = bc.threshold_curves(predictions=reps, thresholds=[0.5, 0.99, 1.0])
    top = max(s.max() for _, s in reps)
    s = cur.summary("precision")
    expected = sum((sc >= 0.99).any() for _, sc in reps)
    assert s.loc[0.99, "n_defined"] == expected
    assert s.loc[0.5, "n_defined"] == 6 and s.loc[0.5, "n_repetitions"] == 6
    if top < 1.0:
        assert s.loc[1.0, "n_defined"] == 0 and np.isnan(s.loc[1.0, "mean"])
    # recall is defined (0) where precision is not
    assert cur.summary("recall").loc[1.0, "n_defined"] == 6


def test_summary_matches_pandas_groupby(reps):
    cur = bc.threshold_curves(predictions=reps, thresholds=np.linspace(0, 1, 21))
    long = cur.to_frame()
    ref = (
        long[long.metric == "precision"]
        .groupby("threshold")["value"]
        .agg(["mean", "std", "min", "max", "count"])
    )
    s = cur.summary("precision")
    np.testing.assert_allclose(s["mean"], ref["mean"], equal_nan=True)
    np.testing.assert_allclose(s["std"], ref["std"], equal_nan=True)
    np.testing.assert_allclose(s["min"], ref["min"], equal_nan=True)
    np.testing.assert_array_equal(s["n_defined"], ref["count"])
    both = cur.summary()
    assert ("recall", "q95") in both.columns and ("fpr", "median") in both.columns


def test_predictions_table_input_equals_pairs(reps):
    frame = pd.concat(
        [
            pd.DataFrame({"repetition": r, "y_true": y, "y_score": s})
            for r, (y, s) in enumerate(reps)
        ]
    )
    a = bc.threshold_curves(predictions=frame)
    b = bc.threshold_curves(predictions=reps)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.thresholds.size == 101


def test_estimator_path_uses_every_split():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import ShuffleSplit
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression())
    cur = bc.threshold_curves(
        model,
        X,
        y,
        cv=ShuffleSplit(5, test_size=0.33, random_state=0),
        thresholds=np.linspace(0, 1, 11),
        n_jobs=1,
    )
    assert cur.n_repetitions == 5 and (cur.n_test == 188).all()
    # at threshold 0 every row is predicted positive: recall 1 and precision = prevalence
    s = cur.summary()
    assert s.loc[0.0, ("recall", "mean")] == 1.0
    assert 0.55 < s.loc[0.0, ("precision", "mean")] < 0.7


def test_small_data_bands_are_wider_seed_000():
    """Seed 000: 50 rows (3 features) give much wider precision bands than all 569 rows."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import ShuffleSplit

    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(12)
    X = X[:, rng.choice(X.shape[1], 3, replace=False)]
    small = rng.choice(len(y), 50, replace=False)
    cv = ShuffleSplit(10, test_size=0.33, random_state=0)
    rf = RandomForestClassifier(n_estimators=30, random_state=0)
    thr = np.linspace(0.5, 0.9, 5)
    c50 = bc.threshold_curves(rf, X[small], y[small], cv=cv, thresholds=thr)
    call = bc.threshold_curves(rf, X, y, cv=cv, thresholds=thr)
    # recall: wider at every threshold; precision: wider on average over the thresholds
    assert (c50.summary("recall")["std"] > 1.5 * call.summary("recall")["std"]).all()
    assert c50.summary("precision")["std"].mean() > 1.5 * call.summary("precision")["std"].mean()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"thresholds": [-0.1, 0.5]}, r"\[0, 1\]"),
        ({"thresholds": [1.5]}, r"\[0, 1\]"),
        ({"metrics": ("precision", "auc")}, "unknown curve metric"),
        ({"thresholds": []}, "non-empty"),
    ],
)
def test_bad_thresholds_and_metrics(reps, kwargs, match):
    with pytest.raises(ValueError, match=match):
        bc.threshold_curves(predictions=reps, **kwargs)


def test_bad_inputs():
    with pytest.raises(ValueError, match="exactly one"):
        bc.threshold_curves()
    with pytest.raises(ValueError, match="NaN"):
        bc.threshold_curves(predictions=[(np.array([0, 1]), np.array([0.1, np.nan]))])
    with pytest.raises(ValueError, match="own scale"):
        bc.threshold_curves(predictions=[(np.array([0, 1]), np.array([-2.0, 3.0]))])
    ok = bc.threshold_curves(
        predictions=[(np.array([0, 1]), np.array([-2.0, 3.0]))], thresholds=[-3, 0, 4]
    )
    assert ok.summary("recall")["mean"].tolist() == [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="no test rows"):
        bc.threshold_curves(predictions=[(np.array([]), np.array([]))])


def test_plots(reps):
    cur = bc.threshold_curves(predictions=reps, thresholds=np.linspace(0, 1, 21))
    ax = cur.plot("pr")
    assert ax.get_xlabel() == "recall" and ax.get_ylabel() == "precision"
    ax = cur.plot("roc", band="quantile")
    assert ax.get_xlabel() == "false positive rate"
    ax = cur.plot("recall")
    assert ax.get_xlabel() == "threshold"
    with pytest.raises(ValueError, match="band"):
        cur.plot("pr", band="sd")


def test_pos_label_must_be_among_the_labels(reps):
    """String labels with the default pos_label=1 used to give precision 0.0 silently."""
    names = [(np.where(y == 1, "pos", "neg"), s) for y, s in reps]
    msg = (
        "pos_label=1 is not among y_true's labels ['neg', 'pos']; pass pos_label= with "
        "the positive class (e.g. pos_label='pos')"
    )
    with pytest.raises(ValueError) as err:
        bc.threshold_curves(predictions=names, thresholds=[0.5])
    assert str(err.value) == msg
    # a label present in only one repetition still counts (labels over all repetitions)
    only_late = [(np.zeros(4, int), np.full(4, 0.2)), (np.array([0, 2, 2]), np.full(3, 0.7))]
    cur = bc.threshold_curves(
        predictions=only_late, thresholds=[0.5], pos_label=2, metrics=("recall",)
    )
    assert cur.summary("recall")["n_defined"].tolist() == [1]
    with pytest.raises(ValueError, match=r"pos_label=1 is not among y_true's labels \[0, 2\]"):
        bc.threshold_curves(predictions=only_late, thresholds=[0.5])
    # with the right pos_label the string labels give sklearn's numbers
    cur = bc.threshold_curves(
        predictions=names, thresholds=[0.5], pos_label="pos", metrics=("precision",)
    )
    ref = [precision_score(y, np.where(s >= 0.5, "pos", "neg"), pos_label="pos") for y, s in names]
    np.testing.assert_allclose(cur.values[0, :, 0], ref)
