"""Per-row out-of-fold scores kept by cross-validation, and the correlated t-test's per-row
variance (``compare(..., variance="rows" | "gated")``, ``docs/per_row_variance.md``),
checked against scikit-learn's scorers and the real-learner bench's own implementation."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import log_loss
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, TimeSeriesSplit
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

import bayescomp as bc
from bayescomp.core.item_scores import item_scores

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import real_learner_calibration as bench


def _knn_pair(n: int, index: int, folds: int, repeats: int) -> tuple[bc.Scores, dict]:
    """The bench's data set ``index`` of the near-equal kNN cell at ``n`` rows, compared by
    the package and by the bench on the same splits."""
    rec = bench.one_dataset("easy", "knn k=15/17", n, index, folds=folds, repeats=repeats)
    X, y = bench.population("easy")
    seed = bench.SEED + 7919 * index + n
    rows = np.random.default_rng(seed).choice(bench.POOL, n, replace=False)
    scores = bc.cross_validate_paired(
        {"k15": KNeighborsClassifier(15), "k17": KNeighborsClassifier(17)},
        X[rows],
        y[rows],
        cv=RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=seed),
        scoring="accuracy",
        progress=False,
    )
    return scores, rec


def _two_knn(seed: int) -> tuple:
    """100 rows of 3 features, two kNN classifiers and a 5 x 2 stratified design."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    models = {"k5": KNeighborsClassifier(5), "k7": KNeighborsClassifier(7)}
    return X, y, models, RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)


@pytest.mark.parametrize("how", ["rows", "gated"])
def test_the_per_row_posterior_is_the_benchs(how):
    """On the same data set and splits, ``compare(variance=...)`` gives the posterior of the
    bench's own implementation (``bench.variances``), to rounding."""
    n, folds, repeats = 200, 5, 4
    scores, rec = _knn_pair(n, 3, folds, repeats)
    res = bc.compare(scores, "k15", "k17", rope=0.01, variance=how)
    mean, scale, df = bench.posterior(rec, "acc", n, how)
    split = bc.compare(scores, "k15", "k17", rope=0.01)
    assert res.mean == pytest.approx(mean, abs=1e-12) and res.df == df
    assert res.scale == pytest.approx(scale, rel=1e-9)
    assert res.mean == split.mean and res.scale < split.scale  # a near-equal pair: sharper
    assert res.variance == ("rows" if how == "rows" else "gated: rows")
    assert res.to_dict()["variance"] == res.variance


def test_per_row_scores_average_to_the_tables_scores():
    """Each split's per-row scores average to scikit-learn's scorer on that split: accuracy,
    log loss and Brier (negated, as scikit-learn's scorers), squared and absolute error."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + rng.normal(size=150) > 0).astype(int)
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=1)
    models = {"k5": KNeighborsClassifier(5), "k9": KNeighborsClassifier(9)}
    metrics = ["accuracy", "neg_log_loss", "neg_brier_score"]
    s = bc.cross_validate_paired(models, X, y, cv=cv, scoring=[*metrics, "roc_auc"], progress=False)
    z = X[:, 1] + rng.normal(size=150)
    reg = {"k5": KNeighborsRegressor(5), "k9": KNeighborsRegressor(9)}
    losses = ["neg_mean_squared_error", "mae"]
    r = bc.cross_validate_paired(
        reg,
        X,
        z,
        cv=RepeatedKFold(n_splits=5, n_repeats=2, random_state=1),
        scoring=losses,
        progress=False,
    )
    for table, cols in ((s, metrics), (r, losses)):
        assert table.per_row is not None and list(table.per_row.columns[4:]) == cols
        means = table.per_row.groupby(["model", "split"])[cols].mean()
        split = table.to_frame().set_index(["model", "split"])[cols].loc[means.index]
        np.testing.assert_allclose(means.to_numpy(), split.to_numpy(), rtol=1e-9, atol=1e-12)
        counts = table.per_row.groupby(["model", "split"]).size().to_numpy()
        np.testing.assert_array_equal(counts, table.to_frame()["n_test"].to_numpy())


def test_log_loss_per_item_is_scikit_learns_at_certain_probabilities():
    """A row predicted with probability 0 or 1 costs what scikit-learn's ``log_loss`` says
    (probabilities clipped to machine epsilon)."""
    y = np.array([1, 0, 1, 0, 1, 1])
    p = np.array([0.0, 1.0, 1.0, 0.0, 1e-20, 0.7])
    for i in range(len(y)):
        want = log_loss(y[i : i + 1], p[i : i + 1], labels=[0, 1])
        assert item_scores("log_loss", y[i : i + 1], p[i : i + 1])[0] == pytest.approx(want)


def test_per_row_scores_survive_the_store(tmp_path):
    """A second run reads every fit from the store, per-row scores included."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=0)
    models = {"k5": KNeighborsClassifier(5), "k7": KNeighborsClassifier(7)}

    def run():
        with bc.ResultStore(tmp_path / "fits.sqlite") as store:
            return bc.cross_validate_paired(
                models, X, y, cv=cv, scoring="accuracy", cache=store, progress=False
            )

    first, second = run(), run()
    assert second.attrs["fits_loaded"] == 24 and second.attrs["fits_performed"] == 0
    assert first.per_row is not None and second.per_row is not None
    assert first.per_row.equals(second.per_row)
    a = bc.compare(first, "k5", "k7", rope=0.01, variance="rows")
    b = bc.compare(second, "k5", "k7", rope=0.01, variance="rows")
    assert a.scale == b.scale


def test_a_table_without_per_row_scores_is_refused_in_one_line(tmp_path):
    """A table read from a file has no per-row scores; a time-ordered design does not test
    every row once a repetition; a method other than the t-test has no such variance."""
    X, y, models, cv = _two_knn(3)
    s = bc.cross_validate_paired(models, X, y, cv=cv, scoring="accuracy", progress=False)
    s.to_frame().to_csv(tmp_path / "s.csv", index=False)  # another tool's file: no rows
    read = bc.Scores.read_csv(tmp_path / "s.csv")
    with pytest.raises(ValueError, match="does not hold: cross_validate_paired") as e:
        bc.compare(read, "k5", "k7", rope=0.01, variance="rows")
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="variance must be one of"):
        bc.compare(s, "k5", "k7", rope=0.01, variance="row")
    with pytest.raises(ValueError, match="relative margin"):
        bc.compare(s, "k5", "k7", rope="1%", variance="rows")
    t = bc.cross_validate_paired(
        models, X, y, cv=TimeSeriesSplit(4), scoring="accuracy", progress=False
    )
    with pytest.raises(ValueError, match="not method='time_ordered'"):
        bc.compare(t, "k5", "k7", rope=0.01, variance="rows")
    with (
        pytest.raises(ValueError, match="at least 2 repetitions that each test every row"),
        pytest.warns(bc.TimeOrderedDesignWarning),
    ):
        bc.compare(t, "k5", "k7", rope=0.01, variance="rows", method="ttest")


def test_a_selection_decides_its_steps_with_the_per_row_variance():
    """``select_models(..., compare_options={"variance": ...})``: each step of the
    champion/challenger walk is ``compare`` on the selection's table with that variance; the
    family rule, whose joint posterior has the split variance only, refuses it before any
    fit."""
    X, y = bench.population("easy")
    X, y = X[:300], y[:300]
    models = {"k15": KNeighborsClassifier(15), "k17": KNeighborsClassifier(17)}
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=0)
    kw = dict(baseline="k15", metric="accuracy", rope=0.01, cv=cv, progress=False)
    sel = bc.select_models(
        models, X, y, rule="champion_challenger", compare_options={"variance": "rows"}, **kw
    )
    table = bc.cross_validate_paired(models, X, y, cv=cv, scoring="accuracy", progress=False)
    want = bc.compare(table, "k15", "k17", rope=0.01, variance="rows")
    assert sel.steps["p_better"].iloc[0] == pytest.approx(want.p_better, rel=1e-9)
    assert sel.to_dict()["settings"]["variance"] == "rows"  # in selection.json and the store
    with pytest.raises(ValueError, match="family rule's joint posterior") as e:
        bc.select_models(models, X, y, compare_options={"variance": "gated"}, **kw)
    assert "\n" not in str(e.value)


def test_the_command_line_says_which_variance_it_used(tmp_path):
    """``bayescomp compare MODEL_FILES --variance gated``: the table's head and the JSON say
    which variance each t-test used."""
    import json
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    files = [str(repo / "models" / f) for f in ("logistic_regression.py", "svm_rbf.py")]
    base = [sys.executable, "-m", "bayescomp", "compare", *files, "--dataset", "breast_cancer"]
    base += ["--metric", "accuracy", "--rope", "0.01", "--n-repeats", "3", "--variance", "gated"]
    text = subprocess.run(base, capture_output=True, text=True, check=True).stdout
    record = json.loads(subprocess.run([*base, "--json"], capture_output=True, text=True).stdout)
    used = record[0]["variance"] if isinstance(record, list) else record["variance"]
    assert used in ("gated: rows", "gated: split") and f"variance: {used}" in text
    comment = subprocess.run([*base, "--format", "markdown"], capture_output=True, text=True)
    assert f"γ = 0.95 · variance {used}" in comment.stdout  # the pull-request comment


def test_a_design_too_large_keeps_no_per_row_scores_and_says_so(monkeypatch):
    """Over the cap of per-row scores the table keeps none, with a warning; ``per_row=False``
    keeps none silently; the split variance is unchanged either way."""
    import bayescomp.scores.per_row as per_row

    X, y, models, cv = _two_knn(5)
    kept = bc.cross_validate_paired(models, X, y, cv=cv, scoring="accuracy", progress=False)
    off = bc.cross_validate_paired(
        models, X, y, cv=cv, scoring="accuracy", progress=False, per_row=False
    )
    monkeypatch.setattr(per_row, "MAX_ROW_SCORES", 399)  # 2 models x 2 x 100 rows = 400
    with pytest.warns(UserWarning, match="per-row scores not kept"):
        capped = bc.cross_validate_paired(models, X, y, cv=cv, scoring="accuracy", progress=False)
    assert kept.per_row is not None and len(kept.per_row) == 400
    assert off.per_row is None and capped.per_row is None
    a, b = (bc.compare(t, "k5", "k7", rope=0.01) for t in (kept, capped))
    assert a.scale == b.scale and a.variance == b.variance == "split"


class _CountingKNN(KNeighborsClassifier):
    """A kNN classifier that counts the calls of its ``predict``."""

    calls = 0

    def predict(self, X):
        type(self).calls += 1
        return super().predict(X)


def test_the_scorers_and_the_per_row_scores_share_one_prediction():
    """Keeping per-row scores predicts no test row twice: one ``predict`` per fit, as
    without them (``bench/per_row_overhead.py`` measures the time)."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=0)
    for per_row in (True, False):
        _CountingKNN.calls = 0
        s = bc.cross_validate_paired(
            {"a": _CountingKNN(5)},
            X,
            y,
            cv=cv,
            scoring=["accuracy", "f1"],
            progress=False,
            per_row=per_row,
        )
        assert _CountingKNN.calls == 8 and (s.per_row is not None) == per_row


def test_a_multilabel_target_keeps_its_scores_and_no_rows():
    """Subset accuracy of a multilabel target has no one score a row here: the table is
    the one ``per_row=False`` gives, without per-row scores and without a warning."""
    import warnings

    from sklearn.model_selection import KFold

    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 3))
    Y = (X[:, :2] > 0).astype(int)
    models = {"k3": KNeighborsClassifier(3), "k5": KNeighborsClassifier(5)}
    kw = dict(cv=KFold(3), scoring="accuracy", progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = bc.cross_validate_paired(models, X, Y, **kw)
    off = bc.cross_validate_paired(models, X, Y, per_row=False, **kw)
    assert s.per_row is None
    assert s.to_frame()["accuracy"].tolist() == off.to_frame()["accuracy"].tolist()


def test_per_row_scores_survive_a_csv_round_trip_and_a_stale_file_is_dropped(tmp_path):
    """``to_csv`` writes the per-row scores beside the table (``s.rows.csv``) and
    ``read_csv`` reads them back checked: the same posterior; per-row scores of another run
    (their split means are not the table's scores) are dropped with a warning."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    models = {"k5": KNeighborsClassifier(5), "k9": KNeighborsClassifier(9)}

    def table(seed):
        cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=seed)
        return bc.cross_validate_paired(models, X, y, cv=cv, scoring="accuracy", progress=False)

    s = table(0)
    s.to_csv(tmp_path / "s.csv")
    assert (tmp_path / "s.rows.csv").is_file()
    back = bc.Scores.read_csv(tmp_path / "s.csv")
    a = bc.compare(s, "k5", "k9", rope=0.01, variance="rows")
    b = bc.compare(back, "k5", "k9", rope=0.01, variance="rows")
    assert b.scale == pytest.approx(a.scale, rel=1e-12) and b.variance == "rows"
    table(1).per_row.to_csv(tmp_path / "s.rows.csv", index=False)  # another run's rows
    with pytest.warns(UserWarning, match="do not average to the table's scores"):
        stale = bc.Scores.read_csv(tmp_path / "s.csv")
    assert stale.per_row is None


def _drawn_table(rng, n: int, k: int, repeats: int, persistent: float, partition: float):
    """A scores table drawn from the per-row variance's own model: row i's difference in
    repetition r is ``a_i + w_ri`` (``a_i ~ N(0, persistent²)`` its persistent difference,
    ``w_ri ~ N(0, partition²)`` which training set it fell out of), each repetition a new
    random k-fold partition of the rows; the baseline scores 0 on every row."""
    import pandas as pd

    a = rng.normal(0.0, persistent, n)
    rows, splits = [], []
    for r in range(repeats):
        e = a + rng.normal(0.0, partition, n)
        for f, test in enumerate(np.array_split(rng.permutation(n), k)):
            for model, values in (("b", np.zeros(test.size)), ("c", e[test])):
                rows.append(
                    pd.DataFrame(
                        {"dataset": "data", "model": model, "split": r * k + f, "row": test}
                        | {"score": values}
                    )
                )
                splits.append(
                    {"dataset": "data", "model": model, "split": r * k + f, "repeat": r}
                    | {"fold": f, "n_train": n - test.size, "n_test": test.size}
                    | {"score": float(values.mean())}
                )
    table = bc.Scores(pd.DataFrame(splits), metrics=["score"])
    table.per_row = pd.concat(rows, ignore_index=True)
    return table


def test_the_per_row_posterior_covers_its_models_truth_and_is_sharper_than_split():
    """200 seeded data sets of 300 rows, 5 folds × 4 repetitions, partition noise 3 × the
    persistent spread (a near-equal pair): the 95 % interval of ``variance="rows"`` covers the
    true difference 0 within a binomial tolerance (3 se), its variance matches the spread of
    the CV means over data sets (ratio in [0.6, 1.25]) where the split variance is ≥ 3 ×
    too wide; with the persistent part dominant, ``"gated"`` falls back to ``split``."""
    rng = np.random.default_rng(46)
    cover, var, means, split_var = [], [], [], []
    for _ in range(200):
        table = _drawn_table(rng, 300, 5, 4, persistent=0.3, partition=1.0)
        kw = dict(metric="score", rope=0.0, higher_is_better=True)
        rows, split = (bc.compare(table, "b", "c", variance=v, **kw) for v in ("rows", "split"))
        lo, hi = rows.interval(0.95)
        cover.append(lo <= 0.0 <= hi)
        var.append(rows.sd**2)
        split_var.append(split.sd**2)
        means.append(rows.mean)
    p, se = np.mean(cover), np.sqrt(0.95 * 0.05 / len(cover))
    assert abs(p - 0.95) <= 3 * se, p
    assert 0.6 <= np.var(means, ddof=1) / np.mean(var) <= 1.25
    assert np.var(means, ddof=1) / np.mean(split_var) <= 1 / 3
    stable = _drawn_table(rng, 300, 5, 4, persistent=1.0, partition=0.3)
    gated = bc.compare(stable, "b", "c", metric="score", rope=0.0, variance="gated")
    assert gated.variance == "gated: split"
