"""The audit's wrong numbers and silent acceptances, each checked once
deterministically, plus the rank tests' symmetry as hypothesis properties.

Run the big fuzz by hand: ``HYPOTHESIS_PROFILE=slow python -m pytest tests/test_audit_numbers.py``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold

from bayescomp.posterior.ranktests import sign_test, signed_rank_test
from bayescomp.splits.repeats import default_cv

# ------------------------------------------------------------ item 1/2: rank-test symmetry
_diffs = st.lists(
    st.sampled_from([-0.03, -0.02, -0.01, -0.005, 0.0, 0.005, 0.01, 0.02, 0.1])
    | st.floats(-0.05, 0.05, allow_subnormal=False),
    min_size=1,
    max_size=12,
)
_mirror = {"rope": "rope", "left": "right", "right": "left"}


@given(
    z=_diffs,
    rope=st.sampled_from([0.0, 0.005, 0.01]),
    seed=st.integers(0, 2**16),
    place=st.sampled_from(["rope", "left", "right"]),
    n=st.integers(1, 400),
)
def test_sign_test_mirrors_exactly_when_the_models_swap(z, rope, seed, place, n):
    a = sign_test(np.array(z), rope=rope, prior_place=place, random_state=seed, draws=n)
    b = sign_test(-np.array(z), rope=rope, prior_place=_mirror[place], random_state=seed, draws=n)
    mirrored = a.sample[:, ::-1]
    if a.alpha[0] == a.alpha[2]:  # mirrored pairs: the same set of draws
        mirrored = mirrored[np.lexsort(mirrored.T)]
        np.testing.assert_array_equal(b.sample[np.lexsort(b.sample.T)], mirrored)
    else:
        np.testing.assert_array_equal(b.sample, mirrored)
    assert (b.p_left, b.p_rope, b.p_right) == (a.p_right, a.p_rope, a.p_left) or np.isnan(a.p_left)
    assert b.next_dataset.as_tuple() == a.next_dataset.as_tuple()[::-1]
    assert (b.p_better, b.p_worse) == (a.p_worse, a.p_better)


@given(
    z=_diffs,
    rope=st.sampled_from([0.0, 0.005, 0.01]),
    seed=st.integers(0, 2**16),
    place=st.sampled_from(["rope", "left", "right"]),
    n=st.integers(1, 300),
)
def test_signed_rank_test_mirrors_exactly_when_the_models_swap(z, rope, seed, place, n):
    a = signed_rank_test(np.array(z), rope=rope, prior_place=place, random_state=seed, draws=n)
    b = signed_rank_test(
        -np.array(z), rope=rope, prior_place=_mirror[place], random_state=seed, draws=n
    )
    np.testing.assert_array_equal(b.sample, a.sample[:, ::-1])
    assert (b.p_left, b.p_rope, b.p_right) == (a.p_right, a.p_rope, a.p_left)
    assert (b.p_better, b.p_worse) == (a.p_worse, a.p_better)


@given(
    m=st.integers(1, 15),
    value=st.floats(-1, 1),
    rope=st.sampled_from([0.0, 0.01]),
    seed=st.integers(0, 2**16),
    n=st.integers(1, 300),
)
def test_identical_models_give_equal_left_and_right(m, value, rope, seed, n):
    # identical scores: every per-dataset difference is exactly 0
    z = np.full(m, value) - np.full(m, value)
    for test in (sign_test, signed_rank_test):
        res = test(z, rope=rope, random_state=seed, draws=n)
        assert res.baycomp_convention.p_left == res.baycomp_convention.p_right or np.isnan(
            res.p_left
        )
        assert res.p_better == res.p_worse


def test_signed_rank_on_identical_models_is_even_not_0768():
    # issue 23 item 1: m = 10 identical datasets gave p_left = 0.768 (float rounding of
    # 1 - theta_right decided every draw); the exact answer is one half each way
    res = signed_rank_test(np.zeros(10), rope=0, random_state=0, draws=5000)
    assert (res.p_left, res.p_rope, res.p_right) == (0.5, 0.0, 0.5)


def test_signed_rank_mirror_at_rope_zero_is_exact():
    rng = np.random.default_rng(3)
    z = np.round(rng.normal(0, 0.01, 10), 3)
    a = signed_rank_test(z, rope=0, random_state=1, draws=5000)
    b = signed_rank_test(-z, rope=0, random_state=1, draws=5000)
    assert (a.p_left, a.p_right) == (b.p_right, b.p_left)


def test_sign_test_equal_counts_give_equal_shares():
    res = sign_test(np.array([-0.02, -0.03, 0.02, 0.03]), rope=0.01, random_state=0, draws=1001)
    assert res.p_left == res.p_right
    assert res.sample[:, 0].mean() == pytest.approx(2 / 5, abs=0.02)  # Dirichlet(2, 1, 2)


# ------------------------------------------------------------------ items 3-10
def _table(
    metric="accuracy", a=(0.8, 0.81, 0.79, 0.8, 0.82), b=(0.85, 0.86, 0.84, 0.83, 0.87), **cols
):
    import pandas as pd

    return pd.DataFrame(
        {
            "model": ["a"] * len(a) + ["b"] * len(b),
            "split": list(range(len(a))) * 2,
            metric: [*a, *b],
            **cols,
        }
    )


def test_ttest_interval_of_an_accuracy_difference_stays_in_minus_one_one():
    import bayescomp as bc

    res = bc.correlated_ttest([0.5, 0.9, 0.1], [0.9, 0.2, 1.0], rho=0.1, metric="accuracy")
    lo, hi = res.hdi(0.95)
    assert (lo, hi) == (-1.0, 1.0)  # the t interval is [-2.15, 2.55]
    # an unbounded metric is left alone: the interval is the t's own
    raw = bc.correlated_ttest([0.5, 0.9, 0.1], [0.9, 0.2, 1.0], rho=0.1, metric="my_score")
    from scipy import stats

    half = stats.t.ppf(0.975, 2) * raw.scale
    assert raw.hdi(0.95) == pytest.approx((raw.mean - half, raw.mean + half))


@pytest.mark.parametrize("metric", ["accuracy", "roc_auc"])
def test_basic_bootstrap_stays_in_the_metric_range(metric):
    import bayescomp as bc

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 40)
    pred = np.where(rng.random(40) < 0.97, y, 1 - y).astype(float)
    if metric == "roc_auc":
        pred = y + rng.normal(0, 0.15, 40)
    res = bc.bootstrap_metric(y, pred, metric, method="basic", random_state=0)
    assert 0.0 <= res.low <= res.high <= 1.0
    # the raw basic interval (2 * estimate - quantile) passes 1: what used to be reported
    if metric == "accuracy":
        raw_high = 2 * res.estimate - np.quantile(res.distribution, 0.025)
        assert raw_high > 1.0


def test_basic_blb_stays_in_the_metric_range():
    import bayescomp as bc

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 600)
    pred = np.where(rng.random(600) < 0.995, y, 1 - y)
    res = bc.blb_metric(y, pred, "accuracy", method="basic", random_state=0)
    assert res.high <= 1.0


def test_learning_curve_bounds_of_a_negated_loss_stay_below_zero():
    from bayescomp.core.orientation import clip_to_range, metric_bounds

    assert metric_bounds("neg_root_mean_squared_error") == (-np.inf, 0.0)
    assert clip_to_range(-0.2, 0.05, "neg_root_mean_squared_error") == (-0.2, 0.0, True)


@pytest.mark.parametrize(
    "metric,values,word",
    [
        ("log_loss", (-0.3, -0.4, -0.2, -0.3, -0.35), "neg_log_loss"),
        ("rmse", (-1.0, -2.0, -1.5, -1.2, -1.1), "neg_rmse"),
        ("accuracy", (0.8, 0.9, 1.2, 0.85, 0.9), "[0, 1]"),
        ("neg_log_loss", (0.3, 0.4, 0.2, 0.3, 0.35), "'log_loss'"),
    ],
)
def test_scores_contradicting_the_metric_range_are_refused(metric, values, word):
    import bayescomp as bc

    with pytest.raises(ValueError, match=re.escape(word)):
        bc.Scores.from_frame(_table(metric, values, values), test_fraction=0.1)


def test_cross_validate_key_naming_a_loss_is_refused():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold, cross_validate
    from sklearn.naive_bayes import GaussianNB

    import bayescomp as bc

    X, y = load_breast_cancer(return_X_y=True)
    X = X[:200, :5]
    y = y[:200]
    cv = KFold(3, shuffle=True, random_state=0)
    res = {
        name: cross_validate(
            est, X, y, cv=cv, scoring={"log_loss": "neg_log_loss"}, return_indices=True
        )
        for name, est in {"nb": GaussianNB(), "lr": LogisticRegression(max_iter=500)}.items()
    }
    with pytest.raises(ValueError, match="neg_log_loss"):
        bc.Scores.from_cross_validate(res)
    with pytest.raises(ValueError, match="neg_log_loss"):  # a single scorer named a loss
        bc.Scores.from_cross_validate(
            {
                k: {"test_score": v["test_log_loss"], "indices": v["indices"]}
                for k, v in res.items()
            },
            metric="log_loss",
        )


@pytest.mark.parametrize("value", ["False", "True", 0, 1, "no"])
def test_higher_is_better_must_be_a_boolean(value):
    import bayescomp as bc
    from bayescomp.decision.ranking import rank

    scores = bc.Scores.from_frame(_table(), test_fraction=0.1)
    y = np.array([0, 1] * 20)
    p = np.linspace(0, 1, 40)
    calls = [
        lambda: bc.compare(scores, "a", "b", higher_is_better=value),
        lambda: bc.correlated_ttest(
            [0.8, 0.81, 0.8], [0.9, 0.91, 0.9], rho=0.1, higher_is_better=value
        ),
        lambda: rank(scores, higher_is_better=value),
        lambda: bc.holdout_posterior(y, p, p[::-1], metric="roc_auc", higher_is_better=value),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="higher_is_better must be True or False"):
            call()


def test_string_false_no_longer_reverses_compare():
    import bayescomp as bc

    scores = bc.Scores.from_frame(_table(), test_fraction=0.1)
    with pytest.raises(TypeError, match='pass higher_is_better=False, not "False"'):
        bc.compare(scores, "a", "b", higher_is_better="False")
    assert bc.compare(scores, "a", "b", higher_is_better=False).p_left > 0.99


@pytest.mark.parametrize("size", [1e308, 2.5, 2.0**60, -3])
def test_absurd_or_fractional_split_sizes_are_refused(size):
    import bayescomp as bc
    from bayescomp.splits.design import rho_from_sizes

    with pytest.raises(ValueError, match="whole number of rows"):
        bc.Scores.from_frame(_table().assign(n_train=size, n_test=10))
    with pytest.raises(ValueError, match="whole number of rows"):
        rho_from_sizes([size, 90], [10, 10])


def test_subnormal_scores_are_refused_not_silently_rescaled():
    import bayescomp as bc

    b, c = np.array([1, 2, 3, 4.0]), np.array([2, 2, 5, 4.5])
    with pytest.raises(ValueError, match="subnormal"):
        bc.correlated_ttest(b * 1e-320, c * 1e-320, rho=0.1)
    # normal tiny scores still give the scale-free answer
    ref = bc.correlated_ttest(b, c, rho=0.1)
    assert bc.correlated_ttest(b * 1e-300, c * 1e-300, rho=0.1).p_left == pytest.approx(
        ref.p_left, rel=1e-9
    )


@pytest.mark.parametrize("kind", ["complex", "datetime", "timedelta"])
def test_complex_and_datetime_scores_are_refused(kind):
    import bayescomp as bc

    x = {
        "complex": np.array([1 + 1j, 2, 3]),
        "datetime": np.array(["2020-01-01", "2020-01-02", "2020-01-05"], dtype="datetime64[D]"),
        "timedelta": np.array([1, 2, 4], dtype="timedelta64[s]"),
    }[kind]
    with pytest.raises(ValueError, match="real-valued scores"):
        bc.correlated_ttest(x, x[::-1], rho=0.1)


def test_printed_probability_never_contradicts_the_decision():
    from bayescomp.core.rule import decide

    d = decide(
        0.01,
        0.04004,
        0.94996,
        gamma=0.95,
        expected_gain=0.1,
        risk=0.01,
        rope=0.01,
        baseline="a",
        candidate="b",
    )
    assert d.outcome == "inconclusive"
    assert "0.950" not in d.reason and "0.94996" in d.reason


def test_multimetric_summary_has_the_mean_scores():
    import bayescomp as bc

    t = _table()
    t["f1"] = t["accuracy"] - 0.1
    res = bc.compare(
        bc.Scores.from_frame(t, test_fraction=0.1), "a", "b", metric=["accuracy", "f1"]
    )
    s = res.summary()
    assert s["baseline_score"].tolist() == pytest.approx([0.804, 0.704])
    assert s["candidate_score"].tolist() == pytest.approx([0.85, 0.75])


def test_compare_accepts_fit_time_as_the_guardrails_do(tmp_path):
    import subprocess
    import sys

    import bayescomp as bc

    t = _table(fit_time=[1, 2, 1, 2, 1, 3, 3, 3, 3, 3.0])
    scores = bc.Scores.from_frame(t, test_fraction=0.1)
    res = bc.compare(scores, "a", "b", metric="fit_time")
    # lower is better: b is slower, so it is worse
    ref = bc.correlated_ttest([1, 2, 1, 2, 1.0], [3.0] * 5, rho=0.1, higher_is_better=False)
    assert res.p_left == pytest.approx(ref.p_left) and res.p_left > 0.9
    path = tmp_path / "s.csv"
    t.assign(n_train=9, n_test=1).to_csv(path, index=False)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bayescomp",
            "compare",
            str(path),
            "--baseline",
            "a",
            "--candidate",
            "b",
            "--metric",
            "fit_time",
            "--rope",
            "0",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "fit_time" in out.stdout


# ------------------------------------------------------- silent acceptances, leaked errors
@pytest.mark.parametrize("estimate", [float("nan"), float("inf"), 1.5])
def test_blb_refuses_an_impossible_given_estimate(estimate):
    import bayescomp as bc

    y = np.array([0, 1] * 300)
    with pytest.raises(ValueError, match="not a value 'accuracy' can take"):
        bc.blb_metric(y, y, "accuracy", estimate=estimate, random_state=0)


def test_n_jobs_zero_is_refused_in_our_words():
    from sklearn.dummy import DummyClassifier

    import bayescomp as bc

    models = {"a": DummyClassifier(), "b": DummyClassifier(strategy="uniform")}
    with pytest.raises(ValueError, match="n_jobs=0 runs no worker") as info:
        bc.cross_validate_paired(
            models, np.zeros((20, 2)), np.array([0, 1] * 10), cv=2, n_jobs=0, progress=False
        )
    assert "Parallel" not in str(info.value)
    with pytest.raises(ValueError, match="n_jobs=0 runs no worker"):
        bc.blb_metric(np.array([0, 1] * 300), np.array([0, 1] * 300), "accuracy", n_jobs=0)


@pytest.mark.parametrize("case", ["one class", "lengths"])
def test_select_refuses_a_one_class_target_and_mismatched_lengths(case):
    from sklearn.dummy import DummyClassifier
    from sklearn.tree import DecisionTreeClassifier

    import bayescomp as bc

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.zeros(40, int) if case == "one class" else np.array([0, 1] * 19)
    models = {"dummy": DummyClassifier(), "tree": DecisionTreeClassifier(random_state=0)}
    match = "single value" if case == "one class" else "y has 38 entries but X has 40 rows"
    with pytest.raises(ValueError, match=match):
        bc.select_models(
            models,
            X,
            y,
            baseline="dummy",
            rope=0.01,
            progress=False,
            metric="accuracy",
            cv=default_cv(y, n_splits=2, n_repeats=1),
        )


def test_semicolon_csv_with_a_comma_in_a_quoted_header_is_read_right(tmp_path):
    import bayescomp as bc

    path = tmp_path / "scores.csv"
    path.write_text(
        'model;split;"acc, test";n_train;n_test\nlr;0;0.81;90;10\nlr;1;0.82;90;10\n'
        "rf;0;0.85;90;10\nrf;1;0.86;90;10\n",
        encoding="utf-8",
    )
    s = bc.Scores.read_csv(path)
    assert s.metrics == ["acc, test"] and s.models == ["lr", "rf"]
    one = tmp_path / "one.csv"  # a header without any separator is one column, not sniffed
    one.write_text("accuracy\n0.9\n0.8\n", encoding="utf-8")
    from bayescomp.scores.csvio import read_frame

    assert list(read_frame(one).columns) == ["accuracy"]


def test_bad_axis_is_said_in_our_words():
    import bayescomp as bc

    with pytest.raises(ValueError, match="axis=5 does not exist") as info:
        bc.correlated_ttest(np.ones((3, 4)), np.ones((3, 4)) + np.arange(4), rho=0.1, axis=5)
    assert "AxisError" not in type(info.value).__name__


def test_load_on_a_text_file_or_a_folder_says_what_it_needs(tmp_path):
    pytest.importorskip("h5py")
    import bayescomp as bc

    text = tmp_path / "scores.nc"
    text.write_text("model,split\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a netCDF file written by"):
        bc.load(text)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        bc.load(tmp_path)


# ----------------------------------------------------------------------------- the CLI
def _cli(*args, cwd=None, timeout=300):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return subprocess.run(
        [sys.executable, "-m", "bayescomp", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _two_dataset_csv(path):
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = []
    for ds in ("d1", "d2", "d3"):
        base = rng.normal(0.8, 0.02, 10)
        for model, shift in (("a", 0.0), ("b", 0.01)):
            for k in range(10):
                rows.append(
                    {
                        "dataset": ds,
                        "model": model,
                        "split": k,
                        "n_train": 90,
                        "n_test": 10,
                        "accuracy": base[k] + shift + rng.normal(0, 0.005),
                        "f1": base[k] - 0.1 + shift,
                    }
                )
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "flag,values",
    [("--metric", ("accuracy", "f1")), ("--dataset", ("d1", "d2")), ("--rope", ("0", "0.01"))],
)
def test_a_repeated_single_valued_flag_is_an_error(tmp_path, flag, values):
    csv = _two_dataset_csv(tmp_path / "s.csv")
    out = _cli(
        "compare",
        csv,
        "--baseline",
        "a",
        "--rope",
        "0",
        *(x for v in values for x in (flag, v)) if flag != "--rope" else ("--rope", "0.01"),
    )
    assert out.returncode == 2
    assert f"{flag} was given 2 times but takes one value" in out.stderr


def test_repeatable_flags_are_used_whole(tmp_path):
    csv = _two_dataset_csv(tmp_path / "s.csv")
    out = _cli(
        "select", csv, "--baseline", "a", "--rope", "0.01", "--dataset", "d1", "--dataset", "d2"
    )
    assert out.returncode == 2 and "at most one --dataset" in out.stderr  # said, not dropped


def test_missing_file_is_reported_before_the_heavy_imports(tmp_path):
    import os
    import subprocess
    import sys

    code = (
        "import sys; from bayescomp.cli.main import main; rc = main(['compare', "
        "'missing.csv', '--baseline', 'a', '--rope', '0']); "
        "print(sorted(m for m in ('pymc', 'arviz', 'matplotlib', 'sklearn.ensemble') "
        "if m in sys.modules)); sys.exit(rc)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert out.returncode == 2 and "no such file or folder: missing.csv" in out.stderr
    assert out.stdout.strip() == "[]"


def test_n_jobs_zero_on_the_command_line(tmp_path):
    out = _cli(
        "compare",
        "--dataset",
        "iris",
        "--rope",
        "0.01",
        "--n-jobs",
        "0",
        *_two_model_files(tmp_path),
    )
    assert out.returncode == 2
    assert "--n-jobs" in out.stderr and "runs no worker" in out.stderr
    assert "Parallel" not in out.stderr


def _two_model_files(tmp_path):
    a, b = tmp_path / "nb.py", tmp_path / "tree.py"
    a.write_text("from sklearn.naive_bayes import GaussianNB\nmodel = GaussianNB()\n")
    b.write_text(
        "from sklearn.tree import DecisionTreeClassifier\n"
        "model = DecisionTreeClassifier(random_state=0)\n"
    )
    return a, b


def test_unlabeled_says_pos_label_and_refuses_the_old_spelling(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(0)
    y = np.array(["fraud", "ok"] * 50)
    score = np.where(y == "fraud", rng.normal(1, 1, 100), rng.normal(0, 1, 100))
    pd.DataFrame({"y": y, "p": score}).to_csv(tmp_path / "test.csv", index=False)
    pd.DataFrame({"p": rng.normal(0.3, 1, 400)}).to_csv(tmp_path / "pool.csv", index=False)
    common = (
        "unlabeled",
        "--test",
        tmp_path / "test.csv",
        "--pool",
        tmp_path / "pool.csv",
        "--score",
        "p",
        "--label",
        "y",
        "--class-size",
        "100",
    )
    new = _cli(*common, "--pos-label", "fraud")
    old = _cli(*common, "--positive-class", "fraud")  # the old spelling: no shim in 0.1.0
    assert new.returncode == 0, new.stderr
    assert old.returncode == 2 and "unrecognized arguments: --positive-class" in old.stderr


def test_missing_mcmc_extra_is_said_before_any_fit(monkeypatch):
    import sys

    from sklearn.base import BaseEstimator, ClassifierMixin

    import bayescomp as bc
    from bayescomp.core.exceptions import MissingExtraError

    fits = []

    class Counting(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            fits.append(1)
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):
            return np.full(len(X), self.classes_[0])

    monkeypatch.setitem(sys.modules, "pymc", None)  # as if the [mcmc] extra were not installed
    rng = np.random.default_rng(0)
    data = {f"d{i}": (rng.normal(size=(30, 2)), np.array([0, 1] * 15)) for i in range(2)}
    with pytest.raises(MissingExtraError, match=r"bayescomp\[mcmc\]"):
        bc.select_models(
            {"a": Counting(), "b": Counting()},
            data,
            baseline="a",
            rope=0.01,
            cv=StratifiedKFold(n_splits=2),
            progress=False,
            metric="accuracy",
        )
    assert fits == []


@pytest.mark.slow  # a real MCMC fit in a subprocess (about 30 s on an idle machine)
def test_quiet_silences_the_sampler_lines_in_a_subprocess(tmp_path):
    pytest.importorskip("pymc")
    csv = _two_dataset_csv(tmp_path / "s.csv")
    out = _cli(
        "compare",
        csv,
        "--baseline",
        "a",
        "--candidate",
        "b",
        "--metric",
        "accuracy",
        "--rope",
        "0.01",
        "--method",
        "hierarchical",
        "--draws",
        "200",
        "--chains",
        "2",
        "--quiet",
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    for noise in ("Initializing NUTS", "Sampling", "Auto-assigning", "Multiprocess"):
        assert noise not in out.stderr, out.stderr


def test_hierarchical_probabilities_carry_their_monte_carlo_standard_error():
    import arviz as az

    from bayescomp.posterior.hierarchical.result import HierarchicalResult

    rng = np.random.default_rng(0)
    delta0 = rng.normal(0.012, 0.01, size=(4, 2500))  # independent draws
    idata = az.from_dict(
        posterior={
            "delta0": delta0,
            "nu": np.full((4, 2500), 5.0),
            "std0": np.full((4, 2500), 0.01),
        }
    )
    res = HierarchicalResult(idata=idata, rope=0.01)
    se = res.mcse()
    # independent draws: the binomial standard error sqrt(p (1 - p) / N), within 10 %
    for key, p in (("p_right", res.p_right), ("p_left", res.p_left), ("p_better", res.p_better)):
        assert se[key] == pytest.approx(np.sqrt(p * (1 - p) / delta0.size), rel=0.1)
    # autocorrelated draws (each repeated 10 times) have a larger error, as they should
    sticky = np.repeat(delta0[:, :250], 10, axis=1)
    slow = HierarchicalResult(
        idata=az.from_dict(
            posterior={
                "delta0": sticky,
                "nu": np.full((4, 2500), 5.0),
                "std0": np.full((4, 2500), 0.01),
            }
        ),
        rope=0.01,
    )
    assert slow.mcse()["p_right"] > 2 * se["p_right"]


# ------------------------------------------------------- item 19: one alias table for --metric
def test_rmse_alias_is_the_positive_loss_in_fits_and_on_the_command_line(
    tmp_path, monkeypatch, capsys
):
    import json

    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.model_selection import cross_validate

    import bayescomp as bc
    from bayescomp.splits.repeats import default_cv

    X, y = load_diabetes(return_X_y=True)
    cv = default_cv(y, n_splits=3, n_repeats=1, random_state=0)
    models = {"reg": Ridge(), "reg2": LinearRegression()}
    table = bc.cross_validate_paired(models, X, y, cv=cv, scoring="rmse", progress=False)
    # independent: scikit-learn's negated scorer, sign flipped back
    for name, est in models.items():
        ref = -cross_validate(est, X, y, cv=cv, scoring="neg_root_mean_squared_error")["test_score"]
        f = table.to_frame()
        got = f[f["model"] == name].sort_values("split")["rmse"]
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    (tmp_path / "reg.py").write_text("from sklearn.linear_model import Ridge\nmodel = Ridge()\n")
    (tmp_path / "reg2.py").write_text(
        "from sklearn.linear_model import LinearRegression\nmodel = LinearRegression()\n"
    )
    monkeypatch.chdir(tmp_path)
    for command in ("select", "compare"):
        out = _cli_here(
            capsys,
            command, "reg.py", "reg2.py", "--dataset", "diabetes", "--metric", "rmse",
            "--rope", "1", "--n-splits", "3", "--n-repeats", "1", "--quiet", "--json",
            *(("--baseline", "reg") if command == "select" else ()),
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        rec = json.loads(out.stdout)
        row = rec["steps"][0] if command == "select" else rec[0]  # --json: a record per candidate
        base = row["champion_score"] if command == "select" else row["baseline_score"]
        ref = cross_validate(Ridge(), X, y, cv=cv, scoring="neg_root_mean_squared_error")
        assert base == pytest.approx(-ref["test_score"].mean(), rel=1e-12)
        assert (row if command == "compare" else rec)["metric"] == "rmse"


def _cli_here(capsys, *args):
    """The command line in this process (no interpreter start-up): exit code, stdout, stderr."""
    from types import SimpleNamespace

    from bayescomp.cli.main import main

    capsys.readouterr()
    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return SimpleNamespace(returncode=rc, stdout=out.out, stderr=out.err)


# ----------------------------------------- silent acceptances: text features, NaN labels
def _text_features():
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=60), "colour": rng.choice(["red", "blue"], 60)})
    return X, rng.integers(0, 2, 60)


def test_text_features_given_to_a_numeric_model_name_the_column():
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    import bayescomp as bc
    from bayescomp.core.exceptions import FitError

    X, y = _text_features()
    hint = r"feature column 'colour' holds text this model cannot take: encode it inside"
    models = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    kw = dict(
        baseline="nb", rope=0.01, metric="accuracy", cv=default_cv(y, n_splits=3, n_repeats=1)
    )
    with pytest.raises(FitError, match=hint + r".*--drop colour"):
        bc.select_models(models, X, y, progress=False, **kw)
    with pytest.raises(ValueError, match=r"model 'nb' failed on split 0: .*" + hint):
        bc.cross_validate_paired(
            {"nb": GaussianNB()}, X, y, cv=3, scoring="accuracy", error_score="raise"
        )
    # the same data, numeric: the models fit (the hint is about the text column only)
    ok = bc.select_models(models, X[["a"]], y, progress=False, **kw)
    assert ok.steps["decision"].notna().all()


@pytest.mark.parametrize("missing", [float("nan"), None])
def test_threshold_curves_refuse_missing_labels(missing):
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold

    import bayescomp as bc

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100).astype(object)
    s = rng.random(100)
    y[3] = missing
    msg = r"y_true has 1 missing label \(NaN/None\), first at row 3; drop those rows"
    with pytest.raises(ValueError, match="repetition 0: " + msg):
        bc.threshold_curves(predictions=[(y, s)], thresholds=[0.5])
    f = pd.DataFrame({"repetition": 0, "y_true": y, "y_score": s})
    with pytest.raises(ValueError, match=msg):
        bc.threshold_curves(predictions=f, thresholds=[0.5])
    X = rng.normal(size=(100, 2))
    with pytest.raises(ValueError, match=r"^y has 1 missing label"):
        bc.threshold_curves(LogisticRegression(), X, y, cv=KFold(3))


# ------------------------------------------------------ item 18: probabilities named by region
def test_plot_titles_name_the_region_of_every_probability():
    from pathlib import Path

    from scipy import stats

    import bayescomp as bc

    rng = np.random.default_rng(3)
    a = rng.normal(0.80, 0.02, 30)
    b = a + 0.004 + rng.normal(0, 0.01, 30)
    res = bc.correlated_ttest(a, b, rho=0.1, rope=0.01, baseline_name="lr", candidate_name="forest")
    d = b - a
    post = stats.t(29, loc=d.mean(), scale=np.sqrt(d.var(ddof=1) * (1 / 30 + 0.1 / 0.9)))
    title = res.plot().get_title()
    # independent: scipy's Student-t, beyond the ROPE and at all are different numbers
    assert f"P(forest better beyond the ROPE) = {post.sf(0.01):.3f}" in title
    assert f"P(forest worse beyond the ROPE) = {post.cdf(-0.01):.3f}" in title
    assert f"P(inside the ROPE) = {post.cdf(0.01) - post.cdf(-0.01):.3f}" in title
    assert f"P(forest better at all, difference > 0) = {post.sf(0):.3f}" in title
    assert round(post.sf(0.01), 3) != round(post.sf(0), 3)  # the README's confusion
    # the hierarchical posterior's title, against its own delta0 draws
    hier = bc.load(Path(__file__).parent / "data" / "hierarchical_result_v0_1_0.nc")
    delta0 = np.ravel(hier.idata.posterior["delta0"].values)
    t = hier.plot().get_title()
    c, r = hier.candidate_name, hier.rope
    assert f"P({c} better beyond the ROPE) = {np.mean(delta0 > r):.3f}" in t
    assert f"P({c} better at all, difference > 0) = {np.mean(delta0 > 0):.3f}" in t
    zero = bc.correlated_ttest(a, b, rho=0.1, rope=0.0, baseline_name="lr", candidate_name="forest")
    assert f"P(forest better) = {post.sf(0):.3f} (ROPE 0)" in zero.plot().get_title()


# ------------------------------------ item 19: no font or deprecation noise on hierarchical plots
def test_hierarchical_figures_draw_without_findfont_or_deprecation_lines():
    import io
    import warnings
    from pathlib import Path

    import bayescomp as bc

    res = bc.load(Path(__file__).parent / "data" / "hierarchical_result_v0_1_0.nc")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figures = res.figures()
        for fig in figures.values():
            fig.savefig(io.BytesIO(), format="png")
    assert [str(w.message)[:80] for w in caught] == []
    # "findfont: Failed to find font weight semibold": no text asks for a weight the
    # default font does not have (the font manager logs that once per process)
    weights = {t.get_fontweight() for fig in figures.values() for ax in fig.axes for t in ax.texts}
    assert not weights & {"semibold", "demibold", 600}, weights


# ------------------------------------- item 14: a multi-dataset selection says how it decided
@pytest.fixture(scope="module")
def multi_dataset_selection(tmp_path_factory):
    import warnings

    import bayescomp as bc

    scores = bc.Scores.read_csv(_two_dataset_csv(tmp_path_factory.mktemp("s") / "s.csv"))
    small = {"chains": 2, "draws": 200, "tune": 200}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = bc.select(scores, baseline="a", rope=0.005, metric="accuracy", compare_options=small)
        one = bc.select(
            scores, baseline="a", rope=0.005, metric="accuracy", dataset="d1", rule="family"
        )
    return sel, one


def test_every_step_records_its_method_and_diagnostics(multi_dataset_selection):
    import arviz as az

    sel, one = multi_dataset_selection
    step = sel.to_dict()["steps"][0]
    res = sel.results[0]
    assert step["method"] == "hierarchical"
    diag = step["diagnostics"]
    # independent: ArviZ on the posterior draws themselves, and the sampler's own flags
    post = res.idata.posterior[["delta0", "std0", "nu", "delta", "sigma"]]
    assert diag["max_r_hat"] == pytest.approx(float(az.rhat(post).to_array().max()), abs=1e-9)
    assert diag["min_ess_bulk"] == pytest.approx(
        float(az.ess(post, method="bulk").to_array().min()), rel=1e-9
    )
    assert diag["divergences"] == int(res.idata.sample_stats["diverging"].sum())
    assert diag["attempts"] == len(res.attempts) and diag["retries"] == len(res.attempts) - 1
    assert diag["attempt_seconds"] == pytest.approx([a["seconds"] for a in res.attempts])
    # one dataset: the closed-form t-test, with nothing sampled
    single = one.to_dict()["steps"][0]
    assert single["method"] == "ttest" and single["diagnostics"] == {}


def test_the_report_shows_each_steps_method_and_a_true_footer(multi_dataset_selection, tmp_path):
    import json

    sel, one = multi_dataset_selection
    html = sel.report(tmp_path / "multi").read_text()
    diag = json.loads((tmp_path / "multi" / "selection.json").read_text())["steps"][0][
        "diagnostics"
    ]
    assert "Posterior: Bayesian hierarchical model across datasets (Corani et al. 2017)" in html
    assert f"max R-hat {diag['max_r_hat']:.3f}" in html
    assert f"min bulk ESS {diag['min_ess_bulk']:.0f}" in html
    assert f"divergences {diag['divergences']}" in html
    assert f"{diag['attempt_seconds'][0]:.1f} s" in html
    assert f"(sampler {sel.results[0].sampler})" in html
    assert len(diag["retry_notes"]) == diag["attempts"] - 1
    for k, note in enumerate(diag["retry_notes"], 1):  # why each retry ran
        assert f"attempt {k}: {note}" in html
    footer = html[html.index("Machine-readable record") :]
    assert "hierarchical model" in footer and "correlated t-test" not in footer
    single = one.report(tmp_path / "one").read_text()
    assert "Posterior: Bayesian correlated t-test (Benavoli et al. 2017), closed form" in single
    assert "R-hat" not in single


# ------------------------------------------------- item 15: fit warnings counted per model
def test_fit_warnings_are_counted_per_model_in_the_json_report_and_stderr(
    tmp_path, monkeypatch, capsys
):
    import json
    import warnings

    from sklearn.base import clone
    from sklearn.datasets import load_breast_cancer
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    import bayescomp as bc
    from bayescomp.splits.repeats import default_cv

    X, y = load_breast_cancer(return_X_y=True)
    lr = LogisticRegression(max_iter=3)
    cv = default_cv(y, n_splits=3, n_repeats=2, random_state=0)
    # independent: scikit-learn fitted by hand on the same splits, its warnings counted
    expected = 0
    for train, _ in cv.split(X, y):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clone(lr).fit(X[train], y[train])
        expected += sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert expected == 6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = bc.select_models({"nb": GaussianNB(), "lr": lr}, X, y, baseline="nb", rope=0.01, metric="accuracy", cv=cv, progress=False)  # fmt: skip
    rec = sel.to_dict()["fit_warnings"]
    assert [(r["model"], r["warning"], r["count"]) for r in rec] == [
        ("lr", "ConvergenceWarning", expected)
    ]
    assert "fit warnings: lr: ConvergenceWarning × 6" in str(sel)
    html = sel.report(tmp_path / "r").read_text()
    assert "<h2>Fit warnings</h2>" in html and "ConvergenceWarning" in html
    saved = json.loads((tmp_path / "r" / "selection.json").read_text())["fit_warnings"]
    assert saved[0]["count"] == expected and saved[0]["model"] == "lr"
    # the command line: the warning on stderr names the model that raised it
    (tmp_path / "nb.py").write_text(
        "from sklearn.naive_bayes import GaussianNB\nmodel = GaussianNB()\n"
    )
    (tmp_path / "lr.py").write_text(
        "from sklearn.linear_model import LogisticRegression\n"
        "model = LogisticRegression(max_iter=3)\n"
    )
    monkeypatch.chdir(tmp_path)
    out = _cli_here(
        capsys, "select", "nb.py", "lr.py", "--dataset", "breast_cancer", "--baseline", "nb",
        "--metric", "accuracy", "--rope", "0.01", "--n-splits", "3", "--n-repeats", "2",
        "--quiet", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "ConvergenceWarning (6 times): model 'lr': lbfgs failed to converge" in out.stderr
    assert json.loads(out.stdout)["fit_warnings"][0]["count"] == 6


# ------------------------------- item 19: metric_table's resamples from counts, not 7,000 calls
@pytest.mark.parametrize("labels", [(0, 1), ("fraud", "ok")])
def test_metric_table_count_path_equals_scikit_learn_per_resample(labels):
    from bayescomp.metrics._metric import resolve_metric
    from bayescomp.metrics.metric_table import count_rows

    rng = np.random.default_rng(0)
    n, pos = 200, labels[0]
    yt, yp = rng.choice(labels, n), rng.choice(labels, n)
    rows = rng.integers(0, n, (40, n))
    rows[0] = np.flatnonzero(yt != pos)[0]  # a resample without a positive: undefined recall
    for name in ("recall", "specificity", "precision", "f1", "fbeta"):
        spec = resolve_metric(name, pos_label=pos, beta=2.0 if name == "fbeta" else None)
        # independent: one scikit-learn call per resample (MetricSpec.batch_rows)
        ref = spec.batch_rows(yt, yp, rows)
        np.testing.assert_allclose(count_rows(name, spec, yt, yp, rows, 2.0), ref, 1e-12, 0, True)
    y = rng.normal(size=n)
    pred = y + rng.normal(size=n)
    rows[0] = 0  # a constant resample: r2_score's force_finite convention
    for name in ("mse", "rmse", "mae", "r2"):
        spec = resolve_metric(name)
        ref = spec.batch_rows(y, pred, rows)
        np.testing.assert_allclose(count_rows(name, spec, y, pred, rows, 2.0), ref, 1e-10)
