"""Every result type satisfies the typed contract (``core.protocols.Result`` / ``Posterior``),
and a compare method on paired predictions registered in one module outside the package
appears in ``bayescomp compare --method`` without touching the command line."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayescomp as bc
from bayescomp.core.arviz_compat import arviz_major
from bayescomp.core.protocols import Posterior, Result, ScoresProvider
from bayescomp.core.regions import shortest_interval
from bayescomp.report.templating import figure_of

REPO = Path(__file__).resolve().parents[1]
PLUGINS = Path(__file__).resolve().parent / "plugins"


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(0)
    base = rng.normal(0.8, 0.02, 20)
    frame = pd.DataFrame(
        {
            "model": np.repeat(["a", "b", "c"], 20),
            "split": np.tile(range(20), 3),
            "accuracy": np.r_[
                base, base + rng.normal(0.02, 0.01, 20), base + rng.normal(0.0, 0.01, 20)
            ],
            "f1": np.r_[base, base + 0.01, base - 0.01] - 0.1,
        }
    )
    return bc.Scores.from_frame(frame, test_fraction=0.1)


@pytest.fixture(scope="module")
def across():
    rng = np.random.default_rng(1)
    return {f"d{i}": rng.normal(0.01 * (i % 3), 0.01, 10) for i in range(8)}


def _check_contract(res, posterior: bool):
    """The fixed signatures, and that each verb does what the contract says."""
    assert isinstance(res, Result)
    summary = inspect.signature(type(res).summary).parameters["confidence_level"]
    assert summary.kind in (summary.POSITIONAL_OR_KEYWORD, summary.KEYWORD_ONLY)
    ax_param = inspect.signature(type(res).plot).parameters["ax"]
    assert ax_param.default is None
    assert isinstance(res.summary(confidence_level=None), pd.DataFrame)
    json.dumps(res.to_dict(), allow_nan=False)  # JSON-ready, NaN written as null
    fig, ax = plt.subplots()
    assert figure_of(res.plot(ax=ax)) is fig
    assert "<" in res._repr_html_()
    if posterior:
        assert isinstance(res, Posterior)
        d = res.decision(0.9)
        first = next(iter(res.probabilities().values()))
        assert (first.p_left, first.p_rope, first.p_right) == pytest.approx(
            (res.p_left, res.p_rope, res.p_right)
        )
        assert d.outcome in ("promote", "worse", "equivalent", "inconclusive")
        assert isinstance(res.diagnostics_summary(), dict)
        figures = res.figures()
        assert figures and all(hasattr(f, "savefig") for f in figures.values())


def test_correlated_ttest_keeps_the_contract(scores):
    res = bc.compare(scores, "a", "b", metric="accuracy", rope=0.01)
    _check_contract(res, posterior=True)
    row = res.summary(confidence_level=0.9).iloc[0]
    lo, hi = stats.t.interval(0.9, res.df, loc=res.mean, scale=res.scale)
    assert (row["hdi_90_low"], row["hdi_90_high"]) == pytest.approx((lo, hi))
    assert res.to_dict()["p_right"] == pytest.approx(stats.t.sf(0.01, res.df, res.mean, res.scale))


def test_holdout_result_keeps_the_contract():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 300)
    a = np.where(rng.random(300) < 0.8, y, 1 - y)
    b = np.where(rng.random(300) < 0.85, y, 1 - y)
    res = bc.holdout_posterior(y, a, b, metric="accuracy", rope=0.01, random_state=0)
    _check_contract(res, posterior=True)


def test_time_ordered_result_keeps_the_contract():
    from bayescomp.posterior.time_ordered import time_ordered_test

    rng = np.random.default_rng(6)
    b = rng.normal(0.8, 0.02, 30)
    res = time_ordered_test(b, b + rng.normal(0.01, 0.01, 30), rope=0.005)
    _check_contract(res, posterior=True)
    row = res.summary(confidence_level=0.8).iloc[0]
    assert res.cdf(row["hdi_80_low"]) == pytest.approx(0.1, abs=1e-6)


@pytest.mark.parametrize("method", ["sign", "signed_rank"])
def test_rank_tests_keep_the_contract(across, method):
    fn = bc.sign_test if method == "sign" else bc.signed_rank_test
    res = fn(across, rope=0.005, random_state=0, draws=5000)
    _check_contract(res, posterior=True)
    lo, hi = res.hdi(0.8)
    row = res.summary(confidence_level=0.8).iloc[0]
    assert (row["hdi_80_low"], row["hdi_80_high"]) == (lo, hi)
    assert res.to_dict()["method"] == method


def test_multimetric_result_keeps_the_contract(scores):
    res = bc.compare(scores, "a", "b", metric=["accuracy", "f1"], rope={"accuracy": 0.01})
    _check_contract(res, posterior=True)
    assert list(res.probabilities()) == ["accuracy", "f1"]


def test_hierarchical_result_keeps_the_contract(across):
    pytest.importorskip("pymc")
    res = bc.hierarchical_test(
        across, 0.1, rope=0.005, random_state=1, chains=2, draws=60, tune=60, refit=False
    )
    _check_contract(res, posterior=True)
    lo, hi = _arviz_hdi(res._delta0, 0.8)
    row = res.summary(confidence_level=0.8).iloc[0]
    assert (row["hdi_80_low"], row["hdi_80_high"]) == (lo, hi)
    per = res.per_dataset.iloc[0]
    delta = res.idata.posterior["delta"].values.reshape(-1, len(res.per_dataset))
    assert (per["hdi_95_low"], per["hdi_95_high"]) == _arviz_hdi(delta[:, 0], 0.95)
    assert set(res.figures()) == {"posterior", "simplex", "forest", "trace"}


def _arviz_hdi(x: np.ndarray, level: float) -> tuple[float, float]:
    """The installed ArviZ's own ``hdi`` of a 1-D sample (its keyword differs by version)."""
    import arviz as az

    key = "prob" if arviz_major() >= 1 else "hdi_prob"
    lo, hi = az.hdi(np.asarray(x, dtype=float), **{key: level})
    return float(lo), float(hi)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1999, 4000])
@pytest.mark.parametrize("level", [0.5, 0.8, 0.89, 0.95, 0.999])
def test_shortest_interval_is_arviz_hdi_to_the_draw(n, level):
    """The one HDI of draws picks the same two draws as the installed ArviZ's ``hdi`` (0.2x or
    1.x): a skewed sample with ties, whose interval moves when the window is one draw off."""
    rng = np.random.default_rng(n)
    x = np.round(rng.gamma(2.0, size=n), 2)
    assert shortest_interval(x, level) == _arviz_hdi(x, level)


def test_plackett_luce_keeps_the_result_contract():
    pytest.importorskip("pymc")
    rng = np.random.default_rng(2)
    table = pd.DataFrame(
        rng.normal(size=(6, 3)) + np.array([0, 0.5, 1]),
        index=[f"d{i}" for i in range(6)],
        columns=["x", "y", "z"],
    )
    res = bc.plackett_luce(table, random_state=0, chains=2, draws=60, tune=60)
    _check_contract(res, posterior=False)
    s = res.summary(confidence_level=0.5)
    w = res.worth_draws
    assert s.loc["z", "worth_low"] == pytest.approx(np.quantile(w[:, 2], 0.25))


def test_intervals_and_curves_keep_the_result_contract():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s1, s2 = y + rng.normal(0, 0.8, 300), y + rng.normal(0, 0.6, 300)
    ci = bc.bootstrap_metric(y, s1, metric="roc_auc", n_resamples=300, random_state=0)
    blb = bc.blb_metric(y, s1, metric="roc_auc", n_subsets=3, n_resamples=50, random_state=0)
    for res in (ci, blb):
        _check_contract(res, posterior=False)
    with pytest.raises(ValueError, match=r"computed at confidence_level=0\.95"):
        ci.summary(confidence_level=0.9)
    unl = bc.precision_at_k_unlabeled(s1[:150], y[:150], s1[150:], 70)
    _check_contract(unl, posterior=False)
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedShuffleSplit

    X = np.c_[s1, s2]
    cur = bc.threshold_curves(
        LogisticRegression(),
        X,
        y,
        thresholds=[0.3, 0.5, 0.7],
        cv=StratifiedShuffleSplit(5, test_size=0.3, random_state=0),
    )
    _check_contract(cur, posterior=False)
    band = cur.summary("precision", confidence_level=0.8)
    v = cur.metric_values("precision")
    assert band["q10"].to_numpy() == pytest.approx(np.nanquantile(v, 0.1, axis=0))


def test_frequentist_ranking_learning_and_selection_keep_the_result_contract(scores):
    rng = np.random.default_rng(4)
    b = rng.normal(0.8, 0.02, 20)
    nb = bc.nadeau_bengio_ttest(b, b + rng.normal(0.01, 0.01, 20), rho=0.1)
    _check_contract(nb, posterior=False)
    row = nb.summary(confidence_level=0.9).iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(nb.confidence_interval(0.9))
    _check_contract(bc.rank(scores, "accuracy", rope=0.01), posterior=False)
    sel = bc.select(scores, baseline="a", rope=0.01, metric="accuracy")
    _check_contract(sel, posterior=False)
    from sklearn.datasets import load_iris
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    lc = bc.learning_curves(
        {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)},
        X,
        y,
        baseline="nb",
        n_sizes=2,
        random_state=0,
    )
    _check_contract(lc, posterior=False)


def test_scores_table_is_a_scores_provider(scores):
    assert isinstance(scores, ScoresProvider)


# ------------------------------------------------------------ a plugin on paired predictions
def _predictions(tmp_path: Path) -> tuple[Path, tuple[int, int]]:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    a = np.where(rng.random(400) < 0.80, y, 1 - y)
    b = np.where(rng.random(400) < 0.86, y, 1 - y)
    path = tmp_path / "predictions.csv"
    pd.DataFrame({"y_true": y, "a": a, "b": b}).to_csv(path, index=False)
    only_b, only_a = int(np.sum((b == y) & (a != y))), int(np.sum((a == y) & (b != y)))
    return path, (only_b, only_a)


def _install_plugin(tmp_path: Path) -> dict[str, str]:
    """Declare tests/plugins/bc_discordant.py under the ``bayescomp.methods`` entry points,
    as an installed package would (a dist-info folder on the path)."""
    info = tmp_path / "site" / "bc_fixture_plugin-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bc-fixture-plugin\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[bayescomp.methods]\ndiscordant = bc_discordant\n")
    path = os.pathsep.join([str(REPO), str(PLUGINS), str(info.parent)])
    return {**os.environ, "PYTHONPATH": path}


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bayescomp", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_plugin_method_on_predictions_appears_in_the_cli(tmp_path):
    env = _install_plugin(tmp_path)
    helptext = _cli(["compare", "--help"], env)
    assert helptext.returncode == 0, helptext.stderr
    assert "discordant" in helptext.stdout
    path, (only_b, only_a) = _predictions(tmp_path)
    out = _cli(
        [
            "compare",
            str(path),
            "--method",
            "discordant",
            "--baseline",
            "a",
            "--candidate",
            "b",
            "--rope",
            "0",
            "--json",
        ],
        env,
    )
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)[0]
    exact = stats.beta.sf(0.5, only_b + 1, only_a + 1)  # P(theta_b > theta_a | no tie)
    assert abs(rec["p_right"] - exact) < 4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-9
    assert rec["decision"] == ("promote" if rec["p_right"] >= 0.95 else rec["decision"])
    text = _cli(
        ["compare", str(path), "--method", "discordant", "--baseline", "a", "--rope", "0.01"], env
    )
    assert text.returncode == 0, text.stderr
    assert "items: 400" in text.stdout and "method: discordant" in text.stdout
    without = _cli(
        ["compare", str(path), "--method", "discordant", "--baseline", "a", "--rope", "0"],
        {**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert without.returncode == 2 and "invalid choice: 'discordant'" in without.stderr


def test_a_plugin_method_takes_a_predictions_table_in_python(tmp_path, monkeypatch):
    from bayescomp.posterior import registry

    monkeypatch.setattr(registry, "REGISTRY", dict(registry.methods()))
    monkeypatch.syspath_prepend(str(PLUGINS))
    sys.modules.pop("bc_discordant", None)
    importlib.import_module("bc_discordant")
    path, (only_b, only_a) = _predictions(tmp_path)
    table = pd.read_csv(path)
    assert "discordant" in registry.methods()  # not frozen at import
    res = bc.compare(table, "a", "b", method="discordant", rope=0.0, random_state=0)
    exact = stats.beta.sf(0.5, only_b + 1, only_a + 1)
    assert abs(res.p_right - exact) < 4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-9
    with pytest.raises(ValueError, match="no column \\['zz'\\]"):
        bc.compare(table, "a", "zz", method="discordant")
    with pytest.raises(ValueError, match="missing values"):
        bc.compare(table.assign(b=table["b"].where(table.index > 0)), "a", "b", method="discordant")
    with pytest.raises(ValueError, match="compares paired predictions"):
        bc.compare(
            bc.Scores.from_frame(
                pd.DataFrame({"model": ["a", "b"], "split": [0, 0], "acc": [0.1, 0.2]}),
                test_fraction=0.1,
            ),
            "a",
            "b",
            method="discordant",
        )
    sys.modules.pop("bc_discordant", None)
