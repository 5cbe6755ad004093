"""A predictions table in Python and on the command line (``compare --predictions``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run_cli

import bayescomp as bc
from bayescomp.posterior.compare import compare
from bayescomp.posterior.holdout import holdout_posterior

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """Questions grouped by passage: 60 passages of 5 questions, two systems and a third."""
    rng = np.random.default_rng(0)
    g, m = 60, 5
    passage = np.repeat(np.arange(g), m)
    hard = rng.normal(size=g)[passage]
    truth = rng.integers(0, 2, g * m)
    right_a = rng.random(g * m) < 1 / (1 + np.exp(-(0.5 + hard)))
    right_b = rng.random(g * m) < 1 / (1 + np.exp(-(1.2 + hard)))
    return pd.DataFrame(
        {
            "y_true": truth,
            "passage": [f"p{p}" for p in passage],
            "A": np.where(right_a, truth, 1 - truth),
            "B": np.where(right_b, truth, 1 - truth),
            "C": np.where(right_a, truth, 1 - truth),
        }
    )


_run = run_cli


def test_compare_predictions_equals_the_array_call(table):
    res = compare(table, "A", "B", metric="accuracy", rope=0.01, cluster="passage", random_state=3)
    ref = holdout_posterior(
        table["y_true"],
        table["A"],
        table["B"],
        metric="accuracy",
        rope=0.01,
        cluster=table["passage"],
        random_state=3,
    )
    np.testing.assert_array_equal(res.draws, ref.draws)
    assert (res.baseline_name, res.candidate_name, res.n_clusters) == ("A", "B", 60)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"baseline": "Z", "candidate": "B"}, "not a model column"),
        ({"baseline": "A", "candidate": "A"}, "same column"),
        ({"baseline": "A", "candidate": "B", "cluster": "nope"}, "not in the predictions table"),
        ({"baseline": "A", "candidate": "B", "sample": "passage"}, "pass item=COLUMN"),
    ],
)
def test_predictions_table_errors_say_what_to_do(table, kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare(table, **kwargs)


def test_cli_compare_predictions_json_equals_python(table, tmp_path):
    table.to_csv(tmp_path / "preds.csv", index=False)
    out = _run(
        "compare",
        "--predictions",
        "preds.csv",
        "--baseline",
        "A",
        "--candidate",
        "B",
        "--metric",
        "accuracy",
        "--rope",
        "0.01",
        "--cluster",
        "passage",
        "--seed",
        "0",
        "--json",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)[0]
    ref = compare(table, "A", "B", metric="accuracy", rope=0.01, cluster="passage", random_state=0)
    assert got["p_right"] == pytest.approx(ref.p_right, abs=1e-12)
    assert got["design_effect"] == pytest.approx(ref.design_effect, rel=1e-12)
    assert got["decision"] == ref.decision().outcome
    assert got["mcnemar_pvalue_exact"] == pytest.approx(
        ref.frequentist["mcnemar"].pvalue_exact, abs=1e-12
    )


def test_cli_compare_predictions_table_and_errors(table, tmp_path):
    table.to_csv(tmp_path / "preds.csv", index=False)
    out = _run(
        "compare",
        "--predictions",
        "preds.csv",
        "--baseline",
        "A",
        "--rope",
        "0.01",
        "--cluster",
        "passage",
        "--plot",
        "p.png",
        "--candidate",
        "B",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "clusters: 60" in out.stdout and "design effect" in out.stdout
    assert "McNemar exact p" in out.stdout
    assert (tmp_path / "p.png").stat().st_size > 1000
    bad = _run(
        "compare", "--predictions", "preds.csv", "--baseline", "Z", "--rope", "0.01", cwd=tmp_path
    )
    assert bad.returncode == 2 and "not a model column" in bad.stderr
    bad = _run(
        "compare",
        "--predictions",
        "preds.csv",
        "--baseline",
        "A",
        "--rope",
        "0.01",
        "--cluster",
        "chapter",
        cwd=tmp_path,
    )
    assert bad.returncode == 2 and "'chapter' is not in" in bad.stderr


def test_select_over_predictions_walks_champion_challenger(table):

    sel = bc.select(
        table,
        baseline="A",
        rope=0.01,
        rule="champion_challenger",
        compare_options={"cluster": "passage", "random_state": 0},
    )
    assert sel.steps["challenger"].tolist() == ["B", "C"]
    for row, res in zip(sel.steps.to_dict("records"), sel.results, strict=True):
        ref = compare(
            table, row["champion"], row["challenger"], rope=0.01, cluster="passage", random_state=1
        )
        assert row["p_right"] == pytest.approx(ref.p_right, abs=0.03)  # two seeds
        assert row["p_right"] == pytest.approx(res.p_right)
        assert row["challenger_score"] == pytest.approx(ref.candidate_score)
    assert sel.champion == ("B" if sel.steps["decision"].iloc[0] == "promote" else "A")
    assert sel.scores.models == ["A", "B", "C"] and len(sel.paired[0]) == len(table)


def test_cli_select_predictions_matches_python(table, tmp_path):

    table.to_csv(tmp_path / "preds.csv", index=False)
    out = _run(
        "select",
        "--predictions",
        "preds.csv",
        "--baseline",
        "A",
        "--rope",
        "0.01",
        "--cluster",
        "passage",
        "--json",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    sel = bc.select(
        table, baseline="A", rope=0.01, compare_options={"cluster": "passage", "random_state": 0}
    )
    assert got["champion"] == sel.champion
    assert [s["decision"] for s in got["steps"]] == sel.steps["decision"].tolist()


def test_bc_compare_reads_a_predictions_table(table):
    import bayescomp as bc

    res = bc.compare(
        table, "A", "B", metric="accuracy", rope=0.01, cluster="passage", random_state=5
    )
    ref = compare(table, "A", "B", metric="accuracy", rope=0.01, cluster="passage", random_state=5)
    np.testing.assert_array_equal(res.draws, ref.draws)
    same = bc.compare(table, "A", "B", method="holdout", rope=0.01, random_state=5)
    assert same.method == "dirichlet_multinomial" and same.metric == "accuracy"


def test_bc_select_walks_a_predictions_table(table):
    import bayescomp as bc

    fam = bc.select(table, baseline="A", rope=0.01, compare_options={"cluster": "passage"})
    ref_fam = bc.select(table, baseline="A", rope=0.01, compare_options={"cluster": "passage"})
    assert fam.recommendation["rule"] == "family" and fam.champion == ref_fam.champion
    assert fam.steps["p_family"].equals(ref_fam.steps["p_family"])
    sel = bc.select(
        table,
        baseline="A",
        rope=0.01,
        rule="champion_challenger",
        compare_options={"cluster": "passage"},
    )
    ref = bc.select(
        table,
        baseline="A",
        rope=0.01,
        rule="champion_challenger",
        compare_options={"cluster": "passage"},
    )
    assert sel.champion == ref.champion
    assert sel.steps["p_right"].tolist() == ref.steps["p_right"].tolist()
    with pytest.raises(
        ValueError, match=r"rule must be one of \['family', 'champion_challenger'\]"
    ):
        bc.select(table, baseline="A", rope=0.01, rule="family_wise")
