"""The ``bayescomp compare`` command, checked against scipy on the scores it saved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayescomp.cli.main import main

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"


def _posterior_from_csv(path: Path, baseline: str, candidate: str, metric: str, rope: float):
    f = pd.read_csv(path)
    b = f[f.model == baseline].sort_values("split")
    c = f[f.model == candidate].sort_values("split")
    d = c[metric].to_numpy() - b[metric].to_numpy()
    n = len(d)
    rho = float(np.mean(b.n_test / (b.n_train + b.n_test)))
    scale = np.sqrt(d.var(ddof=1) * (1 / n + rho / (1 - rho)))
    t = stats.t(n - 1, loc=d.mean(), scale=scale)
    return t.cdf(-rope), t.sf(rope), rho


@pytest.fixture(scope="module")
def model_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "scores.csv"
    argv = [
        "compare",
        "--dataset",
        "breast_cancer",
        str(MODELS / "naive_bayes.py"),
        str(MODELS / "logistic_regression.py"),
        "--metric",
        "roc_auc",
        "--rope",
        "0.005",
        "--n-splits",
        "5",
        "--n-repeats",
        "2",
        "--save-scores",
        str(out),
        "--json",
        "--quiet",
    ]
    return argv, out


def test_compare_model_files_json_matches_scipy(model_run, capsys):
    argv, out = model_run
    assert main(argv) == 0
    res = json.loads(capsys.readouterr().out)[0]
    p_left, p_right, rho = _posterior_from_csv(
        out, "naive_bayes", "logistic_regression", "roc_auc", 0.005
    )
    assert res["baseline"] == "naive_bayes" and res["candidate"] == "logistic_regression"
    assert res["rho"] == pytest.approx(0.2)
    assert rho == pytest.approx(0.2, abs=1e-3)  # 569 rows, 5 folds: 113/114-row test sets
    assert res["p_left"] == pytest.approx(p_left, abs=1e-12)
    assert res["p_right"] == pytest.approx(p_right, abs=1e-12)
    assert res["p_left"] + res["p_rope"] + res["p_right"] == pytest.approx(1.0)
    assert res["decision"] in {"promote", "worse", "equivalent", "inconclusive"}
    assert res["n"] == 10 and res["df"] == 9


def test_compare_csv_table_and_gate(model_run, capsys):
    argv, out = model_run
    if not out.exists():
        main(argv)
    capsys.readouterr()
    code = main(
        [
            "compare",
            str(out),
            "--baseline",
            "naive_bayes",
            "--candidate",
            "logistic_regression",
            "--metric",
            "roc_auc",
            "--rope",
            "0.5",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "logistic_regression" in text and "equivalent" in text  # a ROPE of ±0.5 AUC
    # the CI gate: not a promotion with such a wide ROPE -> exit status 1
    code = main(
        [
            "compare",
            str(out),
            "--baseline",
            "naive_bayes",
            "--metric",
            "roc_auc",
            "--rope",
            "0.5",
            "--fail-unless",
            "promote",
        ]
    )
    assert code == 1


def test_compare_against_goal(model_run, capsys):
    argv, out = model_run
    if not out.exists():
        main(argv)
    capsys.readouterr()
    assert (
        main(
            [
                "compare",
                str(out),
                "--baseline",
                "0.5",
                "--candidate",
                "naive_bayes",
                "--metric",
                "roc_auc",
                "--rope",
                "0",
                "--json",
            ]
        )
        == 0
    )
    res = json.loads(capsys.readouterr().out)[0]
    # AUC of naive Bayes on breast cancer is ~0.98: certainly above a goal of 0.5
    assert res["p_right"] > 0.999 and res["baseline"] == "goal 0.5"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (
            ["compare", "missing.csv", "--baseline", "a", "--rope", "0.01"],
            "no such file or folder: missing.csv",
        ),
        (
            [
                "compare",
                "--dataset",
                "nope",
                str(MODELS / "knn.py"),
                str(MODELS / "svm_rbf.py"),
                "--rope",
                "0.01",
            ],
            "unknown built-in dataset",
        ),
        (
            ["compare", str(MODELS / "knn.py"), str(MODELS / "svm_rbf.py"), "--rope", "0.01"],
            "need --dataset",
        ),
        (["compare", "a.py", "b.py", "--rope", "0.01"], "no such file or folder: a.py, b.py"),
        (
            ["compare", "--dataset", "iris", str(MODELS / "knn.py"), "--rope", "0.01"],
            "at least two model files",
        ),
        (
            [
                "compare",
                "--dataset",
                "iris",
                str(MODELS / "knn.py"),
                "missing_model.py",
                "--rope",
                "0.01",
            ],
            "no such file or folder: missing_model.py",
        ),
    ],
)
def test_bad_arguments_give_one_line(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_unknown_metric_and_unpaired_csv(tmp_path, capsys):
    f = pd.DataFrame(
        {
            "model": ["a"] * 4 + ["b"] * 3,
            "split": [0, 1, 2, 3, 0, 1, 2],
            "n_train": 90,
            "n_test": 10,
            "weird": [0.1, 0.2, 0.3, 0.2, 0.3, 0.4, 0.3],
        }
    )
    path = tmp_path / "s.csv"
    f.to_csv(path, index=False)
    assert main(["compare", str(path), "--baseline", "a", "--rope", "0"]) == 2
    err = capsys.readouterr().err
    assert "unknown metric 'weird'" in err and "--higher-is-better or --lower-is-better" in err
    assert main(["compare", str(path), "--baseline", "a", "--higher-is-better", "--rope", "0"]) == 2
    err = capsys.readouterr().err
    assert "unpaired splits" in err and "0–3" in err and "0–2" in err


def test_entry_point_runs_as_module():
    proc = subprocess.run(
        [sys.executable, "-m", "bayescomp", "--version"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("bayescomp ")


@pytest.fixture(scope="module")
def shared_csv(shared_data, tmp_path_factory):
    from baycomp_data import load_baycomp_accuracies

    df = load_baycomp_accuracies(shared_data / "baycomp_accuracies.txt")
    path = tmp_path_factory.mktemp("shared") / "nbc_hnb_aode.csv"
    df[df.model.isin(["nbc", "hnb", "aode"])].to_csv(path, index=False)
    return path


def test_compare_across_datasets_signed_rank_matches_published(shared_csv, capsys):
    # Benavoli et al. 2017 / baycomp docs: nbc vs aode, signed-rank, rope 1%: (0.00, 0.12, 0.88)
    assert (
        main(
            [
                "compare",
                str(shared_csv),
                "--baseline",
                "nbc",
                "--candidate",
                "aode",
                "--metric",
                "accuracy",
                "--rope",
                "0.01",
                "--method",
                "signed_rank",
                "--json",
            ]
        )
        == 0
    )
    res = json.loads(capsys.readouterr().out)[0]
    assert res["method"] == "signed_rank" and res["n_datasets"] == 53
    conv = res["probabilities"]["baycomp_convention"]
    assert conv["p_left"] == pytest.approx(0.0, abs=0.01)
    assert conv["p_rope"] == pytest.approx(0.12, abs=0.03)
    assert conv["p_right"] == pytest.approx(0.88, abs=0.03)


def test_compare_across_datasets_hierarchical_with_plots(shared_csv, tmp_path, capsys):
    plots = tmp_path / "plots"
    code = main(
        [
            "compare",
            str(shared_csv),
            "--baseline",
            "nbc",
            "--candidate",
            "hnb",
            "--metric",
            "accuracy",
            "--rope",
            "0.01",
            "--draws",
            "400",
            "--chains",
            "2",
            "--seed",
            "1",
            "--plots",
            str(plots),
            "--json",
        ]
    )
    assert code == 0
    res = json.loads(capsys.readouterr().out)[0]
    assert res["method"] == "hierarchical" and set(res["diagnostics"]) >= {"max_r_hat", "converged"}
    # published (baycomp docs): nbc vs hnb hierarchical, baycomp convention P(hnb better)=0.998
    assert res["probabilities"]["baycomp_convention"]["p_right"] > 0.95
    assert res["p_left"] < 0.01
    names = sorted(p.name for p in plots.iterdir())
    assert names == [f"hnb_vs_nbc_{k}.png" for k in ("forest", "posterior", "simplex", "trace")]


def test_several_datasets_refuse_the_ttest(shared_csv, capsys):
    assert (
        main(
            [
                "compare",
                str(shared_csv),
                "--baseline",
                "nbc",
                "--candidate",
                "hnb",
                "--metric",
                "accuracy",
                "--method",
                "ttest",
                "--rope",
                "0",
            ]
        )
        == 2
    )
    assert "pass --dataset NAME" in capsys.readouterr().err


def test_scorers_without_mlflow_runs_is_refused_not_ignored(shared_csv, capsys):
    argv = ["compare", str(shared_csv), "--baseline", "nbc", "--candidate", "hnb", "--rope", "0"]
    assert main([*argv, "--metric", "accuracy", "--scorers", "accuracy:lower"]) == 2
    err = capsys.readouterr().err
    assert "--scorers names the scorers of --mlflow-runs" in err and len(err.splitlines()) == 1
