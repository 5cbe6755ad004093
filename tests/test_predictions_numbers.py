"""One test set: wrong numbers and silent acceptances of the predictions path
(``holdout_posterior``, ``compare`` on a predictions table, ``select --predictions``,
``plan_test_set``), each checked against an independent computation."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run_cli
from scipy import stats
from sklearn.metrics import accuracy_score

import bayescomp as bc
from bayescomp.posterior.holdout import holdout_posterior
from bayescomp.posterior.plan import plan_test_set

REPO = Path(__file__).resolve().parents[1]


_run = run_cli


@pytest.fixture(scope="module")
def probs() -> pd.DataFrame:
    """Predicted probabilities of class 1 (no label values among them), 0/1 truth."""
    rng = np.random.default_rng(0)
    n = 1000
    y = rng.integers(0, 2, n)
    old = np.where(y == 1, rng.beta(5, 2, n), rng.beta(2, 5, n))
    new = np.where(y == 1, rng.beta(6, 2, n), rng.beta(2, 6, n))
    return pd.DataFrame({"y_true": y, "old": old, "new": new})


# -- item 1: a label metric on probabilities -------------------------------------------------


@pytest.mark.parametrize("metric", ["accuracy", "error_rate"])
def test_label_metric_refuses_probabilities(probs, metric):
    y, old, new = probs["y_true"], probs["old"], probs["new"]
    with pytest.raises(ValueError, match=r"look like probabilities.*threshold=0\.5.*roc_auc"):
        holdout_posterior(y, old, new, metric=metric)
    with pytest.raises(ValueError, match="look like probabilities"):
        bc.compare(probs, "old", "new", rope=0.005, metric=metric)
    with pytest.raises(ValueError, match="look like probabilities"):
        bc.select(probs, baseline="old", rope=0.005, metric=metric)


def test_label_metric_with_threshold_equals_sklearn(probs):
    y, old, new = probs["y_true"].to_numpy(), probs["old"], probs["new"]
    res = holdout_posterior(y, old, new, metric="accuracy", threshold=0.5, random_state=0)
    assert res.baseline_score == pytest.approx(accuracy_score(y, old >= 0.5))
    assert res.candidate_score == pytest.approx(accuracy_score(y, new >= 0.5))
    assert 0.8 < res.baseline_score < 0.95  # the case of the issue: not 0.2 or 0
    via_compare = bc.compare(probs, "old", "new", rope=0.005, threshold=0.5, random_state=0)
    assert via_compare.candidate_score == pytest.approx(accuracy_score(y, new >= 0.5))
    sel = bc.select(probs, baseline="old", rope=0.005, compare_options={"threshold": 0.5})
    means = sel.candidates.set_index("model")["mean"]
    assert means["new"] == pytest.approx(accuracy_score(y, new >= 0.5))


def test_threshold_refused_where_it_would_be_ignored(probs):
    with pytest.raises(ValueError, match="drop it"):
        holdout_posterior(
            probs["y_true"], probs["old"], probs["new"], metric="log_loss", threshold=0.5
        )


def test_cli_label_metric_on_probabilities(probs, tmp_path):
    probs.to_csv(tmp_path / "probs.csv", index=False)
    base = ["--predictions", "probs.csv", "--baseline", "old", "--rope", "0.005"]
    for command in (["compare", *base, "--candidate", "new"], ["select", *base]):
        out = _run(*command, cwd=tmp_path)
        assert out.returncode == 2, out.stdout
        assert "look like probabilities" in out.stderr
        assert "--threshold 0.5" in out.stderr and "threshold=" not in out.stderr
    out = _run("compare", *base, "--candidate", "new", "--threshold", "0.5", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    want = accuracy_score(probs["y_true"], probs["old"] >= 0.5)
    assert f"(accuracy: {want:.4f})" in out.stdout


# -- item 2: which columns are models ---------------------------------------------------------


@pytest.fixture(scope="module")
def labelled() -> pd.DataFrame:
    """Labels of three models, an integer customer id and a text question id."""
    rng = np.random.default_rng(1)
    n = 600
    y = rng.integers(0, 2, n)
    cols = {m: np.where(rng.random(n) < acc, y, 1 - y) for m, acc in (("old", 0.8), ("new", 0.9))}
    return pd.DataFrame(
        {
            "y_true": y,
            **cols,
            "customer": np.arange(n) % 50,
            "question_id": [f"q{i}" for i in range(n)],
        }
    )


def test_text_column_is_refused_by_name(labelled):
    with pytest.raises(ValueError, match=r"column 'question_id' is text: it cannot be a model"):
        bc.select(labelled, baseline="old", rope=0.01)


def test_models_and_drop_pick_the_model_columns(labelled):
    y = labelled["y_true"]
    sel = bc.select(labelled, baseline="old", rope=0.01, models=["old", "new"])
    assert sorted(sel.candidates["model"]) == ["new", "old"]
    assert sel.candidates.set_index("model")["mean"]["new"] == pytest.approx(
        accuracy_score(y, labelled["new"])
    )
    via_select = bc.select(labelled, baseline="old", rope=0.01, models=["old", "new"])
    assert via_select.champion == sel.champion


def test_cli_select_models_and_drop(labelled, tmp_path):
    labelled.to_csv(tmp_path / "p.csv", index=False)
    base = ["select", "--predictions", "p.csv", "--baseline", "old", "--rope", "0.01", "--json"]
    out = _run(*base, cwd=tmp_path)
    assert out.returncode == 2
    assert "column 'question_id' is text" in out.stderr
    assert "--models" in out.stderr and "--drop" in out.stderr and "models=" not in out.stderr
    for extra in (["--models", "old,new"], ["--drop", "customer,question_id"]):
        out = _run(*base, *extra, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert '"customer"' not in out.stdout and '"question_id"' not in out.stdout


# -- item 12: inputs that were paired or read wrongly -----------------------------------------


def test_series_with_different_indexes_are_refused(labelled):
    y = labelled["y_true"]
    shuffled = labelled["new"].sample(frac=1.0, random_state=0)  # same values, other order
    with pytest.raises(ValueError, match="different indexes"):
        holdout_posterior(y, labelled["old"], shuffled)
    aligned = holdout_posterior(y, labelled["old"], shuffled.reindex(y.index), random_state=0)
    assert aligned.candidate_score == pytest.approx(accuracy_score(y, labelled["new"]))


def test_an_item_with_two_labels_is_refused():
    y = np.array([0, 1, 1, 1, 0, 0])
    a = np.array([0, 1, 1, 0, 0, 1])
    b = np.array([0, 1, 0, 1, 0, 0])
    with pytest.raises(ValueError, match="y_true differs between rows of the same item"):
        holdout_posterior(y, a, b, item=[1, 1, 2, 2, 3, 3])


def test_select_without_challenger_is_an_error(labelled):
    with pytest.raises(ValueError, match="needs 'old' and a challenger"):
        bc.select(labelled, baseline="old", rope=0.01, models=["old"])


def test_cli_drop_of_the_label_and_duplicate_columns(labelled, tmp_path):
    labelled.to_csv(tmp_path / "p.csv", index=False)
    args = ["--predictions", "p.csv", "--baseline", "old", "--rope", "0.01"]
    out = _run("select", *args, "--drop", "y_true,question_id", cwd=tmp_path)
    assert (
        out.returncode == 2
        and "the --y-true column (the true labels) cannot be dropped" in out.stderr
    )
    text = (tmp_path / "p.csv").read_text().splitlines()
    text[0] = text[0].replace("customer", "new")  # two columns named "new"
    (tmp_path / "dup.csv").write_text("\n".join(text) + "\n")
    dup = ["--predictions", "dup.csv", "--baseline", "old", "--rope", "0.01"]
    out = _run("compare", *dup, "--candidate", "new", cwd=tmp_path)
    assert out.returncode == 2 and "two columns named 'new'" in out.stderr


# -- item 10: the direction of per-item values ------------------------------------------------


@pytest.fixture(scope="module")
def losses() -> pd.DataFrame:
    """Per-item log losses: ``new`` has the smaller mean loss by a wide margin."""
    rng = np.random.default_rng(2)
    n = 800
    return pd.DataFrame({"old": rng.exponential(0.6, n), "new": rng.exponential(0.4, n)})


def test_unnamed_per_item_values_need_a_direction(losses):
    with pytest.raises(ValueError, match="higher_is_better=True or False"):
        holdout_posterior(None, losses["old"], losses["new"], metric=None)
    res = holdout_posterior(
        None, losses["old"], losses["new"], metric=None, higher_is_better=False, random_state=0
    )
    want = losses["old"].mean() - losses["new"].mean()  # lower is better: old − new
    assert res.estimate == pytest.approx(want) and res.p_better > 0.99


def test_neg_metric_on_positive_values_is_refused(losses):
    with pytest.raises(ValueError, match="metric=log_loss, or negate them"):
        holdout_posterior(None, losses["old"], losses["new"], metric="neg_log_loss")
    res = holdout_posterior(None, -losses["old"], -losses["new"], metric="neg_log_loss")
    assert res.estimate == pytest.approx(losses["old"].mean() - losses["new"].mean())


def test_cli_per_item_losses_name_flags(losses, tmp_path):
    losses.to_csv(tmp_path / "l.csv", index=False)
    args = ["--predictions", "l.csv", "--y-true", "none", "--baseline", "old", "--rope", "0"]
    for command in (["compare", *args, "--json"], ["select", *args, "--json"]):
        out = _run(*command, cwd=tmp_path)
        assert out.returncode == 2
        assert "--higher-is-better or --lower-is-better" in out.stderr, out.stderr
        assert "higher_is_better" not in out.stderr and "metric=" not in out.stderr
        out = _run(*command, "--lower-is-better", cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert "promote" in out.stdout


# -- item 6: few clusters ---------------------------------------------------------------------


def _width(x) -> float:
    lo, hi = x.hdi(0.95)
    return hi - lo


@pytest.mark.parametrize("metric", ["accuracy", "mse"])
def test_few_clusters_warn_and_the_design_effect_matches_the_interval(metric):
    rng = np.random.default_rng(7)
    n = 600
    cluster = np.arange(n) % 3
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.75, y, 1 - y)
    b = np.where(rng.random(n) < 0.78 + 0.06 * cluster, y, 1 - y)
    kw = dict(metric=metric, draws=40_000, random_state=0)
    with pytest.warns(bc.FewClustersWarning, match="only 3 clusters"):
        res = holdout_posterior(y, a, b, cluster=cluster, **kw)
    flat = holdout_posterior(y, a, b, **kw)  # the same items, cluster-blind
    ratio = _width(res) / _width(flat)
    assert ratio > 1.5  # few clusters: a much wider interval
    assert res.design_effect == pytest.approx(ratio**2, rel=0.05)
    assert res.interval_widening == pytest.approx(ratio, rel=0.03)
    with warnings.catch_warnings():
        warnings.simplefilter("error", bc.FewClustersWarning)
        holdout_posterior(y, a, b, cluster=np.arange(n) % 30, **kw)  # 30 clusters: quiet


# -- item 22: plan_test_set at the edges ------------------------------------------------------


def _t_test_power(n: int, effect: float, sd: float, gamma: float = 0.95) -> float:
    """Exact power of the one-sided t decision on n normal differences (noncentral t)."""
    return float(stats.nct.sf(stats.t.ppf(gamma, n - 1), n - 1, effect * np.sqrt(n) / sd))


def test_plan_for_a_huge_difference_is_not_one_item():
    plan = plan_test_set(0.5, sd=0.2)
    assert plan.n_items == 3  # the old answer was 1: no posterior of a difference from 1 item
    assert _t_test_power(3, 0.5, 0.2) >= 0.8 > _t_test_power(2, 0.5, 0.2)
    rng = np.random.default_rng(0)
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(300):
            d = rng.normal(0.5, 0.2, plan.n_items)
            res = holdout_posterior(
                None,
                np.zeros(d.size),
                d,
                metric=None,
                higher_is_better=True,
                draws=2000,
                random_state=rng,
            )
            hits += res.decision(0.95).outcome == "promote"
    assert hits / 300 > 0.8 - 3 * np.sqrt(0.8 * 0.2 / 300)


def test_plan_large_n_is_the_normal_formula_and_negative_is_planned_on_its_size():
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    normal = int(np.ceil((z * 0.2 / (0.05 - 0.01)) ** 2))
    plan = plan_test_set(0.05, rope=0.01, sd=0.2)
    assert normal <= plan.n_items <= normal * 1.02
    assert _t_test_power(plan.n_items, 0.04, 0.2) >= 0.8 > _t_test_power(normal - 3, 0.04, 0.2)
    worse = plan_test_set(-0.05, rope=0.01, sd=0.2)
    assert worse.n_items == plan.n_items
    assert worse.power_at(worse.n_items) == pytest.approx(plan.power_at(plan.n_items))
