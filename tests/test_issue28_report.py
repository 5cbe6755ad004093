"""Issue 28, item 23: ``--help`` with the essential flags first, the HTML report's layout
and what it was run on, and the tables of ``compare --predictions`` and ``rank``."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from bayescomp.cli.main import main
from bayescomp.core.regions import format_probability


def run(capsys, *argv: str) -> str:
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0, out
    return out


# -- compare --predictions: the column is the posterior mean, not "mean diff" ----------------


def test_predictions_table_names_the_posterior_mean(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    old = np.where(rng.random(300) < 0.70, y, 1 - y)
    new = np.where(rng.random(300) < 0.78, y, 1 - y)
    pd.DataFrame({"y_true": y, "old": old, "new": new}).to_csv(tmp_path / "p.csv", index=False)
    monkeypatch.chdir(tmp_path)
    args = ["compare", "--predictions", "p.csv", "--baseline", "old", "--metric", "accuracy"]
    args += ["--rope", "0.01"]
    record = json.loads(run(capsys, *args, "--json"))
    text = run(capsys, *args).splitlines()
    head = text[2].split()
    assert head[:4] == ["candidate", "accuracy", "posterior", "mean"] and "diff" not in head
    row = text[4].split()
    assert row[0] == "new" and row[2] == f"{record['mean']:+.4f}" == "+0.0032"
    assert f"{record['estimate']:+.4f}" == "+0.0033"  # not the observed difference


# -- rank: a probability never rounds across gamma beside an undecided pair -------------------


def _rank_scores(path, shift: float) -> None:
    rng = np.random.default_rng(0)
    a = 0.8 + rng.normal(0, 0.01, 20)
    noise = rng.normal(0, 0.01, 20)
    rows = []
    for model, values in (("a", a), ("b", a + noise - noise.mean() + shift)):
        rows += [
            {"dataset": "d", "model": model, "split": i, "n_train": 90, "n_test": 10, "accuracy": v}
            for i, v in enumerate(values)
        ]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_rank_pairwise_table_does_not_round_a_probability_across_gamma(tmp_path, capsys):
    from bayescomp.decision.ranking import rank
    from bayescomp.scores.table import Scores

    path = tmp_path / "s.csv"

    def p_better(shift: float) -> float:
        _rank_scores(path, shift)
        t = rank(Scores.read_csv(path), metric="accuracy", method="pairwise").summary(0.95)
        return float(t[(t.model == "b") & (t.versus == "a")].p_better.iloc[0])

    lo, hi = 0.0, 0.02  # the shift giving P(b better) just under 0.95
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if p_better(mid) < 0.94997 else (lo, mid)
    p = p_better(lo)
    assert 0.9495 <= p < 0.95
    rows = json.loads(run(capsys, "rank", str(path), "--json"))["rows"]
    pair = next(r for r in rows if (r["model"], r["versus"]) == ("b", "a"))
    assert pair["p_better"] == pytest.approx(p) and pair["decision"] == "inconclusive"
    text = run(capsys, "rank", str(path))
    line = next(s for s in text.splitlines() if re.match(r"\s*b\s+\S+\s+a\s", s))
    assert line.split()[3] == format_probability(p, 0.95) == f"{p:.5f}"
    assert "0.950 " not in line
