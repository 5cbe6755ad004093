"""bayescomp interval / curves / unlabeled on CSV files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.cli import main as cli


def test_help_lists_the_three_commands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in ("interval", "curves", "unlabeled"))


@pytest.fixture
def preds(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    frame = pd.DataFrame(
        {"y": y, "old": y + rng.normal(0, 2, 300), "new": y + rng.normal(0, 0.7, 300)}
    )
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_interval_matches_library_and_writes_plot(preds, tmp_path, capsys):
    path, frame = preds
    png, out = tmp_path / "auc.png", tmp_path / "auc.csv"
    rc = cli.main(
        [
            "interval",
            str(path),
            "--y-true",
            "y",
            "--pred",
            "new",
            "--n-resamples",
            "300",
            "--seed",
            "1",
            "--plot",
            str(png),
            "--out",
            str(out),
        ]
    )
    assert rc == 0 and png.stat().st_size > 5000
    ref = bc.bootstrap_metric(frame["y"], frame["new"], "roc_auc", n_resamples=300, random_state=1)
    got = pd.read_csv(out).iloc[0]
    assert got["low"] == pytest.approx(ref.low) and got["high"] == pytest.approx(ref.high)
    assert "roc_auc" in capsys.readouterr().out


def test_interval_paired_and_blb(preds, tmp_path, capsys):
    path, _ = preds
    assert (
        cli.main(
            [
                "interval",
                str(path),
                "--y-true",
                "y",
                "--pred",
                "old",
                "--candidate",
                "new",
                "--n-resamples",
                "200",
                "--seed",
                "0",
            ]
        )
        == 0
    )
    assert "new - old" in capsys.readouterr().out
    # the CLI collects warnings and prints each once on stderr after the output
    assert (
        cli.main(["interval", str(path), "--y-true", "y", "--pred", "new", "--blb", "--seed", "0"])
        == 0
    )
    cap = capsys.readouterr()
    assert "blb-percentile" in cap.out
    assert cap.err.startswith("bayescomp interval: UserWarning: only 300 rows:")
    assert "meant for large" in cap.err


def test_interval_errors_are_one_line(preds, capsys):
    path, _ = preds
    assert cli.main(["interval", str(path), "--y-true", "y", "--pred", "nope"]) == 2
    err = capsys.readouterr().err
    assert "column 'nope' not in" in err and err.count("\n") == 1
    assert cli.main(["interval", "missing.csv", "--y-true", "y", "--pred", "new"]) == 2
    assert (
        cli.main(["interval", str(path), "--y-true", "y", "--pred", "new", "--metric", "accuracy"])
        == 2
    )
    assert "threshold" in capsys.readouterr().err


def test_curves(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = []
    for r in range(5):
        y = rng.integers(0, 2, 80)
        rows.append(
            pd.DataFrame(
                {
                    "rep": r,
                    "y": y,
                    "p": np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, 80), 0, 1),
                }
            )
        )
    path = tmp_path / "oof.csv"
    pd.concat(rows).to_csv(path, index=False)
    png, out = tmp_path / "pr.png", tmp_path / "pr.csv"
    assert (
        cli.main(
            [
                "curves",
                str(path),
                "--y-true",
                "y",
                "--score",
                "p",
                "--repetition",
                "rep",
                "--thresholds",
                "0:1:21",
                "--plot",
                str(png),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    table = pd.read_csv(out, index_col=0)
    assert len(table) == 21 and "precision_n_defined" in table.columns
    assert png.stat().st_size > 5000
    assert (
        cli.main(
            [
                "curves",
                str(path),
                "--y-true",
                "y",
                "--score",
                "p",
                "--repetition",
                "rep",
                "--thresholds=-1:1:5",
            ]
        )
        == 2
    )
    assert "[0, 1]" in capsys.readouterr().err


def test_unlabeled(tmp_path, capsys):
    rng = np.random.default_rng(2)
    test = pd.DataFrame(
        {
            "y": np.r_[np.ones(300, int), np.zeros(300, int)],
            "score": np.r_[rng.normal(2, 1, 300), rng.normal(0, 1, 300)],
        }
    )
    pool = pd.DataFrame({"score": np.r_[rng.normal(2, 1, 200), rng.normal(0, 1, 1800)]})
    tp, pp = tmp_path / "test.csv", tmp_path / "pool.csv"
    test.to_csv(tp, index=False)
    pool.to_csv(pp, index=False)
    png, out = tmp_path / "rk.png", tmp_path / "rk.csv"
    assert (
        cli.main(
            [
                "unlabeled",
                "--test",
                str(tp),
                "--pool",
                str(pp),
                "--score",
                "score",
                "--label",
                "y",
                "--class-size",
                "150:250",
                "--plot",
                str(png),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    table = pd.read_csv(out, index_col=0)
    ref = bc.precision_at_k_unlabeled(test["score"], test["y"], pool["score"], (150, 250))
    np.testing.assert_allclose(table["precision_at_k_upper"], ref.table["precision_at_k_upper"])
    assert "best F1@k" in capsys.readouterr().out and png.exists()
    assert (
        cli.main(
            [
                "unlabeled",
                "--test",
                str(tp),
                "--pool",
                str(pp),
                "--score",
                "score",
                "--label",
                "y",
                "--class-size",
                "5000",
            ]
        )
        == 2
    )
    assert "exceeds" in capsys.readouterr().err


def test_curves_string_labels_need_pos_label(tmp_path, capsys):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    frame = pd.DataFrame(
        {
            "rep": np.repeat([0, 1], 30),
            "y": np.where(y == 1, "pos", "neg"),
            "p": np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, 60), 0, 1),
        }
    )
    path = tmp_path / "oof.csv"
    frame.to_csv(path, index=False)
    args = [
        "curves",
        str(path),
        "--y-true",
        "y",
        "--score",
        "p",
        "--repetition",
        "rep",
        "--thresholds",
        "0:1:5",
    ]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (
        "--pos-label 1 is not among the --y-true column's labels ['neg', 'pos']; pass "
        "--pos-label with the positive class (e.g. --pos-label pos)"
    ) in err
    assert cli.main([*args, "--pos-label", "pos"]) == 0


def test_interval_threshold_string_labels_is_one_line_error(tmp_path, capsys):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 80)
    frame = pd.DataFrame(
        {
            "y": np.where(y == 1, "pos", "neg"),
            "p": np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, 80), 0, 1),
        }
    )
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    args = [
        "interval",
        str(path),
        "--y-true",
        "y",
        "--pred",
        "p",
        "--metric",
        "accuracy",
        "--threshold",
        "0.5",
        "--n-resamples",
        "200",
        "--seed",
        "0",
    ]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (
        "--pos-label 1 is not among the --y-true column's labels ['neg', 'pos']; pass "
        "--pos-label with the positive class (e.g. --pos-label pos)"
    ) in err
    assert cli.main([*args, "--pos-label", "pos"]) == 0
    ref = bc.bootstrap_metric(
        frame["y"],
        frame["p"],
        "accuracy",
        threshold=0.5,
        pos_label="pos",
        n_resamples=200,
        random_state=0,
    )
    assert f"{ref.estimate:.4g}" in capsys.readouterr().out
