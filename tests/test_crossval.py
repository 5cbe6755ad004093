"""Paired cross-validation: same splits for every model, sklearn-equal scores, any backend."""

from __future__ import annotations

import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_iris, make_classification
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import get_scorer
from sklearn.model_selection import (
    KFold,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
    cross_validate,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

import bayescomp as bc
from bayescomp.scores.crossval import FitFailedWarning
from bayescomp.splits.design import materialise_splits


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    return X, y


def models():
    return {
        "nb": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
        "lr": LogisticRegression(max_iter=1000),
    }


class RowRecorder(ClassifierMixin, BaseEstimator):
    """Predicts the majority class and remembers the ids of its training rows (column 0)."""

    def __init__(self, tag: str = ""):
        self.tag = tag

    def fit(self, X, y):
        self.train_ids_ = np.sort(np.asarray(X)[:, 0].astype(int))
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def fingerprint_scorer(est, X, y):
    """A 'score' that encodes which rows were used for training and for testing."""
    train = est.train_ids_.astype(float)
    test = np.sort(np.asarray(X)[:, 0]).astype(float)
    return float(np.sum(train**2) + 1e-3 * np.sum(test**1.5))


def expected_fingerprints(design):
    return np.array(
        [
            np.sum(np.sort(tr).astype(float) ** 2) + 1e-3 * np.sum(np.sort(te).astype(float) ** 1.5)
            for tr, te in design.splits
        ]
    )


# ---------------------------------------------------------------- pairing
def test_every_model_sees_exactly_the_same_splits():
    n = 60
    X = np.c_[np.arange(n), np.random.default_rng(0).normal(size=n)]
    y = np.r_[np.zeros(30), np.ones(30)]
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=1)
    s = bc.cross_validate_paired(
        {"a": RowRecorder("a"), "b": RowRecorder("b")},
        X,
        y,
        cv=cv,
        scoring=fingerprint_scorer,
        progress=False,
    )
    f = s.to_frame()
    fa = f.loc[f["model"] == "a"].sort_values("split")["fingerprint_scorer"].to_numpy()
    fb = f.loc[f["model"] == "b"].sort_values("split")["fingerprint_scorer"].to_numpy()
    assert np.array_equal(fa, fb)
    assert np.array_equal(fa, expected_fingerprints(s.design))
    # the splits really are those of the splitter
    ref = list(cv.split(X, y))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(ref, s.design.splits, strict=True))
    assert len(set(fa)) == 15


def test_scores_equal_sklearn_cross_validate_on_same_splits(data):
    X, y = data
    cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=0)
    scoring = ["accuracy", "roc_auc", "f1"]
    s = bc.cross_validate_paired(models(), X, y, cv=cv, scoring=scoring, progress=False)
    f = s.to_frame()
    splits = s.design.splits
    for name, est in models().items():
        ref = cross_validate(est, X, y, cv=splits, scoring=scoring)
        got = f[f["model"] == name].sort_values("split")
        for m in scoring:
            np.testing.assert_array_equal(got[m].to_numpy(), ref[f"test_{m}"])
        assert (got["fit_time"] > 0).all() and (got["score_time"] > 0).all()
    assert s.metrics == scoring
    assert s.models == ["nb", "tree", "lr"]


def test_table_columns_repeat_fold_sizes(data):
    X, y = data
    s = bc.cross_validate_paired(
        models(),
        X,
        y,
        progress=False,
        scoring="accuracy",
        cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0),
    )
    f = s.to_frame()
    assert list(f.columns) == [
        "dataset",
        "model",
        "split",
        "repeat",
        "fold",
        "n_train",
        "n_test",
        "fit_time",
        "score_time",
        "accuracy",
    ]
    one = f[f["model"] == "nb"]
    assert one["repeat"].tolist() == [0, 0, 0, 1, 1, 1]
    assert one["fold"].tolist() == [0, 1, 2, 0, 1, 2]
    assert (one["n_train"] + one["n_test"] == 120).all()
    assert s.rho() == pytest.approx(1 / 3)
    assert len(s) == 18 and s.datasets == ["data"]


@pytest.mark.parametrize(
    "cv,repeat,fold,rho",
    [
        (
            RepeatedKFold(n_splits=4, n_repeats=2, random_state=0),
            [0, 0, 0, 0, 1, 1, 1, 1],
            [0, 1, 2, 3, 0, 1, 2, 3],
            0.25,
        ),
        (
            ShuffleSplit(n_splits=5, test_size=0.2, random_state=0),
            [0, 1, 2, 3, 4],
            [0, 0, 0, 0, 0],
            0.2,
        ),
        (KFold(n_splits=5), [0] * 5, [0, 1, 2, 3, 4], 0.2),
    ],
)
def test_repeat_and_fold_for_splitters(data, cv, repeat, fold, rho):
    X, y = data
    s = bc.cross_validate_paired(
        {"a": GaussianNB(), "b": DummyClassifier()}, X, y, cv=cv, scoring="accuracy", progress=False
    )
    f = s.to_frame()
    one = f[f["model"] == "a"].sort_values("split")
    assert one["repeat"].tolist() == repeat and one["fold"].tolist() == fold
    assert s.rho() == pytest.approx(rho)


def test_cv_as_int_matches_sklearn(data):
    X, y = data
    s = bc.cross_validate_paired(
        {"nb": GaussianNB(), "d": DummyClassifier()}, X, y, cv=5, scoring="accuracy", progress=False
    )
    # an int means StratifiedKFold for classifiers, as in scikit-learn
    ref_splits = list(StratifiedKFold(5).split(X, y))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(ref_splits, s.design.splits, strict=True))
    ref = cross_validate(GaussianNB(), X, y, cv=5, scoring="accuracy")["test_score"]
    f = s.to_frame()
    np.testing.assert_array_equal(f.loc[f["model"] == "nb", "accuracy"].to_numpy(), ref)


def test_cv_as_list_of_pairs_and_masks(data):
    X, y = data
    rng = np.random.default_rng(0)
    pairs = []
    for _ in range(4):
        perm = rng.permutation(120)
        pairs.append((perm[:90], perm[90:]))
    mask = np.zeros(120, dtype=bool)
    mask[:30] = True
    pairs.append((~mask, mask))  # boolean masks are accepted too
    s = bc.cross_validate_paired(
        {"nb": GaussianNB(), "d": DummyClassifier()},
        X,
        y,
        cv=pairs,
        scoring="accuracy",
        progress=False,
    )
    assert len(s.design) == 5 and s.rho() == pytest.approx(0.25)
    f = s.to_frame()
    assert (f["repeat"] == -1).all() and (f["fold"] == -1).all()
    ref = cross_validate(
        GaussianNB(),
        X,
        y,
        cv=[
            (np.flatnonzero(~m), np.flatnonzero(m)) if m.dtype == bool else (t, m) for t, m in pairs
        ],
        scoring="accuracy",
    )
    np.testing.assert_array_equal(
        f.loc[f["model"] == "nb", "accuracy"].to_numpy(), ref["test_score"]
    )
    # a generator of pairs works as well
    gen = ((tr, te) for tr, te in pairs)
    s2 = bc.cross_validate_paired(
        {"nb": GaussianNB(), "d": DummyClassifier()},
        X,
        y,
        cv=gen,
        scoring="accuracy",
        progress=False,
    )
    assert s2.to_frame()["accuracy"].tolist() == f["accuracy"].tolist()


def test_bad_cv_is_refused(data):
    X, y = data
    m = {"nb": GaussianNB(), "d": DummyClassifier()}
    with pytest.raises(ValueError, match="at least 2"):
        bc.cross_validate_paired(m, X, y, cv=[(np.arange(90), np.arange(90, 120))], progress=False)
    with pytest.raises(ValueError, match="both its training and test set"):
        bc.cross_validate_paired(
            m, X, y, cv=[(np.arange(100), np.arange(90, 120))] * 2, progress=False
        )
    with pytest.raises(ValueError, match="not a \\(train, test\\) pair"):
        bc.cross_validate_paired(m, X, y, cv=[1, 2, 3], progress=False)
    with pytest.raises(ValueError, match="outside"):
        bc.cross_validate_paired(
            m, X, y, cv=[(np.arange(90), np.arange(90, 130))] * 2, progress=False
        )
    with pytest.raises(ValueError, match="non-empty dict"):
        bc.cross_validate_paired([GaussianNB()], X, y, cv=3, progress=False)
    with pytest.raises(ValueError, match="not a scikit-learn estimator"):
        bc.cross_validate_paired({"x": object()}, X, y, cv=3, progress=False)


# --------------------------------------------------------------- scoring
def test_scoring_forms(data):
    X, y = data
    cv = KFold(3, shuffle=True, random_state=0)
    m = {"nb": GaussianNB(), "lr": LogisticRegression(max_iter=1000)}
    ref_acc = {
        k: cross_validate(e, X, y, cv=cv, scoring="accuracy")["test_score"] for k, e in m.items()
    }

    def col(s, model, metric):
        f = s.to_frame()
        return f.loc[f["model"] == model, metric].to_numpy()

    none = bc.cross_validate_paired(m, X, y, cv=cv, scoring=None, progress=False)
    assert none.metrics == ["score"]  # the estimator's own score: accuracy for classifiers
    np.testing.assert_array_equal(col(none, "lr", "score"), ref_acc["lr"])

    one = bc.cross_validate_paired(m, X, y, cv=cv, scoring="accuracy", progress=False)
    np.testing.assert_array_equal(col(one, "nb", "accuracy"), ref_acc["nb"])

    def my_metric(est, X_, y_):
        return float(np.mean(est.predict(X_) == y_))

    call = bc.cross_validate_paired(m, X, y, cv=cv, scoring=my_metric, progress=False)
    assert call.metrics == ["my_metric"]
    np.testing.assert_array_equal(col(call, "nb", "my_metric"), ref_acc["nb"])

    d = bc.cross_validate_paired(
        m,
        X,
        y,
        cv=cv,
        progress=False,
        scoring={"acc": "accuracy", "auc": get_scorer("roc_auc"), "mine": my_metric},
    )
    assert d.metrics == ["acc", "auc", "mine"]
    ref_auc = cross_validate(m["lr"], X, y, cv=cv, scoring="roc_auc")["test_score"]
    np.testing.assert_array_equal(col(d, "lr", "auc"), ref_auc)
    np.testing.assert_array_equal(col(d, "lr", "mine"), ref_acc["lr"])

    lst = bc.cross_validate_paired(
        m, X, y, cv=cv, scoring=("neg_log_loss", "accuracy"), progress=False
    )
    assert lst.metrics == ["neg_log_loss", "accuracy"]
    assert (col(lst, "nb", "neg_log_loss") < 0).all()

    with pytest.raises(ValueError, match="unknown scoring 'acuracy'"):
        bc.cross_validate_paired(m, X, y, cv=cv, scoring="acuracy", progress=False)
    with pytest.raises(ValueError, match="without repeats"):
        bc.cross_validate_paired(m, X, y, cv=cv, scoring=["accuracy", "accuracy"], progress=False)
    with pytest.raises(ValueError, match="empty"):
        bc.cross_validate_paired(m, X, y, cv=cv, scoring={}, progress=False)


def test_dataframe_input_and_unsupervised():
    X, y = load_iris(return_X_y=True, as_frame=True)
    s = bc.cross_validate_paired(
        {"nb": GaussianNB(), "d": DummyClassifier()},
        X,
        y,
        cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0),
        scoring="accuracy",
        progress=False,
        dataset="iris",
    )
    assert s.datasets == ["iris"] and s.rho() == pytest.approx(1 / 3)
    res = bc.compare(s, "d", "nb", metric="accuracy", rope=0.01)
    assert res.p_right > 0.99  # naive Bayes beats the majority class on iris
    from sklearn.cluster import KMeans

    u = bc.cross_validate_paired(
        {"k2": KMeans(2, n_init=2, random_state=0), "k3": KMeans(3, n_init=2, random_state=0)},
        X.to_numpy(),
        cv=KFold(3, shuffle=True, random_state=0),
        progress=False,
    )
    assert u.metrics == ["score"] and np.isfinite(u.to_frame()["score"]).all()


# ------------------------------------------------------------ error_score
class FailsOnRowZero(ClassifierMixin, BaseEstimator):
    """Raises whenever row 0 (id in column 0) is in the training set."""

    def fit(self, X, y):
        if 0 in np.asarray(X)[:, 0]:
            raise RuntimeError("row zero is poison")
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_error_score_numeric_and_raise():
    X = np.c_[np.arange(40), np.zeros(40)]
    y = np.r_[np.zeros(20), np.ones(20)]
    cv = KFold(4)  # row 0 is in the test set of split 0 only
    m = {"bad": FailsOnRowZero(), "ok": DummyClassifier()}
    msg = r"of 'bad' failed on 3 of 4 splits \(1–3\); first error: RuntimeError: row zero is poison"
    with pytest.warns(FitFailedWarning, match=msg) as rec:
        s = bc.cross_validate_paired(
            m, X, y, cv=cv, scoring="accuracy", error_score=-1.0, progress=False
        )
    assert sum(issubclass(w.category, FitFailedWarning) for w in rec) == 1  # one per model
    f = s.to_frame()
    bad = f[f["model"] == "bad"].sort_values("split")["accuracy"].to_numpy()
    assert bad[0] == 1.0 and (bad[1:] == -1.0).all()  # split 0 tests rows 0-9, all class 0
    with pytest.warns(FitFailedWarning):
        s_nan = bc.cross_validate_paired(
            m, X, y, cv=cv, scoring="accuracy", error_score=np.nan, progress=False
        )
    with pytest.raises(ValueError, match="NaN/inf on split"):
        bc.compare(s_nan, "ok", "bad")
    with pytest.raises(RuntimeError, match="row zero is poison"):
        bc.cross_validate_paired(m, X, y, cv=cv, scoring="accuracy", progress=False)
    with pytest.raises(ValueError, match="error_score"):
        bc.cross_validate_paired(m, X, y, cv=cv, error_score="ignore", progress=False)


# --------------------------------------------------------------- parallel
def _frame(s):
    return s.to_frame().drop(columns=["fit_time", "score_time"])


def test_n_jobs_2_default_backend_identical(data):
    X, y = data
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    kw = dict(cv=cv, scoring=["accuracy", "roc_auc"], progress=False)
    serial = bc.cross_validate_paired(models(), X, y, **kw)
    parallel = bc.cross_validate_paired(models(), X, y, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(_frame(serial), _frame(parallel))


def test_dask_distributed_backend_identical(data):
    distributed = pytest.importorskip("distributed")
    X, y = data
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    kw = dict(cv=cv, scoring=["accuracy", "roc_auc"], progress=False)
    serial = bc.cross_validate_paired(models(), X, y, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask's own start-up chatter
        with (
            distributed.LocalCluster(
                n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            with (
                distributed.get_task_stream(client) as stream,
                joblib.parallel_config(backend="dask"),
            ):
                remote = bc.cross_validate_paired(models(), X, y, n_jobs=2, **kw)
            # the fits really ran as tasks on the cluster
            assert len(stream.data) > 0
    pd.testing.assert_frame_equal(_frame(serial), _frame(remote))


# ----------------------------------------------------- RepeatedGroupKFold
def test_repeated_group_kfold():
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 25, 200)
    X = np.zeros((200, 1))
    cv = bc.RepeatedGroupKFold(n_splits=5, n_repeats=4, random_state=3)
    splits = list(cv.split(X, groups=groups))
    assert len(splits) == cv.get_n_splits() == 20
    for tr, te in splits:
        assert set(groups[tr]).isdisjoint(groups[te])  # a group is never split
        assert len(tr) + len(te) == 200
    for r in range(4):  # each repetition is a partition of the rows
        tests = np.concatenate([te for _, te in splits[5 * r : 5 * r + 5]])
        assert np.array_equal(np.sort(tests), np.arange(200))
    again = list(
        bc.RepeatedGroupKFold(n_splits=5, n_repeats=4, random_state=3).split(X, groups=groups)
    )
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again, strict=True))
    other = list(
        bc.RepeatedGroupKFold(n_splits=5, n_repeats=4, random_state=4).split(X, groups=groups)
    )
    assert any(not np.array_equal(a[1], b[1]) for a, b in zip(splits, other, strict=True))
    # repetitions differ from each other: the group -> fold assignment is reshuffled
    folds = [
        frozenset(frozenset(groups[te]) for _, te in splits[5 * r : 5 * r + 5]) for r in range(4)
    ]
    assert len(set(folds)) == 4
    with pytest.raises(ValueError, match="needs groups="):
        list(cv.split(X))
    with pytest.raises(ValueError, match="n_splits"):
        bc.RepeatedGroupKFold(n_splits=1)
    with pytest.raises(ValueError, match="n_repeats"):
        bc.RepeatedGroupKFold(n_repeats=0)
    assert "n_splits=5" in repr(cv)


def test_repeated_group_kfold_in_paired_cv(data):
    X, y = data
    groups = np.arange(120) // 4
    cv = bc.RepeatedGroupKFold(n_splits=5, n_repeats=2, random_state=0)
    s = bc.cross_validate_paired(
        {"nb": GaussianNB(), "d": DummyClassifier()},
        X,
        y,
        cv=cv,
        groups=groups,
        scoring="accuracy",
        progress=False,
    )
    f = s.to_frame()
    one = f[f["model"] == "nb"]
    assert one["repeat"].tolist() == [0] * 5 + [1] * 5
    assert one["fold"].tolist() == list(range(5)) * 2
    assert s.rho() == pytest.approx(0.2)
    for tr, te in s.design.splits:
        assert set(groups[tr]).isdisjoint(groups[te])
    with pytest.raises(ValueError, match="needs groups="):
        bc.cross_validate_paired(
            {"nb": GaussianNB(), "d": DummyClassifier()}, X, y, cv=cv, progress=False
        )


def test_design_helpers(data):
    X, y = data
    d = materialise_splits(RepeatedKFold(n_splits=4, n_repeats=2, random_state=0), X, y)
    d2 = materialise_splits(RepeatedKFold(n_splits=4, n_repeats=2, random_state=0), X, y)
    d3 = materialise_splits(RepeatedKFold(n_splits=4, n_repeats=2, random_state=1), X, y)
    assert d.fingerprint() == d2.fingerprint() != d3.fingerprint()
    sub = d.subset([4, 5])
    assert len(sub) == 2 and sub.repeat.tolist() == [1, 1] and sub.fold.tolist() == [0, 1]


def test_progress_bar_on_a_terminal(data, monkeypatch, capsys):
    import sys

    X, y = data
    cv = KFold(3, shuffle=True, random_state=0)
    m = {"nb": GaussianNB(), "d": DummyClassifier()}
    quiet = bc.cross_validate_paired(m, X, y, cv=cv, scoring="accuracy", progress=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    shown = bc.cross_validate_paired(m, X, y, cv=cv, scoring="accuracy", progress=True)
    err = capsys.readouterr().err
    assert "paired CV" in err and "/6 " in err  # a bar over the 6 fits (2 models x 3)
    pd.testing.assert_frame_equal(_frame(quiet), _frame(shown))


class BadPredict(ClassifierMixin, BaseEstimator):
    """Fits, but predicting on a test set that holds row 0 raises."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        if 0 in np.asarray(X)[:, 0]:
            raise RuntimeError("cannot predict row zero")
        return np.full(len(X), self.classes_[0])


def test_error_score_covers_scoring_failures_like_sklearn():
    X = np.c_[np.arange(40), np.zeros(40)]
    y = np.r_[np.zeros(20), np.ones(20)]
    cv = KFold(4)
    with pytest.warns(FitFailedWarning, match=r"1 of 4 splits \(0\).*scoring failed: RuntimeError"):
        s = bc.cross_validate_paired(
            {"bad": BadPredict(), "ok": DummyClassifier()},
            X,
            y,
            cv=cv,
            scoring="accuracy",
            error_score=-1.0,
            progress=False,
        )
    f = s.to_frame()
    got = f[f["model"] == "bad"].sort_values("split")["accuracy"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = cross_validate(
            BadPredict(), X, y, cv=list(cv.split(X)), scoring="accuracy", error_score=-1.0
        )["test_score"]
    np.testing.assert_array_equal(got, ref)
    assert got[0] == -1.0
    with pytest.raises(RuntimeError, match="cannot predict row zero"):
        bc.cross_validate_paired(
            {"bad": BadPredict(), "ok": DummyClassifier()},
            X,
            y,
            cv=cv,
            scoring="accuracy",
            progress=False,
        )


def test_one_fit_engine_runs_tasks_and_hands_back_results_by_key(data):
    from sklearn.metrics import get_scorer

    from bayescomp.scores.engine import FitTask, run_fits

    X, y = data
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    got = {}
    run_fits(
        [
            FitTask(
                k,
                GaussianNB(),
                X,
                y,
                tr,
                te,
                {"accuracy": get_scorer("accuracy")},
                predict=lambda est, Xt, yt: len(yt),
            )
            for k, (tr, te) in enumerate(splits)
        ],
        got.__setitem__,
        n_jobs=2,
    )
    assert sorted(got) == [0, 1, 2]
    ref = cross_validate(GaussianNB(), X, y, cv=splits, scoring="accuracy")["test_score"]
    np.testing.assert_allclose([got[k].scores["accuracy"] for k in range(3)], ref)
    assert [got[k].predictions for k in range(3)] == [len(te) for _, te in splits]
