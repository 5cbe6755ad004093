"""Orientation of the difference: losses, negated scorers, numeric model names, wording."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import RepeatedKFold

import bayescomp as bc
from bayescomp.cli.main import main
from bayescomp.core.rule import decide


@pytest.fixture()
def rmse_scores():
    rng = np.random.default_rng(0)
    a = rng.normal(1.0, 0.05, 20)
    b = a - 0.03 + rng.normal(0, 0.005, 20)  # b has the lower (better) RMSE on every split
    df = pd.DataFrame(
        {"model": ["a"] * 20 + ["b"] * 20, "split": list(range(20)) * 2, "rmse": np.r_[a, b]}
    )
    return bc.Scores.from_frame(df, test_fraction=0.1), a, b


def test_loss_is_oriented_and_labelled(rmse_scores):
    scores, a, b = rmse_scores
    res = bc.compare(scores, "a", "b", metric="rmse")
    assert res.mean == pytest.approx(np.mean(a - b)) and res.mean > 0
    assert res.decision().outcome == "promote"
    # the same numbers from the raw arrays with higher_is_better=False
    raw = bc.correlated_ttest(a, b, rho=0.1, higher_is_better=False)
    assert raw.p_right == pytest.approx(res.p_right) and raw.mean == pytest.approx(res.mean)
    # labels say which subtraction is shown
    assert "a - b" in repr(res)
    assert res.summary()["difference"].iloc[0] == "a - b"
    assert "(a − b)" in res.plot().get_xlabel()
    title = scores.plot("a", "b", "rmse").get_title()
    assert title.startswith("b better on 20, a better on 0, tied on 0 of 20 splits")
    assert "lower rmse is better" in title


def test_negated_scorer_under_a_loss_name_is_refused():
    X, y = load_diabetes(return_X_y=True)
    cv = RepeatedKFold(n_splits=3, n_repeats=1, random_state=0)
    models = {"dummy": DummyRegressor(), "lr": LinearRegression()}
    with pytest.raises(ValueError, match=r"'mse' names a lower-is-better metric.*'neg_mse'"):
        bc.cross_validate_paired(
            models, X, y, cv=cv, scoring={"mse": "neg_mean_squared_error"}, progress=False
        )
    cv = RepeatedKFold(n_splits=3, n_repeats=2, random_state=0)
    s = bc.cross_validate_paired(
        models, X, y, cv=cv, scoring={"neg_mse": "neg_mean_squared_error"}, progress=False
    )
    res = bc.compare(s, "dummy", "lr", metric="neg_mse")  # neg_* is higher-is-better
    f = s.to_frame()
    gain = f[f.model == "lr"]["neg_mse"].to_numpy() - f[f.model == "dummy"]["neg_mse"].to_numpy()
    assert res.mean == pytest.approx(gain.mean()) and res.mean > 0


def test_numeric_model_names(tmp_path, capsys):
    rng = np.random.default_rng(1)
    base = rng.normal(0.8, 0.01, 10)
    df = pd.DataFrame(
        {
            "model": ["1"] * 10 + ["2"] * 10,
            "split": list(range(10)) * 2,
            "n_train": 90,
            "n_test": 10,
            "accuracy": np.r_[base, base + 0.003 + rng.normal(0, 0.002, 10)],
        }
    )
    scores = bc.Scores.from_frame(df)
    with pytest.raises(ValueError, match="also has a model named '1'"):
        bc.compare(scores, 1, "2")
    path = tmp_path / "s.csv"
    scores.to_csv(path)
    assert main(["compare", str(path), "--baseline", "1", "--rope", "0", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)[0]
    assert out["baseline"] == "1" and out["candidate"] == "2"
    assert out["mean"] == pytest.approx(bc.compare(scores, "1", "2").mean)


def test_inconclusive_reason_names_the_rope_regions():
    d = decide(0.2, 0.3, 0.5, expected_gain=0.01, risk=0.3, rope=0.01)
    assert "P(better beyond the ROPE) = 0.500" in d.reason
    d = decide(0.4, 0.0, 0.6, expected_gain=0.01, risk=0.4, rope=0.0)
    assert "P(better) = 0.600" in d.reason
