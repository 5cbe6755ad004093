"""Scores from other tools: cross_validate, wide tables, OpenML per-fold evaluations."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, RepeatedStratifiedKFold, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc

DATA = Path(__file__).parent / "data"
X, Y = load_breast_cancer(return_X_y=True)
X, Y = X[:300], Y[:300]
MODELS = {
    "nb": GaussianNB(),
    "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
}


@pytest.fixture(scope="module")
def cv_results():
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    return cv, {
        m: cross_validate(
            est, X, Y, cv=cv, scoring=["roc_auc", "neg_log_loss"], return_indices=True
        )
        for m, est in MODELS.items()
    }


def test_from_cross_validate_matches_cross_validate_paired(cv_results):
    cv, res = cv_results
    s = bc.Scores.from_cross_validate(res)
    ref = bc.cross_validate_paired(
        MODELS, X, Y, cv=cv, scoring=["roc_auc", "neg_log_loss"], progress=False
    )
    assert s.metrics == ["roc_auc", "neg_log_loss"] and s.models == ["nb", "lr"]
    a, b = s.to_frame(), ref.to_frame()
    for col in ("split", "n_train", "n_test", "roc_auc", "neg_log_loss"):
        np.testing.assert_allclose(a[col].to_numpy(float), b[col].to_numpy(float), rtol=1e-12)
    # n_train/n_test are the lengths of the returned indices
    assert a["n_test"].tolist()[:10] == [len(t) for t in res["nb"]["indices"]["test"]]
    assert s.rho() == ref.rho()
    p1 = bc.compare(s, "nb", "lr", metric="roc_auc", rope=0.005)
    p2 = bc.compare(ref, "nb", "lr", metric="roc_auc", rope=0.005)
    assert (p1.p_left, p1.p_rope, p1.p_right) == pytest.approx(
        (p2.p_left, p2.p_rope, p2.p_right), abs=1e-12
    )
    # the timings come along and can be a guardrail
    g = bc.compare(s, "nb", "lr", metric=["roc_auc", "fit_time"], rope={"fit_time": 1.0})
    assert g.metrics == ("roc_auc", "fit_time") and g.directions == (True, False)
    # the repeat/fold structure, checked against cv
    s2 = bc.Scores.from_cross_validate(res, cv=cv, X=X, y=Y)
    assert s2.to_frame()["repeat"].tolist()[:10] == [0] * 5 + [1] * 5


def test_from_cross_validate_refuses_different_splits(cv_results):
    cv, res = cv_results
    other = cross_validate(
        GaussianNB(),
        X,
        Y,
        cv=KFold(10, shuffle=True, random_state=1),
        return_indices=True,
        scoring=["roc_auc", "neg_log_loss"],
    )
    with pytest.raises(ValueError, match="split 0 of 'other' has other train/test indices"):
        bc.Scores.from_cross_validate({"nb": res["nb"], "other": other})
    with pytest.raises(ValueError, match="has other train/test indices than 'cv'"):
        bc.Scores.from_cross_validate(
            res, cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=9), X=X, y=Y
        )
    plain = {m: {k: v for k, v in r.items() if k != "indices"} for m, r in res.items()}
    with pytest.raises(ValueError, match="return_indices=True"):
        bc.Scores.from_cross_validate(plain)
    with pytest.raises(ValueError, match="different splits on every call"):
        bc.Scores.from_cross_validate(plain, cv=KFold(5, shuffle=True), X=X)
    # without indices but with the (deterministic) cv: the same table as with indices
    s = bc.Scores.from_cross_validate(plain, cv=cv, X=X, y=Y)
    drop = ["fit_time", "score_time", "repeat", "fold"]  # indices alone don't say the repeat
    pd.testing.assert_frame_equal(
        s.to_frame().drop(columns=drop),
        bc.Scores.from_cross_validate(res).to_frame().drop(columns=drop),
    )


def test_from_cross_validate_single_scorer_names_the_metric():
    cv = KFold(5)
    res = {
        m: cross_validate(est, X, Y, cv=cv, scoring="accuracy", return_indices=True)
        for m, est in MODELS.items()
    }
    s = bc.Scores.from_cross_validate(res, metric="accuracy")
    assert s.metrics == ["accuracy"]
    np.testing.assert_array_equal(
        s.to_frame().query("model == 'lr'")["accuracy"], res["lr"]["test_score"]
    )


def test_from_wide_splits_and_datasets():
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(
        {"nb": 0.8 + 0.01 * rng.standard_normal(20), "svm": 0.83 + 0.01 * rng.standard_normal(20)}
    )
    s = bc.Scores.from_wide(wide, metric="accuracy", test_fraction=0.1)
    direct = bc.correlated_ttest(wide["nb"], wide["svm"], rho=0.1, rope=0.01)
    res = bc.compare(s, "nb", "svm", rope=0.01)
    assert (res.p_left, res.p_right) == (direct.p_left, direct.p_right)
    # explicit sizes, one per row
    s = bc.Scores.from_wide(wide, metric="accuracy", n_train=np.full(20, 180), n_test=20)
    assert s.rho() == 0.1
    # baycomp's layout on several datasets: a dataset column, rows are splits
    two = pd.concat([wide.assign(ds="a"), wide.assign(ds="b")], ignore_index=True)
    s = bc.Scores.from_wide(two, metric="accuracy", test_fraction=0.1, dataset_col="ds")
    assert s.datasets == ["a", "b"] and len(s) == 80
    # autorank's layout: one row per dataset (summary scores), for the rank tests
    per_ds = pd.DataFrame(
        {"nb": [0.80, 0.70, 0.90, 0.85, 0.60, 0.75], "svm": [0.83, 0.74, 0.91, 0.88, 0.64, 0.79]},
        index=[f"d{i}" for i in range(6)],
    )
    s = bc.Scores.from_wide(per_ds, metric="accuracy", rows="datasets", test_fraction=0.1)
    assert s.datasets == list(per_ds.index)
    st = bc.compare(s, "nb", "svm", rope=0.01, method="sign", random_state=0)
    ref = bc.sign_test(per_ds["svm"] - per_ds["nb"], rope=0.01, random_state=0)
    assert (st.p_left, st.p_rope, st.p_right) == (ref.p_left, ref.p_rope, ref.p_right)


def test_from_wide_refuses_to_guess():
    wide = pd.DataFrame({"nb": [0.8, 0.81], "svm": [0.82, 0.83]})
    with pytest.raises(ValueError, match="state the split design"):
        bc.Scores.from_wide(wide, metric="accuracy")
    with pytest.raises(ValueError, match="not both"):
        bc.Scores.from_wide(wide, test_fraction=0.1, n_train=9, n_test=1)
    with pytest.raises(ValueError, match="not numeric"):
        bc.Scores.from_wide(wide.assign(note="x"), test_fraction=0.1)
    with pytest.raises(ValueError, match="one row per dataset"):
        bc.Scores.from_wide(
            wide.assign(ds="same"), rows="datasets", dataset_col="ds", test_fraction=0.1
        )


@pytest.fixture(scope="module")
def openml():
    evals = pd.read_csv(DATA / "openml_per_fold_evaluations.csv")
    splits = pd.read_csv(DATA / "openml_task_splits.csv")
    return evals, {t: g.drop(columns="task_id") for t, g in splits.groupby("task_id")}


def test_from_openml_exact_split_sizes(openml):
    evals, splits = openml
    s = bc.Scores.from_openml(evals, splits=splits)
    assert s.datasets == ["iris", "wine"] and s.metrics == [
        "predictive_accuracy",
        "area_under_roc_curve",
    ]
    assert len(s.models) == 3
    f = s.to_frame()
    # sizes counted independently from the datasplits table
    wine = splits[1187]
    counts = wine.groupby(["repeat", "fold", "type"]).size().unstack()
    w = f[(f.dataset == "wine") & (f.model == s.models[0])].sort_values("split")
    assert w["n_test"].tolist() == counts["TEST"].tolist()
    assert w["n_train"].tolist() == counts["TRAIN"].tolist()
    assert sorted(set(w["n_test"])) == [35, 36]  # 178 rows in 5 folds: exact, not 0.2
    assert s.rho("wine") == pytest.approx(np.mean(counts["TEST"] / 178))
    assert s.rho("iris") == 0.1
    # the per-fold values are the ones in the file, repeat-major
    row = evals[
        (evals.data_name == "wine")
        & (evals.function == "predictive_accuracy")
        & (evals.flow_name == s.models[0])
    ].iloc[0]
    np.testing.assert_allclose(w["predictive_accuracy"], np.ravel(json.loads(row["values"])))
    res = bc.compare(
        s,
        "sklearn.naive_bayes.GaussianNB",
        "sklearn.linear_model.LogisticRegression",
        metric="predictive_accuracy",
        dataset="wine",
        rope=0.01,
    )
    assert res.rho == pytest.approx(s.rho("wine")) and res.n == 10


def test_from_openml_refuses_to_guess(openml):
    evals, splits = openml
    with pytest.raises(ValueError, match="pass splits="):
        bc.Scores.from_openml(evals)
    with pytest.raises(ValueError, match="no datasplits table for task 1187"):
        bc.Scores.from_openml(evals, splits={1059: splits[1059]})
    with pytest.raises(ValueError, match="repeat 1 fold 0 is not in its datasplits table"):
        bc.Scores.from_openml(evals, splits=splits[1059])  # iris' splits for wine too
    with pytest.raises(ValueError, match="5 fold scores but 10 splits"):
        one = evals[evals.task_id == 1187].assign(values="[[0.9, 0.9, 0.8, 0.9, 0.9]]")
        bc.Scores.from_openml(
            one,
            splits=splits[1187].assign(repeat=0, fold=lambda f: f.fold + 5 * splits[1187].repeat),
        )
    dup = pd.concat([evals, evals.assign(setup_id=evals.setup_id + 1)], ignore_index=True)
    with pytest.raises(ValueError, match="model_col='setup_id'"):
        bc.Scores.from_openml(dup, splits=splits)
    s = bc.Scores.from_openml(evals, test_fraction=0.2)
    assert s.rho("wine") == 0.2
