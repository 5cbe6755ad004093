"""learning_curves: schedule, the real rho at each size, and posteriors equal to correlated_ttest."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB

import bayescomp as bc
from bayescomp.studies.learning import _schedule


@pytest.fixture(scope="module")
def lc():
    X, y = load_breast_cancer(return_X_y=True)
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    return bc.learning_curves(
        {"dummy": DummyClassifier(), "nb": GaussianNB()},
        X,
        y,
        baseline="dummy",
        cv=cv,
        train_sizes=[20, 100, 455],
        random_state=0,
    )


def test_sizes_and_real_rho(lc):
    f = lc.scores
    assert sorted(f["train_size"].unique()) == [20, 100, 455]
    s = lc.summary()
    for size in (20, 100, 455):
        g = f[(f["train_size"] == size) & (f["model"] == "nb")]
        assert (g["n_train"] == size).all() and len(g) == 10
        rho = (g["n_test"] / (g["n_train"] + g["n_test"])).mean()
        assert s[(s.train_size == size)]["rho"].iloc[0] == pytest.approx(rho)
    assert s[s.train_size == 20]["rho"].iloc[0] > 0.8  # 114 test rows vs 20 training rows


def test_posteriors_equal_correlated_ttest(lc):
    f, s = lc.scores, lc.summary(confidence_level=0.9)
    size = 100
    nb = f[(f.train_size == size) & (f.model == "nb")].sort_values("split")["accuracy"]
    du = f[(f.train_size == size) & (f.model == "dummy")].sort_values("split")["accuracy"]
    rho = lc.rho(size)
    single = bc.correlated_ttest(np.zeros(len(nb)), nb.to_numpy(), rho=rho)
    diff = bc.correlated_ttest(du.to_numpy(), nb.to_numpy(), rho=rho)
    row = s[(s.kind == "model") & (s.model == "nb") & (s.train_size == size)].iloc[0]
    assert row["mean"] == pytest.approx(single.mean)
    assert (row["low"], row["high"]) == pytest.approx(single.interval(0.9))
    d = s[(s.kind == "difference") & (s.train_size == size)].iloc[0]
    assert d["p_better"] == pytest.approx(diff.p_better)
    assert d["p_right"] == pytest.approx(diff.p_right)
    assert (d["low"], d["high"]) == pytest.approx(diff.interval(0.9))
    assert d["p_better"] > 0.95  # naive Bayes beats the majority class


def test_pairing_same_training_rows(lc):
    f = lc.scores
    a = f[f.model == "nb"].sort_values(["train_size", "split"])
    b = f[f.model == "dummy"].sort_values(["train_size", "split"])
    np.testing.assert_array_equal(a["n_train"].to_numpy(), b["n_train"].to_numpy())
    np.testing.assert_array_equal(a["n_test"].to_numpy(), b["n_test"].to_numpy())


def test_schedules():
    geo = _schedule(None, "geometric", 5, 1000, 4)
    assert geo[0] == 100 and geo[-1] == 1000
    ratios = geo[1:] / geo[:-1]
    assert np.allclose(ratios, ratios[0], rtol=0.02)
    ari = _schedule(None, "arithmetic", 4, 1000, 4)
    assert ari.tolist() == [100, 400, 700, 1000]
    assert _schedule([0.5, 1.0], "geometric", 6, 200, 4).tolist() == [100, 200]
    with pytest.raises(ValueError, match="exceeds"):
        _schedule([5000], "geometric", 6, 200, 4)
    with pytest.raises(ValueError, match="minimum"):
        _schedule([2], "geometric", 6, 200, 4)
    with pytest.raises(ValueError, match="schedule"):
        _schedule(None, "log", 6, 200, 4)


def test_bad_arguments():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="baseline"):
        bc.learning_curves({"nb": GaussianNB()}, X, y, baseline="lr")
    with pytest.raises(ValueError, match="scorer name"):
        bc.learning_curves({"nb": GaussianNB()}, X, y, scoring=["accuracy", "f1"])


def test_plots(lc):
    ax = lc.plot()
    assert ax.get_xlabel() == "training rows" and len(ax.get_lines()) == 2
    ax = lc.plot_difference()
    assert "difference" in ax.get_ylabel()


def test_summary_probability_columns_match_posterior(lc):
    """p_better is P(difference > 0); p_left/p_rope/p_right are the ROPE regions."""
    from dataclasses import replace

    roped = replace(lc, rope=0.3)
    s = roped.summary()
    assert list(s.columns[-4:]) == ["p_better", "p_left", "p_rope", "p_right"]
    assert "p_worse" not in s.columns
    for size in (20, 100, 455):
        post = roped.posterior("nb", size, versus="dummy")
        row = s[(s.kind == "difference") & (s.train_size == size)].iloc[0]
        assert row["p_better"] == pytest.approx(float(post.p_better), abs=1e-12)
        assert row["p_left"] == pytest.approx(float(post.p_left), abs=1e-12)
        assert row["p_rope"] == pytest.approx(float(post.p_rope), abs=1e-12)
        assert row["p_right"] == pytest.approx(float(post.p_right), abs=1e-12)
        assert row["p_left"] + row["p_rope"] + row["p_right"] == pytest.approx(1.0)
    # nb beats dummy by ~0.32 with a wide band at 20 rows: P(> 0) ~ 1 but P(> 0.3) is not
    row = s[(s.kind == "difference") & (s.train_size == 20)].iloc[0]
    post = roped.posterior("nb", 20, versus="dummy")
    scores = roped.scores
    nb = scores[(scores.train_size == 20) & (scores.model == "nb")].sort_values("split")
    du = scores[(scores.train_size == 20) & (scores.model == "dummy")].sort_values("split")
    ref = bc.correlated_ttest(
        du["accuracy"].to_numpy(), nb["accuracy"].to_numpy(), rho=roped.rho(20)
    )
    t = stats.t(ref.df, loc=ref.mean, scale=ref.scale)  # independent: scipy's t
    assert row["p_better"] == pytest.approx(t.sf(0.0), abs=1e-12)
    assert row["p_right"] == pytest.approx(t.sf(0.3), abs=1e-12)
    assert row["p_left"] == pytest.approx(t.cdf(-0.3), abs=1e-12)
    assert row["p_better"] - row["p_right"] > 0.2
    models = s[s.kind == "model"]
    assert models[["p_better", "p_left", "p_rope", "p_right"]].isna().all().all()


def test_bounded_metric_gets_a_bounded_interval():
    """Iris, LDA: accuracy near 1 with 20 training rows; the t interval of the mean
    reaches above 1 (checked from scipy here) and the summary clips it to [0, 1]."""
    from sklearn.datasets import load_iris
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=1, random_state=0)
    lc = bc.learning_curves(
        {"tree": DecisionTreeClassifier(random_state=0), "lda": LinearDiscriminantAnalysis()},
        X,
        y,
        baseline="tree",
        cv=cv,
        train_sizes=[15, 120],
        random_state=0,
    )
    s = lc.summary(confidence_level=0.99)
    f = lc.scores
    n_clipped = 0
    for r in s[s.kind == "model"].to_dict("records"):
        v = f[(f.model == r["model"]) & (f.train_size == r["train_size"])]["accuracy"]
        v = v.to_numpy(dtype=float)
        n = v.size
        scale = np.sqrt(v.var(ddof=1) * (1 / n + r["rho"] / (1 - r["rho"])))
        lo, hi = (
            stats.t.interval(0.99, n - 1, loc=v.mean(), scale=scale)
            if scale > 0
            else (v.mean(), v.mean())
        )
        assert r["low"] == pytest.approx(max(lo, 0.0)) and r["high"] == pytest.approx(min(hi, 1))
        assert r["clipped"] == (lo < 0 or hi > 1)
        n_clipped += r["clipped"]
    assert n_clipped >= 1  # the case the issue reported: an accuracy band beyond 1
    assert (s["low"] >= -1).all() and (s["high"] <= 1).all()
    d = s[s.kind == "model"]
    assert (d["low"] >= 0).all() and (d["high"] <= 1).all()
