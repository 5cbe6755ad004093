"""The ``Scores`` table: loading from any source, round trips, rho, pairing checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold, RepeatedKFold, ShuffleSplit

import bayescomp as bc
from bayescomp.splits.design import materialise_splits


def tidy(n=10, models=("a", "b"), datasets=("d",), seed=0, n_train=90, n_test=10):
    rng = np.random.default_rng(seed)
    rows = []
    for ds in datasets:
        for m in models:
            for k in range(n):
                rows.append(
                    {
                        "dataset": ds,
                        "model": m,
                        "split": k,
                        "n_train": n_train,
                        "n_test": n_test,
                        "accuracy": rng.uniform(0.7, 0.9),
                        "roc_auc": rng.uniform(0.8, 1.0),
                    }
                )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ loading
def test_from_frame_tidy():
    s = bc.Scores.from_frame(tidy(datasets=("d1", "d2")))
    assert s.models == ["a", "b"] and s.datasets == ["d1", "d2"]
    assert s.metrics == ["accuracy", "roc_auc"]
    assert len(s) == 40
    assert s.rho(dataset="d1") == pytest.approx(0.1)
    r = s.rho()
    assert isinstance(r, pd.Series) and list(r.index) == ["d1", "d2"]
    assert r.to_numpy() == pytest.approx([0.1, 0.1])
    frame = s.to_frame()
    assert {"dataset", "model", "split", "n_train", "n_test"} <= set(frame.columns)
    frame.loc[0, "accuracy"] = -1  # a copy: the table is unchanged
    assert s.to_frame().loc[0, "accuracy"] != -1


def test_from_frame_fills_dataset_split_and_sizes_from_test_fraction():
    df = pd.DataFrame({"model": ["a"] * 5 + ["b"] * 5, "accuracy": np.linspace(0.7, 0.9, 10)})
    s = bc.Scores.from_frame(df, test_fraction=0.2, dataset="iris")
    f = s.to_frame()
    assert s.datasets == ["iris"]
    assert f.loc[f["model"] == "b", "split"].tolist() == [0, 1, 2, 3, 4]
    assert s.rho() == pytest.approx(0.2)
    assert (f["n_test"] / (f["n_train"] + f["n_test"])).to_numpy() == pytest.approx(0.2)
    # an awkward fraction is kept to 1e-4
    s3 = bc.Scores.from_frame(df, test_fraction=1 / 3)
    assert s3.rho() == pytest.approx(1 / 3, abs=1e-8)


def test_from_frame_long_format_metric_value():
    wide = tidy(n=4)
    long = wide.melt(
        id_vars=["dataset", "model", "split", "n_train", "n_test"],
        value_vars=["accuracy", "roc_auc"],
        var_name="metric",
        value_name="value",
    )
    s = bc.Scores.from_frame(long.sample(frac=1, random_state=0))  # any row order
    assert sorted(s.metrics) == ["accuracy", "roc_auc"]
    got = s.to_frame().sort_values(["model", "split"]).reset_index(drop=True)
    ref = wide.sort_values(["model", "split"]).reset_index(drop=True)
    for m in ("accuracy", "roc_auc"):
        assert got[m].to_numpy() == pytest.approx(ref[m].to_numpy())
    # "score" is accepted as the value column too, with renamed key columns
    long2 = long.rename(columns={"value": "score", "model": "algo", "split": "fold_id"})
    s2 = bc.Scores.from_frame(long2, model_col="algo", split_col="fold_id")
    assert s2.models == ["a", "b"] and len(s2) == 8


def test_from_frame_filters_dataset():
    s = bc.Scores.from_frame(tidy(datasets=("d1", "d2")), dataset="d2")
    assert s.datasets == ["d2"] and len(s) == 20


def test_read_csv_to_csv_round_trip(tmp_path):
    s = bc.Scores.from_frame(tidy(datasets=("d1", "d2"), seed=3))
    path = tmp_path / "scores.csv"
    s.to_csv(path)
    back = bc.Scores.read_csv(path)
    assert back.models == s.models and back.datasets == s.datasets
    assert back.metrics == s.metrics
    pd.testing.assert_frame_equal(back.to_frame(), s.to_frame(), check_dtype=False)
    r1 = bc.compare(s, "a", "b", metric="accuracy", dataset="d2")
    r2 = bc.compare(back, "a", "b", metric="accuracy", dataset="d2")
    assert r1.p_right == pytest.approx(r2.p_right, rel=1e-14)


def test_read_csv_from_another_tool(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("algo,acc\nx,0.8\nx,0.82\nx,0.81\ny,0.85\ny,0.84\ny,0.86\n")
    s = bc.Scores.read_csv(path, model_col="algo", test_fraction=0.1)
    assert s.models == ["x", "y"] and s.metrics == ["acc"] and s.rho() == pytest.approx(0.1)
    with pytest.raises(FileNotFoundError, match="no scores file"):
        bc.Scores.read_csv(tmp_path / "missing.csv")


def test_cross_validate_paired_scores_round_trip(tmp_path):
    from sklearn.dummy import DummyClassifier

    X = np.arange(40.0).reshape(-1, 1)
    y = np.r_[np.zeros(20), np.ones(20)]
    s = bc.cross_validate_paired(
        {"prior": DummyClassifier(), "const": DummyClassifier(strategy="constant", constant=1)},
        X,
        y,
        cv=RepeatedKFold(n_splits=4, n_repeats=2, random_state=0),
        scoring="accuracy",
        progress=False,
    )
    s.to_csv(tmp_path / "s.csv")
    back = bc.Scores.read_csv(tmp_path / "s.csv")
    assert back.metrics == ["accuracy"] and back.rho() == pytest.approx(0.25)
    pd.testing.assert_frame_equal(back.to_frame(), s.to_frame(), check_dtype=False)


# ---------------------------------------------------------------------- rho
def _scores_from_design(design):
    t = design.table()
    rng = np.random.default_rng(0)
    frame = pd.concat(
        [
            t.assign(model=m, accuracy=rng.uniform(0.7, 0.8, len(t)) + i / 10)
            for i, m in enumerate(("a", "b"))
        ]
    )
    return bc.Scores.from_frame(frame)


def test_rho_of_real_designs():
    X = np.zeros((103, 2))
    ten = materialise_splits(RepeatedKFold(n_splits=10, n_repeats=3, random_state=0), X)
    # 103 rows: folds of 11 and 10 rows; the mean of n_test / n over every split is exactly 0.1
    assert ten.rho == pytest.approx(0.1, abs=1e-12)
    assert _scores_from_design(ten).rho() == pytest.approx(0.1, abs=1e-12)
    shuffle = materialise_splits(ShuffleSplit(n_splits=7, test_size=0.2, random_state=0), X)
    expected = np.ceil(0.2 * 103) / 103  # sklearn rounds the test size up
    assert shuffle.rho == pytest.approx(expected)
    assert _scores_from_design(shuffle).rho() == pytest.approx(expected)
    with_100 = materialise_splits(
        ShuffleSplit(n_splits=5, test_size=0.2, random_state=0), np.zeros((100, 1))
    )
    assert with_100.rho == pytest.approx(0.2)


def test_rho_is_the_mean_of_per_split_fractions_for_unequal_folds():
    # a hand-made design: test fractions 0.1, 0.2, 0.25, 0.5 (not 1/k, not folds/samples)
    n = 40
    pairs = []
    for n_test in (4, 8, 10, 20):
        test = np.arange(n_test)
        pairs.append((np.arange(n_test, n), test))
    design = materialise_splits(pairs, np.zeros((n, 1)))
    assert design.rho == pytest.approx(np.mean([0.1, 0.2, 0.25, 0.5]))
    s = _scores_from_design(design)
    assert s.rho() == pytest.approx(0.2625)
    res = bc.compare(s, "a", "b")
    assert res.rho == pytest.approx(0.2625)


def test_rho_per_model():
    df = tidy(n=5)
    df.loc[df["model"] == "b", ["n_train", "n_test"]] = [80, 20]
    s = bc.Scores.from_frame(df)
    assert s.rho(model="a") == pytest.approx(0.1)
    assert s.rho(model="b") == pytest.approx(0.2)
    with pytest.raises(ValueError, match="unknown model"):
        s.rho(model="zzz")
    with pytest.raises(ValueError, match="unknown dataset"):
        s.rho(dataset="zzz")


# ------------------------------------------------------------ validation
def test_duplicate_keys_refused():
    df = pd.concat([tidy(n=3), tidy(n=3).iloc[[0]]])
    with pytest.raises(ValueError, match=r"repeat a \(dataset, model, split\) key"):
        bc.Scores.from_frame(df)


def test_missing_columns_and_sizes_refused():
    df = tidy(n=3)
    with pytest.raises(ValueError, match="test_fraction"):
        bc.Scores.from_frame(df.drop(columns=["n_train", "n_test"]))
    with pytest.raises(ValueError, match="model column"):
        bc.Scores.from_frame(df.drop(columns=["model"]))
    with pytest.raises(ValueError, match="missing"):
        bc.Scores(df.drop(columns=["split"]))
    bad = df.copy()
    bad.loc[2, "n_test"] = 0
    with pytest.raises(ValueError, match="n_test must be a positive whole number"):
        bc.Scores.from_frame(bad)
    with pytest.raises(ValueError, match="no numeric metric"):
        bc.Scores.from_frame(df[["dataset", "model", "split", "n_train", "n_test"]])
    with pytest.raises(ValueError, match="not in the table"):
        bc.Scores.from_frame(df, metrics=["f1"])


def test_paired_aligns_and_validates():
    df = tidy(n=6)
    # shuffle rows: pairing is by split id, not by row order
    s = bc.Scores.from_frame(df.sample(frac=1, random_state=1))
    p = s.paired("a", "b", "accuracy")
    assert list(p.columns) == ["dataset", "split", "baseline", "candidate", "n_train", "n_test"]
    assert p["split"].tolist() == list(range(6))
    a = df[df["model"] == "a"].set_index("split")["accuracy"]
    assert p["baseline"].to_numpy() == pytest.approx(a.loc[range(6)].to_numpy())

    unpaired = df.drop(index=df.index[(df["model"] == "b") & (df["split"] == 4)])
    with pytest.raises(ValueError, match=r"unpaired splits.*'b' covers splits 0–3, 5"):
        bc.Scores.from_frame(unpaired).paired("a", "b", "accuracy")
    sizes = df.copy()
    sizes.loc[(sizes["model"] == "b") & (sizes["split"] == 2), "n_train"] = 50
    with pytest.raises(ValueError, match="split 2 has different sizes"):
        bc.Scores.from_frame(sizes).paired("a", "b", "accuracy")
    nan = df.copy()
    nan.loc[(nan["model"] == "a") & (nan["split"] == 3), "accuracy"] = np.nan
    with pytest.raises(ValueError, match=r"'accuracy' of 'a' is NaN/inf on split\(s\) 3"):
        bc.Scores.from_frame(nan).paired("a", "b", "accuracy")
    with pytest.raises(ValueError, match="same model"):
        s.paired("a", "a", "accuracy")
    with pytest.raises(ValueError, match="several metrics"):
        s.paired("a", "b")


def test_paired_model_missing_on_one_dataset():
    df = pd.concat([tidy(n=3, datasets=("d1",)), tidy(n=3, models=("a",), datasets=("d2",))])
    s = bc.Scores.from_frame(df)
    with pytest.raises(ValueError, match="'b' has no scores on dataset 'd2'"):
        s.paired("a", "b", "accuracy", dataset="d2")
    assert len(s.paired("a", "b", "accuracy", dataset="d1")) == 3


def test_mean_select_concat_repr():
    s = bc.Scores.from_frame(tidy(n=4, models=("a", "b", "c"), datasets=("d1", "d2")))
    m = s.mean("accuracy")
    f = s.to_frame()
    assert m.loc["d2", "c"] == pytest.approx(
        f[(f["dataset"] == "d2") & (f["model"] == "c")]["accuracy"].mean()
    )
    sub = s.subset(models=["a", "c"], datasets=["d1"])
    assert sub.models == ["a", "c"] and sub.datasets == ["d1"] and len(sub) == 8
    both = bc.Scores.concat([sub, s.subset(models=["a", "c"], datasets=["d2"])])
    assert both.datasets == ["d1", "d2"] and len(both) == 16
    with pytest.raises(ValueError, match="nothing"):
        bc.Scores.concat([])
    with pytest.raises(ValueError, match=r"repeat a \(dataset, model, split\) key"):
        bc.Scores.concat([sub, sub])
    assert "3 model(s)" in repr(s)


def test_design_kept_from_cross_validation_and_kfold_design_table():
    d = materialise_splits(KFold(n_splits=4), np.zeros((10, 1)))
    t = d.table()
    assert t["n_test"].tolist() == [3, 3, 2, 2] and t["fold"].tolist() == [0, 1, 2, 3]
    assert (t["repeat"] == 0).all()
    assert d.rho == pytest.approx(np.mean([0.3, 0.3, 0.2, 0.2]))


@pytest.mark.parametrize("column", ["accuracy", "model", "dataset", "n_test"])
def test_a_frame_with_two_columns_of_one_name_is_refused_at_every_door(column):
    """pandas' ``TypeError`` (``factorize requires a Series``) or an unrelated message before:
    the frame's columns are checked where every frame enters, naming the column."""
    df = pd.DataFrame(
        {"model": np.repeat(["a", "b"], 6), "split": np.tile(range(6), 2), "n_train": 90}
    )
    df["dataset"], df["n_test"], df["accuracy"], df["other"] = (
        "d",
        10,
        np.linspace(0.7, 0.9, 12),
        0.5,
    )
    twice = df.set_axis([column if c == "other" else c for c in df.columns], axis=1)
    message = f"^the scores table has two columns named '{column}'; rename one$"
    for call in (
        lambda: bc.Scores.from_frame(twice),
        lambda: bc.compare(twice, "a", "b", metric="accuracy", rope=0.01),
        lambda: bc.rank(twice, metric="accuracy", rope=0.01),
        lambda: bc.select(twice, baseline="a", metric="accuracy", rope=0.01),
    ):
        with pytest.raises(ValueError, match=message):
            call()


def test_select_takes_a_scores_frame_as_compare_and_rank_do():
    df = pd.DataFrame({"model": np.repeat(["a", "b"], 6), "split": np.tile(range(6), 2)})
    df["accuracy"] = np.r_[np.linspace(0.70, 0.72, 6), np.linspace(0.80, 0.83, 6)]
    table = bc.Scores.from_frame(df, test_fraction=0.1)
    frame = table.to_frame()
    a = bc.select(frame, baseline="a", metric="accuracy", rope=0.01)
    b = bc.select(table, baseline="a", metric="accuracy", rope=0.01)
    assert a.champion == b.champion == "b"
    pd.testing.assert_frame_equal(a.steps, b.steps)
