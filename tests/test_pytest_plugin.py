"""The pytest plugin and ``assert_better``/``assert_not_worse`` (issue 33), run in real
inner pytest sessions (``pytester``): pass, fail, inconclusive and the message."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.core.exceptions import InconclusiveComparison
from bayescomp.integrations.testing import assert_better, assert_not_worse

pytest_plugins = ["pytester"]

#: the inner test module: one table, three candidates (better, worse, undecided)
INNER = """
import numpy as np, pandas as pd, pytest
import bayescomp as bc
from bayescomp.integrations.testing import assert_better, assert_not_worse

def table():
    i = np.arange(20)
    base = 0.80 + 0.01 * np.sin(i)
    scores = {"lr": base, "gbm": base + 0.03 + 0.002 * np.cos(i),
              "bad": base - 0.03 + 0.002 * np.cos(i), "coin": base + 0.004 + 0.02 * np.cos(3 * i)}
    f = pd.DataFrame({"model": np.repeat(list(scores), 20), "split": np.tile(i, 4),
                      "accuracy": np.concatenate(list(scores.values()))})
    return bc.Scores.from_frame(f, test_fraction=0.1)

def test_better():
    assert_better(table(), baseline="lr", candidate="gbm", rope=0.01)

def test_worse():
    assert_not_worse(table(), baseline="lr", candidate="bad", rope=0.01)

def test_undecided():
    assert_better(table(), baseline="lr", candidate="coin", rope=0.01)

@pytest.mark.bayescomp(inconclusive="skip")
def test_undecided_marked():
    assert_better(table(), baseline="lr", candidate="coin", rope=0.01)
"""


def _table() -> bc.Scores:
    ns: dict = {}
    exec(INNER.split("def test_better")[0], ns)  # the inner module's own table
    return ns["table"]()


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Import what the inner tests import before ``pytester`` takes its snapshot of
    ``sys.modules``: an in-process inner session drops the modules imported after it, and
    numpy's compiled ones cannot be imported twice."""
    for check, cand in ((assert_better, "gbm"), (assert_not_worse, "bad"), (assert_better, "coin")):
        with pytest.raises(AssertionError) if cand != "gbm" else _nothing():
            check(_table(), baseline="lr", candidate=cand, rope=0.01)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_three_outcomes_and_the_option(pytester):
    pytester.makepyfile(test_models=INNER)
    default = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    default.assert_outcomes(passed=1, failed=2, skipped=1)
    default.stdout.fnmatch_lines(["*assert_not_worse failed: bad vs lr on accuracy*"])
    default.stdout.fnmatch_lines(["*decision: worse: P(bad worse beyond the ROPE*"])
    default.stdout.fnmatch_lines(["*InconclusiveComparison: assert_better failed*"])
    xfail = pytester.runpytest("-p", "no:cacheprovider", "--bayescomp-inconclusive=xfail")
    xfail.assert_outcomes(passed=1, failed=1, xfailed=1, skipped=1)
    skip = pytester.runpytest("-p", "no:cacheprovider", "--bayescomp-inconclusive", "skip")
    skip.assert_outcomes(passed=1, failed=1, skipped=2)
    bad = pytester.runpytest("-p", "no:cacheprovider", "--bayescomp-inconclusive=maybe")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_the_plugin_imports_nothing_heavy():
    """pytest imports the plugin in every run where bayescomp is installed."""
    import subprocess
    import sys

    code = "import sys, bayescomp.integrations.pytest_plugin; print(*sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split()) & {"numpy", "pandas", "scipy", "sklearn", "bayescomp.core"}
    assert "bayescomp.integrations.pytest_plugin" in out.stdout.split() and not loaded, loaded


@pytest.mark.slow  # two worker processes importing the scientific stack: ~10-30 s
def test_xdist_gives_the_same_outcomes(pytester):
    pytester.makepyfile(test_models=INNER)
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    res.assert_outcomes(passed=1, failed=2, skipped=1)


def test_message_holds_the_posterior_numbers():
    table = _table()
    with pytest.raises(AssertionError) as exc:
        assert_not_worse(table, baseline="lr", candidate="bad", rope=0.01)
    assert not isinstance(exc.value, InconclusiveComparison)
    res = bc.compare(table, "lr", "bad", rope=0.01)
    lo, hi = res.hdi(0.95)
    text = str(exc.value)
    assert f"[{lo:+.4g}, {hi:+.4g}]" in text and f"{float(res.expected_gain):+.4g}" in text
    p = re.search(r"P\(worse beyond ROPE\) = ([0-9.]+)", text)
    assert float(p.group(1)) == pytest.approx(float(res.p_left), abs=5e-4)
    assert float(res.p_left) >= 0.95  # decided worse, so a failure, not inconclusive


def test_not_worse_passes_on_equivalence_and_inconclusive_is_said():
    table = _table()
    res = assert_not_worse(table, baseline="lr", candidate="gbm", rope=0.01)  # better: not worse
    assert float(res.p_rope + res.p_right) >= 0.95
    with pytest.raises(InconclusiveComparison, match="decision: inconclusive"):
        assert_better(table, baseline="lr", candidate="coin", rope=0.01)
    with pytest.raises(AssertionError, match="decision: worse") as exc:  # gbm is 3.7 % better
        assert_not_worse(table, baseline="gbm", candidate="lr", rope="1%")
    assert not isinstance(exc.value, InconclusiveComparison)
    # a relative margin is named in the message
    with pytest.raises(AssertionError, match=r"ROPE ±1 % \(relative; ±0.00995 on the log ratio\)"):
        assert_better(table, baseline="gbm", candidate="lr", rope="1%")


def test_inputs_csv_store_and_predictions(tmp_path):
    table = _table()
    table.to_csv(tmp_path / "s.csv")
    assert_better(tmp_path / "s.csv", baseline="lr", candidate="gbm", rope=0.01)
    y = np.tile([0, 1], 200)
    good = np.where(np.arange(400) % 10 == 0, 1 - y, y)  # 90 % right
    poor = np.where(np.arange(400) % 3 == 0, 1 - y, y)  # 67 % right
    preds = pd.DataFrame({"y_true": y, "old": poor, "new": good})
    res = assert_better(preds, baseline="old", candidate="new", rope=0.02, metric="accuracy")
    assert res.decision().outcome == "promote"
    # a posterior from draws: seeded (random_state=0 unless given), the same on every run
    preds["mid"] = np.where(np.arange(400) % 9 == 1, 1 - y, y)  # 89 % right
    messages = []
    for seed in ({}, {}, {"random_state": 1}):
        with pytest.raises(InconclusiveComparison) as exc:
            assert_better(
                preds, baseline="mid", candidate="new", rope=0.02, metric="accuracy", **seed
            )
        messages.append(str(exc.value))
    assert messages[0] == messages[1] != messages[2]
    with pytest.raises(FileNotFoundError, match="no scores CSV or store"):
        assert_better(tmp_path / "none.sqlite", baseline="lr", candidate="gbm", rope=0.01)


def test_a_stored_selection_is_a_table(tmp_path):
    """The store a selection kept (``select_models(store=)``, ``--store``) is read back: the
    same posterior as the selection's own step."""
    from sklearn.datasets import make_classification
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import RepeatedStratifiedKFold

    X, y = make_classification(n_samples=200, n_informative=5, random_state=0)
    store = tmp_path / "runs.sqlite"
    sel = bc.select_models(
        {"dummy": DummyClassifier(), "lr": LogisticRegression(max_iter=500)},
        X,
        y,
        cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0),
        scoring="accuracy",
        store=store,
        progress=False,
        baseline="dummy",
        rope=0.01,
    )
    res = assert_better(store, baseline="dummy", candidate="lr", rope=0.01, metric="accuracy")
    assert res.n == 10
    assert float(res.p_right) == pytest.approx(float(sel.steps["p_right"].iloc[0]), abs=1e-12)
