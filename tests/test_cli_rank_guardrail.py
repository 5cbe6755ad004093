"""``bayescomp rank``, ``--guardrail METRIC:ROPE`` in select/compare, and the top-level help.

Each command runs through ``python -m bayescomp`` in a subprocess; its numbers are checked
against the library called directly on the same table.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run_cli

import bayescomp as bc

REPO = Path(__file__).resolve().parents[1]


def bcli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd, timeout=600)


def scores_frame(datasets: int = 1, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for ds in range(datasets):
        for split in range(20):
            noise = rng.normal(0, 0.01)
            for model, acc, loss in (
                ("logreg", 0.80, -0.45),
                ("forest", 0.83, -0.47),
                ("knn", 0.78, -0.60),
            ):
                rows.append(
                    {
                        "dataset": f"d{ds}",
                        "model": model,
                        "split": split,
                        "n_train": 90,
                        "n_test": 10,
                        "accuracy": acc + 0.01 * ds + noise + rng.normal(0, 0.006),
                        "neg_log_loss": loss + rng.normal(0, 0.01),
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("rank")
    scores_frame().to_csv(d / "scores.csv", index=False)
    return d


def test_top_level_help_has_one_valid_example_per_command(work):
    from bayescomp.cli.main import COMMANDS, EXAMPLES, build_parser

    r = bcli("--help", cwd=work)
    assert r.returncode == 0
    examples = [line.strip() for line in EXAMPLES.splitlines() if line.startswith("  bayescomp")]
    assert sorted(shlex.split(e)[1] for e in examples) == sorted(COMMANDS)
    parser = build_parser()
    for e in examples:
        assert e in r.stdout
        parser.parse_args(shlex.split(e)[1:])  # every example is a valid command line


def test_rank_pairwise_matches_library(work):
    r = bcli(
        "rank",
        "scores.csv",
        "--metric",
        "accuracy",
        "--rope",
        "0.005",
        "--json",
        "--latex",
        "ranks.tex",
        "--plot",
        "ranks.png",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["method"] == "pairwise"
    ref = bc.rank(bc.Scores.read_csv(work / "scores.csv"), "accuracy", rope=0.005)
    got = {(row["model"], row["versus"]): row for row in out["rows"]}
    for a in ref.models:
        for b in ref.models:
            if a != b:
                assert got[a, b]["p_right"] == pytest.approx(ref.p_right.loc[a, b], abs=1e-12)
    assert "\\begin{tabular}" in (work / "ranks.tex").read_text()
    assert (work / "ranks.png").read_bytes()[:4] == b"\x89PNG"
    r = bcli("rank", "scores.csv", "--metric", "accuracy", cwd=work)
    assert r.returncode == 0 and "ranking of 3 models on accuracy (pairwise)" in r.stdout


@pytest.mark.slow
def test_rank_plackett_luce_from_the_shell(tmp_path):
    pytest.importorskip("pymc")
    scores_frame(datasets=6).to_csv(tmp_path / "many.csv", index=False)
    r = bcli(
        "rank",
        "many.csv",
        "--metric",
        "accuracy",
        "--draws",
        "300",
        "--chains",
        "2",
        "--latex",
        "pl.tex",
        "--plot",
        "pl.png",
        "--json",
        "--quiet",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["method"] == "plackett_luce"
    best = max(out["rows"], key=lambda row: row["p_best"])
    assert best["model"] == "forest"
    assert (tmp_path / "pl.tex").exists() and (tmp_path / "pl.png").exists()


def test_rank_refuses_rope_with_plackett_luce(work):
    r = bcli("rank", "scores.csv", "--method", "plackett_luce", "--rope", "0.01", cwd=work)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "--rope" in r.stderr


def test_rank_refuses_comment_file_and_writes_nothing(work):
    r = bcli("rank", "scores.csv", "--comment-file", "c.md", cwd=work)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "--comment-file" in r.stderr and not (work / "c.md").exists()


def test_rank_plackett_luce_refuses_a_nan_score_in_one_line(tmp_path):
    f = scores_frame(datasets=3)
    f.loc[(f["dataset"] == "d1") & (f["model"] == "knn") & (f["split"] == 4), "accuracy"] = np.nan
    f.to_csv(tmp_path / "nan.csv", index=False)
    r = bcli("rank", "nan.csv", "--metric", "accuracy", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "'accuracy' of 'knn' on dataset 'd1' is NaN/inf on split(s) 4" in r.stderr


def test_select_guardrail_joint_probability(work):
    r = bcli(
        "select",
        "scores.csv",
        "--baseline",
        "logreg",
        "--metric",
        "accuracy",
        "--rope",
        "0.005",
        "--guardrail",
        "neg_log_loss:0.01",
        "--json",
        "--report",
        "rep",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    steps = json.loads(r.stdout)["steps"]
    ref = bc.select(
        bc.Scores.read_csv(work / "scores.csv"),
        baseline="logreg",
        metric="accuracy",
        rope=0.005,
        compare_options={"guardrails": {"neg_log_loss": 0.01}},
    )
    for got, want in zip(steps, ref.steps.to_dict("records"), strict=True):
        assert got["p_joint"] == pytest.approx(want["p_joint"], abs=1e-12)
        assert got["p_joint"] <= got["p_right"] + 1e-12
    assert "p_joint" in (work / "rep" / "report.html").read_text(encoding="utf-8")
    table = bcli(
        "select",
        "scores.csv",
        "--baseline",
        "logreg",
        "--metric",
        "accuracy",
        "--rope",
        "0.005",
        "--guardrail",
        "neg_log_loss:0.01",
        cwd=work,
    )
    assert table.returncode == 0 and "p_joint" in table.stdout


def test_compare_guardrail_joint_probability(work):
    r = bcli(
        "compare",
        "scores.csv",
        "--baseline",
        "logreg",
        "--candidate",
        "forest",
        "--metric",
        "accuracy",
        "--rope",
        "0.005",
        "--guardrail",
        "neg_log_loss:0.01",
        "--json",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)[0]  # --json: a record per candidate
    ref = bc.compare(
        bc.Scores.read_csv(work / "scores.csv"),
        "logreg",
        "forest",
        metric=["accuracy", "neg_log_loss"],
        rope={"accuracy": 0.005, "neg_log_loss": 0.01},
        random_state=0,
    )
    assert rec["p_joint"] == pytest.approx(ref.p_joint, abs=1e-12)
    assert rec["decision"] == ref.decision(0.95).outcome


@pytest.mark.parametrize("bad", ["neg_log_loss", "neg_log_loss:-1", ":0.1", "x:abc"])
def test_bad_guardrail_one_line_exit_2(work, bad):
    r = bcli(
        "select",
        "scores.csv",
        "--baseline",
        "logreg",
        "--metric",
        "accuracy",
        "--rope",
        "0.005",
        "--guardrail",
        bad,
        cwd=work,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "METRIC:ROPE" in lines[0], r.stderr
