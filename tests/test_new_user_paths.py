"""What a new user trips over: ties, means beside decisions, one ROPE rule,
errors in the user's words, and a store that serves another metric without refitting."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

import bayescomp as bc
from bayescomp.cli.main import main
from bayescomp.core.tally import win_loss_tie
from bayescomp.splits.repeats import default_cv

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"


def _tied_scores() -> bc.Scores:
    """100 splits: the candidate ahead on 31, behind on 24, tied on 45 (the issue's case)."""
    rng = np.random.default_rng(3)
    base = np.round(rng.uniform(0.9, 0.97, 100), 2)
    step = np.r_[np.full(31, 0.01), np.full(24, -0.01), np.zeros(45)]
    cand = np.round(base + rng.permutation(step), 2)
    f = pd.DataFrame(
        {
            "model": ["lr"] * 100 + ["svm"] * 100,
            "split": list(range(100)) * 2,
            "accuracy": np.r_[base, cand],
        }
    )
    return bc.Scores.from_frame(f, test_fraction=0.1)


def test_win_loss_tie_counts_ties_apart():
    s = _tied_scores()
    p = s.paired("lr", "svm", "accuracy")
    b, c = p["baseline"].to_numpy(), p["candidate"].to_numpy()
    assert win_loss_tie(b, c) == (int((c > b).sum()), int((c < b).sum()), int((c == b).sum()))
    assert tuple(win_loss_tie(b, c)) == (31, 24, 45)
    assert tuple(win_loss_tie(b, c, higher_is_better=False)) == (24, 31, 45)


def test_every_paired_plot_reports_wins_losses_and_ties():
    from bayescomp.report.selection_plots import plot_paired_scores

    s = _tied_scores()
    ax = s.plot("lr", "svm", "accuracy")
    assert "svm better on 31, lr better on 24, tied on 45 of 100 splits" in ax.get_title()
    sel = bc.select(s, baseline="lr", rope=0.005, metric="accuracy", models=["lr", "svm"])
    ax = sel.plot_scores(1)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "svm better (31)" in labels and "lr better (24)" in labels and "tie (45)" in labels
    paired = sel.paired[0]
    ax = plot_paired_scores(paired, "lr", "svm", "accuracy", higher_is_better=False)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "svm better (24)" in labels and "tie (45)" in labels


def test_mean_scores_sit_beside_every_decision(tmp_path, capsys):
    s = _tied_scores()
    f = s.to_frame()
    means = f.groupby("model")["accuracy"].mean()
    sel = bc.select(s, baseline="lr", rope=0.005, metric="accuracy", models=["lr", "svm"])
    row = sel.summary().iloc[0]
    assert row["champion_score"] == pytest.approx(means["lr"])
    assert row["challenger_score"] == pytest.approx(means["svm"])
    cols = list(sel.summary().columns)
    assert cols.index("challenger_score") < cols.index("decision")
    res = bc.compare(s, "lr", "svm", metric="accuracy", rope=0.005)
    summ = res.summary().iloc[0]
    assert summ["baseline_score"] == pytest.approx(means["lr"])
    assert summ["candidate_score"] == pytest.approx(means["svm"])
    # the report: scores in the steps table, the candidates' column named after the metric
    html = sel.report(tmp_path / "rep").read_text()
    assert "<th>challenger_score</th>" in html and "<th>mean accuracy</th>" in html
    assert "<th>mean</th>" not in html
    assert "svm better on 31, lr better on 24, tied on 45 of 100 splits" in html
    # the command line
    path = tmp_path / "s.csv"
    s.to_csv(path)
    assert main(["compare", str(path), "--baseline", "lr", "--rope", "0.005"]) == 0
    out = capsys.readouterr().out
    assert f"(mean accuracy: {means['lr']:.4f})" in out and f"{means['svm']:.4f}" in out


def test_one_rope_rule_for_compare_and_select(tmp_path, capsys):
    path = tmp_path / "s.csv"
    _tied_scores().to_csv(path)
    for cmd in (
        ["compare", str(path), "--baseline", "lr"],
        ["select", str(path), "--baseline", "lr"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(cmd)
        assert exc.value.code == 2
        assert "--rope" in capsys.readouterr().err
    assert main(["compare", str(path), "--baseline", "lr", "--rope", "0"]) == 0
    assert "ROPE ±0 (--rope 0)" in capsys.readouterr().out
    assert (
        main(["select", str(path), "--baseline", "lr", "--metric", "accuracy", "--rope", "0.01"])
        == 0
    )
    assert "ROPE ±0.01 (--rope)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (
            [
                "select",
                str(MODELS) + "_misspelled",
                "--dataset",
                "iris",
                "--baseline",
                "knn",
                "--rope",
                "0.01",
            ],
            ["no such file or folder", "models_misspelled"],
        ),
        (
            [
                "select",
                str(MODELS),
                "--dataset",
                "diabetes",
                "--baseline",
                "logistic_regression",
                "--rope",
                "0.01",
            ],
            ["are classifiers", "'diabetes' is a regression task"],
        ),
        (
            [
                "compare",
                "--dataset",
                "diabetes",
                str(MODELS / "knn.py"),
                str(MODELS / "naive_bayes.py"),
                "--rope",
                "0.01",
            ],
            ["are classifiers", "regression task"],
        ),
    ],
)
def test_errors_in_the_users_words(argv, fragments, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    for frag in fragments:
        assert frag in err


def test_empty_models_folder_says_so(tmp_path, capsys):
    (tmp_path / "models").mkdir()
    assert (
        main(
            [
                "select",
                str(tmp_path / "models"),
                "--dataset",
                "iris",
                "--baseline",
                "a",
                "--rope",
                "0.01",
            ]
        )
        == 2
    )
    assert "holds no model files (*.py)" in capsys.readouterr().err


def test_errors_name_flags_not_python_arguments(tmp_path, capsys):
    f = pd.DataFrame(
        {
            "model": ["a"] * 3 + ["b"] * 3,
            "split": [0, 1, 2] * 2,
            "acc": [0.8, 0.81, 0.82, 0.83, 0.82, 0.84],
            "f1": [0.7, 0.71, 0.7, 0.72, 0.73, 0.7],
        }
    )
    path = tmp_path / "s.csv"
    f.to_csv(path, index=False)
    assert main(["compare", str(path), "--baseline", "a", "--rope", "0"]) == 2
    err = capsys.readouterr().err
    assert "--test-fraction" in err and "test_fraction" not in err
    assert (
        main(["compare", str(path), "--baseline", "a", "--rope", "0", "--test-fraction", "0.1"])
        == 2
    )
    err = capsys.readouterr().err
    assert "--metric" in err and "metric=" not in err
    assert (
        main(["compare", str(path), "--baseline", "a", "--rope", "0", "--test-fraction", "2"]) == 2
    )
    assert "--test-fraction must lie in (0, 1)" in capsys.readouterr().err
    preds = tmp_path / "p.csv"
    pd.DataFrame({"y": [0, 1] * 50, "p": np.linspace(0, 1, 100)}).to_csv(preds, index=False)
    assert (
        main(["interval", str(preds), "--y-true", "y", "--pred", "p", "--metric", "precision"]) == 2
    )
    err = capsys.readouterr().err
    assert "--threshold 0.5" in err and "threshold=" not in err and "y_pred" not in err


def test_auc_alias_works_in_select_as_in_interval(tmp_path, capsys):
    s = _tied_scores().to_frame().rename(columns={"accuracy": "roc_auc"})
    path = tmp_path / "s.csv"
    s.to_csv(path, index=False)
    assert (
        main(
            ["select", str(path), "--baseline", "lr", "--metric", "auc", "--rope", "0.01", "--json"]
        )
        == 0
    )
    assert '"metric": "roc_auc"' in capsys.readouterr().out
    X, y = load_breast_cancer(return_X_y=True)
    sel = bc.select_models(
        {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)},
        X,
        y,
        baseline="nb",
        scoring="auc",
        rope=0.01,
        progress=False,
        cv=default_cv(y, n_splits=3, n_repeats=1),
    )
    assert sel.metric == "roc_auc"


def test_store_serves_another_metric_without_refitting(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    models = {"nb": GaussianNB(), "lr": LogisticRegression(C=0.5, max_iter=3000)}
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    store = tmp_path / "s.sqlite"
    first = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        metric="roc_auc",
        rope=0.002,
        cv=cv,
        store=store,
        progress=False,
    )
    assert first.fits_performed == 12
    assert {"roc_auc", "accuracy", "neg_log_loss"} <= set(first.settings["scoring"])
    second = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        metric="accuracy",
        rope=0.002,
        cv=cv,
        store=store,
        progress=False,
    )
    assert (second.fits_performed, second.fits_loaded) == (0, 12)
    # the accuracy it decided on is the one stored, and equals a direct computation
    con = sqlite3.connect(store)
    stored = dict(
        con.execute(
            "SELECT model || '/' || split, value FROM scores WHERE metric='accuracy'"
        ).fetchall()
    )
    con.close()
    f = second.scores.to_frame()
    for r in f.to_dict("records"):
        assert stored[f"{r['model']}/{r['split']}"] == pytest.approx(r["accuracy"], abs=0)
    from sklearn.base import clone

    train, test = bc.materialise_splits(cv, X, y).splits[0]
    direct = clone(models["lr"]).fit(X[train], y[train]).score(X[test], y[test])
    assert f[(f.model == "lr") & (f.split == 0)]["accuracy"].iloc[0] == pytest.approx(direct)
    # a metric that was never scored is fitted again, not invented
    third = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        scoring="recall",
        rope=0.002,
        cv=cv,
        store=store,
        progress=False,
    )
    assert third.fits_performed == 12
