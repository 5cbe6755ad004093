"""The comparison request is checked once, at the door (``bayescomp.posterior.request``):
``select`` on a 3-step selection parses and checks its margin once and resolves its metric
once, whatever the number of steps; the CLI parses ``--rope`` once.  The numbers it decides
on are the correlated t-test's, computed here with scipy."""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayescomp as bc
from bayescomp.core import margins, orientation
from bayescomp.posterior import holdout_data
from bayescomp.posterior.request import check_request
from bayescomp.scores.table import Scores

#: the functions that parse or check a margin, or resolve a metric's name or direction (a
#: column name looked up in a table, ``Scores._check_metric``, resolves nothing)
COUNTED = {
    margins.parse_margin.__code__: "parse_margin",
    margins.as_margin.__code__: "as_margin",
    orientation.canonical_metric.__code__: "canonical_metric",
    orientation.resolve_direction.__code__: "resolve_direction",
    holdout_data.resolve.__code__: "holdout_data.resolve",
}


def calls(run):
    """How often each counted function is entered while ``run()`` runs."""
    seen: Counter[str] = Counter()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in COUNTED:
            name = COUNTED[frame.f_code]
            if name != "parse_margin" or not isinstance(frame.f_locals["rope"], margins.Margin):
                seen[name] += 1  # a margin parsed already passes parse_margin unread

    sys.setprofile(profile)
    try:
        out = run()
    finally:
        sys.setprofile(None)
    return out, seen


@pytest.fixture(scope="module")
def four_models():
    rng = np.random.default_rng(4)
    base = 0.80 + 0.01 * rng.standard_normal(30)
    gains = {"lr": 0.0, "a": 0.002, "b": 0.03, "c": -0.02}
    return pd.DataFrame(
        {
            "model": np.repeat(list(gains), 30),
            "split": np.tile(np.arange(30), 4),
            "n_train": 90,
            "n_test": 10,
            "accuracy": np.concatenate(
                [base + g + 0.004 * rng.standard_normal(30) * (g != 0) for g in gains.values()]
            ),
        }
    )


@pytest.mark.parametrize("rule", ["champion_challenger", "family"])
@pytest.mark.parametrize("rope", [0.01, "1%"])
def test_select_checks_the_margin_once_and_resolves_the_metric_once(four_models, rule, rope):
    scores = Scores.from_frame(four_models)
    sel, seen = calls(
        lambda: bc.select(scores, baseline="lr", rope=rope, metric="accuracy", rule=rule)
    )
    assert len(sel.steps) == 3
    assert seen["parse_margin"] == 1 and seen["as_margin"] == 1  # the door's, not a step's
    # the name is resolved once, at the door; below it a column name is only looked up
    assert seen["resolve_direction"] == 1 and seen["holdout_data.resolve"] == 0
    assert seen["canonical_metric"] == 0


def test_each_step_is_the_correlated_t_test(four_models):
    """A step's P(better beyond the ROPE) is the Nadeau–Bengio corrected Student t of the
    paired differences, computed here from scipy alone."""
    sel = bc.select(
        Scores.from_frame(four_models), baseline="lr", rope=0.01, rule="champion_challenger"
    )
    f = four_models.pivot(index="split", columns="model", values="accuracy")
    for row in sel.steps.to_dict("records"):
        d = (f[row["challenger"]] - f[row["champion"]]).to_numpy()
        n = d.size
        scale = np.sqrt((1 / n + 0.1 / 0.9) * np.var(d, ddof=1))
        t = stats.t(n - 1, loc=d.mean(), scale=scale)
        assert row["p_right"] == pytest.approx(t.sf(0.01), abs=1e-9)
        assert row["p_left"] == pytest.approx(t.cdf(-0.01), abs=1e-9)
        assert row["rope"] == 0.01


def test_cli_parses_the_rope_once(four_models, tmp_path):
    from bayescomp.cli.main import main

    path = tmp_path / "scores.csv"
    four_models.to_csv(path, index=False)
    argv = ["select", str(path), "--baseline", "lr", "--rope", "1%", "--json"]
    code, seen = calls(lambda: main(argv))
    assert code == 0
    assert seen["parse_margin"] == 1 and seen["as_margin"] == 1


def test_a_request_is_frozen_and_says_its_margin():
    r = check_request(metric="roc_auc", rope="2%", gamma=0.9, guardrails={"fit_time": 0.5})
    assert r.higher_is_better is True and r.gamma == 0.9
    assert r.guardrails == (("fit_time", 0.5, False),)  # a timing: lower is better
    assert r.margin.label() == "±2 % (relative)"
    with pytest.raises(AttributeError):
        r.gamma = 0.5  # type: ignore[misc]
    with pytest.raises(ValueError, match="wider than half the metric's range"):
        check_request(metric="roc_auc", rope=0.8)
    with pytest.raises(ValueError, match="slices= needs slice_rope="):
        check_request(metric="accuracy", rope=0.01, slices="region")


def test_a_predictions_selection_checks_its_request_at_the_door_only():
    """On one test set the door resolves the metric with the labels and checks the margin:
    a selection of three steps makes the calls one of one step makes, and no more."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    accuracy = {"base": 0.8, "a": 0.82, "b": 0.9, "c": 0.75}
    preds = pd.DataFrame(
        {"y_true": y} | {m: np.where(rng.random(600) < a, y, 1 - y) for m, a in accuracy.items()}
    )
    kw = dict(baseline="base", rope=0.01, metric="accuracy", rule="champion_challenger")
    three, seen = calls(lambda: bc.select(preds, **kw))
    one, seen_one = calls(lambda: bc.select(preds[["y_true", "base", "b"]], **kw))
    assert len(three.steps) == 3 and len(one.steps) == 1
    assert seen == seen_one and seen["as_margin"] == 1 and seen["holdout_data.resolve"] == 1
    # the promoted step is the one-test-set posterior of compare on the same two columns
    direct = bc.compare(preds, "base", "b", metric="accuracy", rope=0.01, random_state=0)
    assert three.steps["decision"].tolist()[1] == direct.decision().outcome == "promote"


def test_a_sliced_selection_checks_its_slice_guardrail_once():
    """The slice guardrail's options are checked by ``slice_guard`` at the door, once for a
    selection of three steps, and every step carries its slices' posterior."""
    from bayescomp.posterior import request as request_module

    rng = np.random.default_rng(5)
    n = 2400
    y = rng.integers(0, 2, n)
    accuracy = {"base": 0.8, "a": 0.84, "b": 0.86, "c": 0.78}
    preds = pd.DataFrame(
        {"y_true": y}
        | {m: np.where(rng.random(n) < a, y, 1 - y) for m, a in accuracy.items()}
        | {"region": np.repeat(["north", "south", "east", "west"], n // 4)}
    )
    COUNTED[request_module.slice_guard.__code__] = "slice_guard"
    try:
        slicing = {"slices": "region", "slice_rope": 0.02}
        sel, seen = calls(
            lambda: bc.select(
                preds, baseline="base", rope=0.01, metric="accuracy", compare_options=slicing
            )
        )
    finally:
        del COUNTED[request_module.slice_guard.__code__]
    assert len(sel.steps) == 3
    assert all(r is not None and r.slices is not None for r in sel.results)
    assert seen["slice_guard"] == 1
    assert seen["as_margin"] == 2  # the ROPE and the slice ROPE, at the door


def test_the_planner_checks_a_table_pilots_margin_once(four_models):
    """A table pilot's margin is checked at the planner's door (the request), not again
    after its comparison; the plan is that of the pilot's correlated t-test."""
    pilot = Scores.from_frame(four_models)
    plan, seen = calls(lambda: bc.plan_repetitions(pilot, "lr", "b", metric="accuracy", rope=0.01))
    assert seen["as_margin"] == 1 and seen["parse_margin"] == 1
    res = bc.compare(pilot, "lr", "b", metric="accuracy", rope=0.01)
    same = bc.plan_repetitions(res)
    assert (plan.repetitions, plan.decisive_rate) == (same.repetitions, same.decisive_rate)
    with pytest.raises(ValueError, match="plan_repetitions takes a ROPE that is absolute"):
        bc.plan_repetitions(pilot, "lr", "b", metric="accuracy", rope="1%")
