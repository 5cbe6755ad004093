"""``bayescomp select --fail-unless`` (CI gate exit codes) and ``--format markdown``."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from selection_data import write_selection_scores

from bayescomp.cli.main import main


@pytest.fixture(scope="module")
def scores_csv(tmp_path_factory):
    # steps: forest promote, knn worse, svm inconclusive
    return write_selection_scores(tmp_path_factory.mktemp("csv") / "scores.csv", last="svm|x")


def _args(csv, *more):
    return [
        "select",
        str(csv),
        "--baseline",
        "logreg",
        "--metric",
        "accuracy",
        "--rope",
        "0.01",
        "--rule",
        "champion_challenger",
        *more,
    ]


@pytest.mark.parametrize(
    ("gate", "status"), [(None, 0), ("promote", 0), ("keep", 1), ("decided", 1)]
)
def test_fail_unless_exit_status(scores_csv, gate, status, capsys):
    extra = [] if gate is None else ["--fail-unless", gate]
    assert main(_args(scores_csv, *extra)) == status
    out = capsys.readouterr().out
    if gate is not None:
        assert f"gate --fail-unless {gate}: " + ("passed" if status == 0 else "FAILED") in out


def test_decided_passes_when_no_step_is_open(scores_csv, capsys):
    # without the noisy challenger every step decides: promote then worse
    df = pd.read_csv(scores_csv)
    path = scores_csv.parent / "decided.csv"
    df[df["model"] != "svm|x"].to_csv(path, index=False)
    assert main(_args(path, "--fail-unless", "decided")) == 0
    capsys.readouterr()
    assert main(_args(path, "--fail-unless", "keep", "--json")) == 1
    rec = json.loads(capsys.readouterr().out)
    assert rec["gate"] == {"condition": "keep", "met": False}
    assert rec["recommendation"]["action"] == "promote"


def test_markdown_format(scores_csv, capsys):
    assert main(_args(scores_csv, "--format", "markdown", "--fail-unless", "promote")) == 0
    md = capsys.readouterr().out
    lines = md.splitlines()
    assert lines[:2] == ["<!-- bayescomp -->", "## bayescomp selection: **promote forest**"]
    table = [ln for ln in lines if ln.startswith("| ")]
    assert table[0].startswith("| step | champion | challenger | p_better")
    assert len(table) == 4  # header + three steps
    assert table[3].split(" | ")[2] == "svm\\|x"  # a pipe in a name cannot break the table
    assert table[1].endswith("| **promote** |") and table[2].endswith("| **worse** |")
    assert "CI gate `--fail-unless promote`: **passed**" in md
    assert md.count("- step ") == 3


def test_mlflow_uri_without_model_is_a_user_error(scores_csv, capsys):
    assert main(_args(scores_csv, "--mlflow-uri", "http://127.0.0.1:1")) == 2
    assert "--mlflow-model" in capsys.readouterr().err
