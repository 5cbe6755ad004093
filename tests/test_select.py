"""Champion/challenger selection: promotion logic, fitted CV, sequential testing, nested CV."""

from __future__ import annotations

import json
import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc
from bayescomp.core.exceptions import FitError
from bayescomp.scores.estimators import is_self_tuning
from bayescomp.scores.model_files import ModelFileError, ModelFileWarning
from bayescomp.splits.design import materialise_splits
from bayescomp.splits.repeats import block_seed as _block_seed
from bayescomp.splits.repeats import default_cv

N = 30  # paired splits of the constructed tables
RHO = 0.1


def _table(diffs: dict[str, np.ndarray], seed: int = 0) -> bc.Scores:
    """Baseline 'base' and candidates base + diff, on the same 30 splits of 10-fold CV."""
    rng = np.random.default_rng(seed)
    base = rng.normal(0.85, 0.02, N)
    rows = {"base": base, **{k: base + d for k, d in diffs.items()}}
    df = pd.DataFrame(
        {
            "model": np.repeat(list(rows), N),
            "split": np.tile(np.arange(N), len(rows)),
            "accuracy": np.concatenate(list(rows.values())),
        }
    )
    return bc.Scores.from_frame(df, test_fraction=RHO)


def _posterior(d: np.ndarray, rope: float) -> tuple[float, float, float]:
    """Independent closed form: scipy's t on the formula of Benavoli et al. (2017)."""
    n = len(d)
    scale = np.sqrt(np.var(d, ddof=1) * (1 / n + RHO / (1 - RHO)))
    post = stats.t(n - 1, loc=np.mean(d), scale=scale)
    return post.cdf(-rope), post.cdf(rope) - post.cdf(-rope), post.sf(rope)


@pytest.fixture(scope="module")
def known() -> tuple[bc.Scores, dict[str, np.ndarray]]:
    rng = np.random.default_rng(42)
    diffs = {
        "better": 0.03 + rng.normal(0, 0.004, N),  # clearly better than base (rope 0.01)
        "equivalent": rng.normal(0, 0.001, N),  # clearly inside the ROPE
        "worse": -0.03 + rng.normal(0, 0.004, N),  # clearly worse
        "noisy": rng.normal(0.005, 0.05, N),  # too noisy to tell
    }
    return _table(diffs), diffs


@pytest.mark.parametrize(
    "challenger, expected",
    [
        ("better", "promote"),
        ("equivalent", "equivalent"),
        ("worse", "worse"),
        ("noisy", "inconclusive"),
    ],
)
def test_promotion_logic_on_constructed_tables(known, challenger, expected):
    scores, diffs = known
    sel = bc.select(
        scores, baseline="base", rope=0.01, metric="accuracy", models=["base", challenger]
    )
    row = sel.steps.iloc[0]
    assert row["decision"] == expected
    assert sel.champion == (challenger if expected == "promote" else "base")
    p_left, p_rope, p_right = _posterior(diffs[challenger], 0.01)
    assert row["p_left"] == pytest.approx(p_left, abs=1e-10)
    assert row["p_rope"] == pytest.approx(p_rope, abs=1e-10)
    assert row["p_right"] == pytest.approx(p_right, abs=1e-10)
    assert row["expected_gain"] == pytest.approx(np.mean(diffs[challenger]), abs=1e-12)
    assert row["risk"] == pytest.approx(
        stats.t(
            N - 1,
            loc=np.mean(diffs[challenger]),
            scale=np.sqrt(np.var(diffs[challenger], ddof=1) * (1 / N + RHO / (1 - RHO))),
        ).cdf(0),
        abs=1e-10,
    )
    assert sel.recommendation["action"] == ("promote" if expected == "promote" else "keep")


def test_champion_changes_and_later_steps_compare_against_new_champion():
    rng = np.random.default_rng(1)
    b = 0.03 + rng.normal(0, 0.003, N)
    # c is clearly better than base, but practically equivalent to b
    scores = _table(
        {"b": b, "c": b + rng.normal(0.0005, 0.001, N), "w": b - 0.04 + rng.normal(0, 0.003, N)},
        seed=3,
    )
    sel = bc.select(
        scores, baseline="base", rope=0.01, rule="champion_challenger", metric="accuracy"
    )
    assert sel.steps["challenger"].tolist() == ["b", "c", "w"]
    assert sel.steps["champion"].tolist() == ["base", "b", "b"]
    assert sel.steps["decision"].tolist() == ["promote", "equivalent", "worse"]
    assert sel.champion == "b"
    direct = bc.compare(scores, "b", "c", metric="accuracy", rope=0.01)
    assert sel.steps.iloc[1]["p_rope"] == pytest.approx(direct.p_rope, abs=1e-12)
    timeline = sel.timeline()
    assert [t["champion"] for t in timeline] == ["base", "b"]
    assert timeline[0]["to_step"] == 1 and timeline[1]["from_step"] == 1
    rec = sel.recommendation
    vs_base = bc.compare(scores, "base", "b", metric="accuracy", rope=0.01)
    assert rec["action"] == "promote" and rec["risk"] == pytest.approx(vs_base.p_worse)


def test_order_by_name_and_by_mean(known):
    scores, _ = known
    by_name = bc.select(scores, baseline="base", rope=0.01, order="name", metric="accuracy")
    assert by_name.steps["challenger"].tolist() == ["better", "equivalent", "noisy", "worse"]
    by_mean = bc.select(scores, baseline="base", rope=0.01, order="mean", metric="accuracy")
    f = scores.to_frame()
    means = f[f["model"] != "base"].groupby("model")["accuracy"].mean()
    assert by_mean.steps["challenger"].tolist() == list(means.sort_values(ascending=False).index)


def test_lower_is_better_metric_is_oriented():
    rng = np.random.default_rng(5)
    base = rng.normal(0.3, 0.02, N)
    df = pd.DataFrame(
        {
            "model": np.repeat(["base", "cand"], N),
            "split": np.tile(range(N), 2),
            "rmse": np.r_[base, base - 0.05 + rng.normal(0, 0.003, N)],
        }
    )
    sel = bc.select(
        bc.Scores.from_frame(df, test_fraction=0.1), baseline="base", rope=0.01, metric="rmse"
    )
    assert sel.steps.iloc[0]["decision"] == "promote"  # lower rmse is better
    assert sel.steps.iloc[0]["expected_gain"] > 0


def test_scores_mode_errors(known, tmp_path):
    scores, _ = known
    with pytest.raises(ValueError, match="baseline 'nope'"):
        bc.select(scores, baseline="nope", rope=0.01, metric="accuracy")
    with pytest.raises(TypeError, match="max_repeats"):  # nothing is fitted: no repetitions
        bc.select(scores, baseline="base", metric="accuracy", rope=0.01, max_repeats=2)
    with pytest.raises(ValueError, match="gamma"):
        bc.select(scores, baseline="base", rope=0.01, gamma=0.4, metric="accuracy")
    with pytest.raises(ValueError, match="order"):
        bc.select(scores, baseline="base", rope=0.01, order="best", metric="accuracy")
    with pytest.raises(ValueError, match="precomputed scores"):
        bc.select(scores, baseline="base", rope=0.01, metric="accuracy").refit_champion()
    path = tmp_path / "s.csv"
    scores.to_csv(path)
    from_csv = bc.select(str(path), baseline="base", rope=0.01, metric="accuracy")
    assert (
        from_csv.steps["decision"].tolist()
        == bc.select(scores, baseline="base", rope=0.01, metric="accuracy")
        .steps["decision"]
        .tolist()
    )


def test_several_datasets_go_through_compare(known):
    scores, _ = known
    f = scores.to_frame()
    two = bc.Scores.concat([bc.Scores(f.assign(dataset="d1")), bc.Scores(f.assign(dataset="d2"))])
    # one dataset of a multi-dataset table: identical to the single-dataset selection
    one = bc.select(two, dataset="d2", baseline="base", rope=0.01, metric="accuracy")
    ref = bc.select(scores, baseline="base", rope=0.01, metric="accuracy")
    pd.testing.assert_frame_equal(one.steps, ref.steps)
    # every dataset at once: the step is compare's hierarchical posterior (same seed)
    small = {"chains": 2, "draws": 300, "tune": 300, "refit": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = bc.compare(
            two, "base", "better", metric="accuracy", rope=0.01, random_state=0, **small
        )
        sel = bc.select(two, baseline="base", rope=0.01, compare_options=small, metric="accuracy")
    assert sel.steps.iloc[0]["p_right"] == pytest.approx(expected.p_right)
    assert sel.steps.iloc[0]["p_rope"] == pytest.approx(expected.p_rope)


# ------------------------------------------------------------------ fitted mode
@pytest.fixture(scope="module")
def bc_data():
    return load_breast_cancer(return_X_y=True)


def _lr(c: float = 1.0):
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))


def test_fitted_selection_costs_k_plus_one_cvs_and_reuses_champion(bc_data, tmp_path):
    X, y = bc_data
    models = {"nb": GaussianNB(), "lr": _lr(), "lr_weak": _lr(0.01)}
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=3)
    store = tmp_path / "s.sqlite"
    sel = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        cv=cv,
        scoring=["roc_auc", "accuracy"],
        metric="roc_auc",
        rope=0.002,
        store=store,
        progress=False,
    )
    assert sel.fits_total == 30 and sel.fits_performed == 30  # (k + 1) x 10 fits, not 2k x 10
    assert sel.steps["fits"].tolist() == [10, 10]
    with bc.ResultStore(store) as st:
        assert st.count_fits() == 30
        assert set(st.query("SELECT DISTINCT metric FROM scores")["metric"]) == {
            "roc_auc",
            "accuracy",
        }
    # scores equal an independent cross_validate_paired on the same splits
    ref = bc.cross_validate_paired(models, X, y, cv=cv, scoring="roc_auc", progress=False)
    got = sel.scores.to_frame().set_index(["model", "split"])["roc_auc"]
    exp = ref.to_frame().set_index(["model", "split"])["roc_auc"]
    pd.testing.assert_series_equal(got.sort_index(), exp.sort_index(), check_names=False)
    # each step equals a direct compare on the same scores
    for row in sel.steps.to_dict("records"):
        res = bc.compare(ref, row["champion"], row["challenger"], metric="roc_auc", rope=0.002)
        assert row["p_right"] == pytest.approx(res.p_right, abs=1e-12)
        assert row["p_rope"] == pytest.approx(res.p_rope, abs=1e-12)
    # a second run loads everything from the store and refits nothing
    again = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        cv=cv,
        scoring=["roc_auc", "accuracy"],
        metric="roc_auc",
        rope=0.002,
        store=store,
        progress=False,
    )
    assert again.fits_performed == 0 and again.fits_loaded == 30
    pd.testing.assert_frame_equal(again.steps, sel.steps)
    prod = sel.refit_champion()
    assert prod.predict(X).shape == y.shape
    r = bc.rank(sel.base_scores, "roc_auc", rope=0.002)
    assert r.p_better.loc["lr", "nb"] == pytest.approx(
        bc.compare(ref, "nb", "lr", metric="roc_auc").p_better, abs=1e-12
    )
    json.dumps(sel.to_dict())  # machine-readable, no NaN


def test_sequential_testing_adds_seeded_repetitions_to_both_models(bc_data, tmp_path):
    X, y = bc_data
    models = {"lr": _lr(), "nb": GaussianNB()}
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    kw = dict(
        baseline="lr",
        cv=cv,
        scoring="accuracy",
        rope=0.02,
        gamma=0.99,
        max_repeats=2,
        rule="champion_challenger",
        progress=False,
        store=tmp_path / "seq.sqlite",
    )
    sel = bc.select_models(models, X, y, **kw)
    again = bc.select_models(models, X, y, **kw)  # the extra repetitions are resumed too
    assert (again.fits_performed, again.fits_loaded) == (0, 40)
    pd.testing.assert_frame_equal(again.steps, sel.steps)
    row = sel.steps.iloc[0]
    # nb is ~3 points worse: inconclusive at gamma 0.99 on 10 splits, still after 2 more
    assert row["decision"] == "inconclusive"
    assert row["extra_repeats"] == 2 and row["n_splits"] == 20
    assert "after 2 extra repetition(s)" in row["reason"] and "budget" in row["reason"]
    assert row["fits"] == 10 + 2 * 2 * 5  # challenger's design + both models on 2 repetitions
    # the extra repetitions are the splitter with n_repeats=1 and derived seeds
    f = sel.scores.to_frame()
    assert sorted(f["split"].unique()) == list(range(20))
    for b in (1, 2):
        extra = materialise_splits(
            RepeatedStratifiedKFold(n_splits=5, n_repeats=1, random_state=_block_seed(0, b)), X, y
        )
        ref = bc.cross_validate_paired(
            models, X, y, cv=extra.splits, scoring="accuracy", progress=False
        ).to_frame()
        got = f[f["split"].between(10 + 5 * (b - 1), 9 + 5 * b)]
        for m in models:
            np.testing.assert_allclose(
                got.loc[got["model"] == m, "accuracy"].to_numpy(),
                ref.loc[ref["model"] == m, "accuracy"].to_numpy(),
            )
    # the posterior of the step uses all 20 paired splits
    both = bc.Scores(f)
    res = bc.compare(both, "lr", "nb", metric="accuracy", rope=0.02)
    assert row["p_left"] == pytest.approx(res.p_left, abs=1e-12)
    # a step already decided on the design needs no repetition
    sel2 = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        cv=cv,
        scoring="accuracy",
        rope=0.001,
        max_repeats=3,
        rule="champion_challenger",
        progress=False,
    )
    assert sel2.steps.iloc[0]["decision"] == "promote"
    assert sel2.steps.iloc[0]["extra_repeats"] == 0
    assert "no extra repetition needed" in sel2.steps.iloc[0]["reason"]


def test_sequential_testing_needs_a_seeded_shuffling_splitter(bc_data):
    X, y = bc_data
    with pytest.raises(ValueError, match="integer random_state"):
        bc.select_models(
            {"a": GaussianNB(), "b": _lr(0.001)},
            X,
            y,
            baseline="a",
            cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=1),
            scoring="accuracy",
            rope=0.0,
            gamma=0.999,
            max_repeats=1,
            progress=False,
        )


# ------------------------------------------------------------------ nested CV
class RowRecorder(ClassifierMixin, BaseEstimator):
    """Logistic regression on columns 1:, logging the row ids (column 0) it is fitted on."""

    log: ClassVar[list[np.ndarray]] = []

    def __init__(self, C: float = 1.0):
        self.C = C

    def fit(self, X, y):
        RowRecorder.log.append(np.sort(X[:, 0].astype(int)))
        self.lr_ = _lr(self.C).fit(X[:, 1:], y)
        self.classes_ = self.lr_.classes_
        return self

    def predict_proba(self, X):
        return self.lr_.predict_proba(X[:, 1:])

    def predict(self, X):
        return self.lr_.predict(X[:, 1:])


def test_nested_cv_tuning_sees_only_the_outer_training_fold(bc_data, tmp_path):
    X, y = bc_data
    Xid = np.column_stack([np.arange(len(y)), X])
    search = GridSearchCV(RowRecorder(), {"C": [0.01, 1.0]}, cv=3, scoring="roc_auc")
    assert is_self_tuning(search) and not is_self_tuning(GaussianNB())
    cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=1, random_state=0)
    outer = materialise_splits(cv, Xid, y)
    RowRecorder.log.clear()
    sel = bc.select_models(
        {"nb": GaussianNB(), "tuned": search},
        Xid,
        y,
        baseline="nb",
        cv=cv,
        scoring="roc_auc",
        rope=0.002,
        store=tmp_path / "n.sqlite",
        n_jobs=1,
        progress=False,
    )
    per_outer = 3 * 2 + 1  # inner folds x grid + refit on the whole outer training fold
    assert len(RowRecorder.log) == per_outer * len(outer)
    for k, (train, test) in enumerate(outer.splits):
        chunk = RowRecorder.log[k * per_outer : (k + 1) * per_outer]
        for rows in chunk:
            assert np.isin(rows, train).all() and not np.isin(rows, test).any()
        np.testing.assert_array_equal(chunk[-1], np.sort(train))  # refit: the outer train fold
        inner = np.unique(np.concatenate(chunk[:-1]))
        np.testing.assert_array_equal(inner, np.sort(train))
    assert sel.candidates.set_index("model").loc["tuned", "nested"]
    with bc.ResultStore(tmp_path / "n.sqlite") as st:
        bp = st.query("SELECT best_params FROM fits WHERE model='tuned'")["best_params"]
        assert len(bp) == 4 and all(json.loads(b)["C"] in (0.01, 1.0) for b in bp)
    # production: the winning *procedure* refitted on every row (tuned afresh on all data)
    RowRecorder.log.clear()
    sel_champion = sel.champion
    prod = sel.refit_champion()
    if sel_champion == "tuned":
        np.testing.assert_array_equal(RowRecorder.log[-1], np.arange(len(y)))
        assert hasattr(prod, "best_params_")


def test_inner_cv_as_index_pairs_is_refused(bc_data):
    X, y = bc_data
    pairs = [(np.arange(100), np.arange(100, 200)), (np.arange(100, 200), np.arange(100))]
    with pytest.raises(ValueError, match="inner cv"):
        bc.select_models(
            {
                "nb": GaussianNB(),
                "g": GridSearchCV(_lr(), {"logisticregression__C": [1]}, cv=pairs),
            },
            X,
            y,
            baseline="nb",
            scoring="roc_auc",
            rope=0.01,
            progress=False,
            cv=default_cv(y, n_splits=3, n_repeats=1),
        )


# ------------------------------------------------------------------ model files
GOOD_NB = '"""Naive Bayes."""\nfrom sklearn.naive_bayes import GaussianNB\nmodel = GaussianNB()\n'
GOOD_LR = (
    '"""Logistic regression."""\nfrom sklearn.linear_model import LogisticRegression\n'
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))\n"
)


@pytest.fixture
def model_dir(tmp_path):
    d = tmp_path / "models"
    d.mkdir()
    (d / "a_nb.py").write_text(GOOD_NB)
    (d / "b_broken.py").write_text('"""Broken."""\nmodel = (\n')
    (d / "c_lr.py").write_text(GOOD_LR)
    (d / "d_nomodel.py").write_text('"""Defines nothing."""\nx = 1\n')
    return d


def test_broken_model_files_skipped_or_fatal(bc_data, model_dir):
    X, y = bc_data
    with pytest.warns(ModelFileWarning) as rec:
        sel = bc.select_models(
            model_dir,
            X,
            y,
            baseline="a_nb",
            scoring="roc_auc",
            rope=0.002,
            progress=False,
            cv=default_cv(y, n_splits=3, n_repeats=1),
        )
    assert set(sel.skipped) == {"b_broken", "d_nomodel"}
    assert any("b_broken.py" in str(w.message) for w in rec)
    assert sel.steps["challenger"].tolist() == ["c_lr"]  # nothing else is lost
    assert "skipped" in sel.candidates.set_index("model").loc["b_broken", "status"]
    with pytest.raises(ModelFileError, match=r"b_broken\.py"):
        bc.select_models(
            model_dir,
            X,
            y,
            baseline="a_nb",
            scoring="roc_auc",
            rope=0.002,
            progress=False,
            on_error="raise",
            cv=default_cv(y, n_splits=3, n_repeats=1),
        )
    with (
        pytest.raises(ValueError, match="baseline 'b_broken' is not among"),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", ModelFileWarning)
        bc.select_models(
            model_dir,
            X,
            y,
            baseline="b_broken",
            scoring="roc_auc",
            rope=0.002,
            progress=False,
            cv=default_cv(y, n_splits=3, n_repeats=1),
        )


class Explodes(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        raise RuntimeError("boom")


def test_failing_fit_marks_the_step_or_stops(bc_data):
    X, y = bc_data
    models = {"nb": GaussianNB(), "bad": Explodes(), "lr": _lr()}
    sel = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        scoring="roc_auc",
        rope=0.002,
        progress=False,
        cv=default_cv(y, n_splits=3, n_repeats=1),
    )
    row = sel.steps.set_index("challenger").loc["bad"]
    assert row["decision"] == "error" and "boom" in row["reason"] and np.isnan(row["p_right"])
    assert np.isfinite(sel.steps.set_index("challenger").loc["lr", "p_right"])  # still compared
    with pytest.raises(FitError, match="boom"):
        bc.select_models(
            models,
            X,
            y,
            baseline="nb",
            scoring="roc_auc",
            rope=0.002,
            progress=False,
            on_error="raise",
            cv=default_cv(y, n_splits=3, n_repeats=1),
        )
    with pytest.raises(RuntimeError, match="baseline 'bad' failed"):
        bc.select_models(
            models,
            X,
            y,
            baseline="bad",
            scoring="roc_auc",
            rope=0.002,
            progress=False,
            cv=default_cv(y, n_splits=3, n_repeats=1),
        )
