"""Relative and standardized margins (issue 33): checked against statsmodels' log-ratio
TOST, MLflow's own relative-change rule and the sd of the paired differences."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.core.margins import Relative, Standardized, as_margin

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from relative_margin import agreement


def _scores(base, cand, test_fraction=0.1, metric="accuracy"):
    n = len(base)
    f = pd.DataFrame(
        {"model": np.repeat(["lr", "gbm"], n), "split": np.tile(np.arange(n), 2)}
        | {metric: np.r_[base, cand]}
    )
    return bc.Scores.from_frame(f, test_fraction=test_fraction)


def test_relative_margin_decides_as_the_log_ratio_tost():
    """300 tables (bench/relative_margin.py runs 1,000): promote and worse are the
    one-sided tests at alpha = 1 - gamma exactly; equivalent sits between the TOST at
    alpha/2 and at alpha."""
    out = agreement(300, seed=1)
    assert out["promote_mismatch"] == out["worse_mismatch"] == out["equivalent_outside"] == 0
    assert min(out[k] for k in ("promote", "worse", "equivalent", "inconclusive")) >= 30, out


def test_relative_rope_is_log1p_and_posterior_of_the_log_ratio():
    rng = np.random.default_rng(3)
    base = 0.8 + 0.01 * rng.standard_normal(20)
    cand = base * 1.02 * np.exp(0.004 * rng.standard_normal(20))
    res = bc.compare(_scores(base, cand), "lr", "gbm", rope="1%")
    assert float(res.rope) == pytest.approx(np.log(1.01), rel=1e-12)
    assert float(res.mean) == pytest.approx(np.mean(np.log(cand) - np.log(base)), rel=1e-12)
    assert res.candidate_score == pytest.approx(cand.mean())  # the raw scores, for the reader
    # lower is better: the oriented log ratio is log(baseline / candidate)
    low = bc.compare(_scores(base, cand), "lr", "gbm", rope=Relative(0.01), higher_is_better=False)
    assert float(low.mean) == pytest.approx(-float(res.mean), rel=1e-12)
    goal = bc.compare(_scores(base, cand), 0.8, "gbm", rope="1%")
    assert float(goal.mean) == pytest.approx(np.mean(np.log(cand / 0.8)), rel=1e-12)
    assert goal.baseline_name == "goal 0.8"


def test_standardized_rope_is_e_times_the_sd_of_the_differences():
    rng = np.random.default_rng(4)
    base = 0.8 + 0.01 * rng.standard_normal(25)
    cand = base + 0.003 + 0.004 * rng.standard_normal(25)
    res = bc.compare(_scores(base, cand), "lr", "gbm", rope=Standardized(0.5))
    assert float(res.rope) == pytest.approx(0.5 * np.std(cand - base, ddof=1), rel=1e-12)
    same = bc.compare(_scores(base, cand), "lr", "gbm", rope="0.5sd")
    assert float(same.rope) == float(res.rope)
    with pytest.raises(ValueError, match="differences that vary"):
        bc.compare(_scores(base, base + 0.01), "lr", "gbm", rope="0.5sd")


def test_mlflow_min_relative_change_is_translated_exactly():
    """Relative.from_mlflow(t) passes exactly the (positive) score pairs MLflow's own
    validation passes, both directions."""
    mlflow_validation = pytest.importorskip("mlflow.models.evaluation.validation")
    from mlflow.exceptions import MlflowException

    rng = np.random.default_rng(5)
    for greater in (True, False):
        t = mlflow_validation.MetricThreshold(min_relative_change=0.05, greater_is_better=greater)
        half = np.log1p(Relative.from_mlflow(t).r)
        for _ in range(200):
            b, c = rng.uniform(0.5, 1.0), rng.uniform(0.4, 1.1)
            try:
                mlflow_validation._validate({"m": t}, {"m": c}, {"m": b})
                passed = True
            except MlflowException:
                passed = False
            oriented = np.log(c / b) if greater else np.log(b / c)
            assert passed == (oriented >= half), (greater, b, c)


def test_select_accepts_margins_and_decides_as_compare():
    rng = np.random.default_rng(1)
    b = 0.8 + 0.01 * rng.standard_normal(30)
    c, e = b * 1.03 + 0.005 * rng.standard_normal(30), b * 1.005 + 0.005 * rng.standard_normal(30)
    f = pd.DataFrame(
        {"model": np.repeat(["lr", "gbm", "x"], 30), "split": np.tile(np.arange(30), 3)}
        | {"accuracy": np.r_[b, c, e]}
    )
    scores = bc.Scores.from_frame(f, test_fraction=0.1)
    direct = [bc.compare(scores, "lr", m, rope="1%").decision().outcome for m in ("gbm", "x")]
    assert scores.models == ["lr", "gbm", "x"]  # the log table is a copy: the table unchanged
    sel = bc.select(scores, baseline="lr", rope="1%")
    assert sel.steps["decision"].tolist() == direct == ["promote", "equivalent"]
    assert sel.to_dict()["rope"] == "1 % (relative)"
    assert "ROPE ±1 % (relative)" in str(sel)


@pytest.mark.parametrize(
    ("rope", "message"),
    [
        (Relative(0.01), "must be > 0"),  # a score <= 0
        ("1x", "relative margin"),
        ("1.2.3%", "a standardized one"),
    ],
)
def test_bad_margins_say_what_to_do(rope, message):
    base, cand = np.linspace(-0.1, 0.2, 10), np.linspace(0.0, 0.3, 10)
    with pytest.raises(ValueError, match=message):
        bc.compare(
            _scores(base, cand, metric="gain"), "lr", "gbm", rope=rope, higher_is_better=True
        )


@pytest.mark.parametrize("bad", [-0.01, float("nan"), True, "0.1"])
def test_margin_values_are_checked(bad):
    with pytest.raises(ValueError):
        Relative(bad)
    with pytest.raises(ValueError):
        Standardized(bad)


def test_margins_refuse_several_metrics():
    f = pd.DataFrame(
        {"model": np.repeat(["a", "b"], 10), "split": np.tile(np.arange(10), 2)}
        | {"acc": np.linspace(0.7, 0.9, 20), "f1": np.linspace(0.6, 0.8, 20)}
    )
    s = bc.Scores.from_frame(f, test_fraction=0.1)
    with pytest.raises(ValueError, match="several metrics takes a ROPE that is absolute"):
        bc.compare(s, "a", "b", metric=["acc", "f1"], rope="1%")
    assert as_margin("2 %") == Relative(0.02) and as_margin(" 0.3sd") == Standardized(0.3)


def test_cli_rope_percent(tmp_path, capsys):
    rng = np.random.default_rng(2)
    b = 0.8 + 0.01 * rng.standard_normal(20)
    f = pd.DataFrame(
        {"model": np.repeat(["lr", "gbm"], 20), "split": np.tile(np.arange(20), 2)}
        | {"accuracy": np.r_[b, b * 1.03], "n_train": 90, "n_test": 10}
    )
    f.to_csv(tmp_path / "s.csv", index=False)
    from bayescomp.cli.main import main

    cmd = ["compare", str(tmp_path / "s.csv"), "--baseline", "lr", "--rope"]
    assert main([*cmd, "1%", "--fail-unless", "promote"]) == 0
    out = capsys.readouterr().out
    assert "ROPE ±1 % (relative)" in out and "promote" in out
    with pytest.raises(SystemExit) as exc:
        main([*cmd, "1x"])
    assert exc.value.code == 2 and "relative margin ('1%')" in capsys.readouterr().err


def test_cli_relative_margin_headers_say_log_ratio(tmp_path, capsys):
    """Under ``--rope 1%`` the table's mean and interval are of the log ratio: the headers
    and the legend say so, and the mean is the by-hand mean of log(gbm / lr)."""
    rng = np.random.default_rng(5)
    b = 0.8 + 0.01 * rng.standard_normal(20)
    g = b * np.exp(0.03 + 0.002 * rng.standard_normal(20))
    f = pd.DataFrame(
        {"model": np.repeat(["lr", "gbm"], 20), "split": np.tile(np.arange(20), 2)}
        | {"accuracy": np.r_[b, g], "n_train": 90, "n_test": 10}
    )
    f.to_csv(tmp_path / "s.csv", index=False)
    from bayescomp.cli.main import main

    assert main(["compare", str(tmp_path / "s.csv"), "--baseline", "lr", "--rope", "1%"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "rope: ±1 % (relative; ±0.00995 on the log ratio)" in lines[0]
    assert "mean log ratio" in lines[2] and "95% HDI (log ratio)" in lines[2]
    assert "mean diff" not in lines[2]
    assert f"{np.mean(np.log(g / b)):+.4f}" in lines[4].split()
    assert any("Log ratios are log(candidate / baseline)." in line for line in lines)
