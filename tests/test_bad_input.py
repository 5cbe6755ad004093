"""Property-based tests of the bad-input contract.

Every malformed input must raise a ``ValueError`` whose message says what is
wrong; no input may ever produce NaN probabilities.  Every valid input must
give three probabilities in [0, 1] that sum to one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import bayescomp as bc
from bayescomp.posterior.frequentist import nadeau_bengio_ttest

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: score tables are slower to build: fewer examples
TABLE_SETTINGS = settings(SETTINGS, max_examples=30)

# subnormal scores (below 2.2e-308) are refused with a message (issue 23 item 7)
scores_elem = st.floats(
    min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False, allow_subnormal=False
)
unit_elem = st.floats(min_value=0.0, max_value=1.0, allow_subnormal=False)
valid_rho = st.floats(min_value=0.0, max_value=0.99)
valid_rope = st.floats(min_value=0.0, max_value=10.0)
bad_rho = st.one_of(
    st.floats(max_value=-1e-12, allow_nan=False),
    st.floats(min_value=1.0, allow_nan=False),
    st.just(float("nan")),
    st.just(float("inf")),
    st.just(-float("inf")),
)
bad_rope = st.one_of(
    st.floats(max_value=-1e-12, allow_nan=False, allow_infinity=False),
    st.just(float("nan")),
    st.just(float("inf")),
    st.just(-float("inf")),
)
non_finite = st.sampled_from([np.nan, np.inf, -np.inf])


def quiet():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore")  # zero-variance / heavy-tail warnings are allowed
    return ctx


def check_probabilities(res):
    pl, pe, pr = (np.asarray(p, dtype=float) for p in (res.p_left, res.p_rope, res.p_right))
    for p in (pl, pe, pr, np.asarray(res.p_better), np.asarray(res.p_worse)):
        assert np.all(np.isfinite(p)), p
        assert np.all((p >= 0) & (p <= 1)), p
    np.testing.assert_allclose(pl + pe + pr, 1.0, atol=1e-9)
    assert np.all(np.isfinite(res.mean)) and np.all(np.asarray(res.scale) >= 0)
    lo, hi = res.interval(0.95)
    assert np.all(np.isfinite(lo)) and np.all(lo <= hi)


def raises_clear(match):
    """A ValueError whose message names the problem (and is not a bare repr)."""
    return pytest.raises(ValueError, match=match)


# ------------------------------------------------------------ valid inputs
@SETTINGS
@given(
    data=st.data(),
    n=st.integers(2, 60),
    rho=valid_rho,
    rope=valid_rope,
    unit=st.booleans(),
)
def test_valid_inputs_give_proper_probabilities(data, n, rho, rope, unit):
    elem = unit_elem if unit else scores_elem
    b = data.draw(arrays(float, n, elements=elem))
    c = data.draw(arrays(float, n, elements=elem))
    ctx = quiet()
    try:
        res = bc.correlated_ttest(b, c, rho=rho, rope=rope)
    finally:
        ctx.__exit__(None, None, None)
    check_probabilities(res)
    assert res.decision(0.95).outcome in ("promote", "worse", "equivalent", "inconclusive")


@SETTINGS
@given(
    data=st.data(),
    shape=st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(2, 12)),
    rho=valid_rho,
    rope=valid_rope,
)
def test_valid_batches_give_proper_probabilities(data, shape, rho, rope):
    b = data.draw(arrays(float, shape, elements=unit_elem))
    c = data.draw(arrays(float, shape, elements=unit_elem))
    ctx = quiet()
    try:
        res = bc.correlated_ttest(b, c, rho=rho, rope=rope)
    finally:
        ctx.__exit__(None, None, None)
    assert np.shape(res.p_left) == shape[:-1]
    check_probabilities(res)
    assert set(res.decisions(0.9).ravel()) <= {"promote", "worse", "equivalent", "inconclusive"}


@TABLE_SETTINGS
@given(
    data=st.data(),
    n=st.integers(2, 40),
    rho=valid_rho,
    goal=st.floats(0, 1, allow_subnormal=False),
    rope=st.floats(0, 0.1),
)
def test_valid_score_tables_give_proper_probabilities(data, n, rho, goal, rope):
    b = data.draw(arrays(float, n, elements=unit_elem))
    c = data.draw(arrays(float, n, elements=unit_elem))
    frame = pd.DataFrame(
        {"model": ["b"] * n + ["c"] * n, "split": list(range(n)) * 2, "accuracy": np.r_[b, c]}
    )
    scores = bc.Scores.from_frame(frame, test_fraction=max(rho, 0.01))
    ctx = quiet()
    try:
        res = bc.compare(scores, "b", "c", rope=rope)
        res_goal = bc.compare(scores, goal, "c", rope=rope)
    finally:
        ctx.__exit__(None, None, None)
    check_probabilities(res)
    check_probabilities(res_goal)


# ----------------------------------------------------- malformed raw arrays
@SETTINGS
@given(data=st.data(), n=st.integers(2, 30), bad=non_finite, which=st.sampled_from(["b", "c"]))
def test_nan_or_inf_scores_are_refused(data, n, bad, which):
    b = data.draw(arrays(float, n, elements=unit_elem))
    c = data.draw(arrays(float, n, elements=unit_elem))
    i = data.draw(st.integers(0, n - 1))
    (b if which == "b" else c)[i] = bad
    name = "baseline" if which == "b" else "candidate"
    with raises_clear(f"{name} scores contain NaN or inf"):
        bc.correlated_ttest(b, c, rho=0.1)
    with raises_clear("NaN or inf"):
        nadeau_bengio_ttest(b, c, rho=0.1)


@SETTINGS
@given(nb=st.integers(1, 30), nc=st.integers(1, 30))
def test_mismatched_lengths_are_refused(nb, nc):
    assume(nb != nc)
    with raises_clear("same shape"):
        bc.correlated_ttest(np.linspace(0, 1, nb), np.linspace(0, 1, nc), rho=0.1)


@SETTINGS
@given(n=st.integers(0, 1), goal=st.booleans())
def test_fewer_than_two_splits_are_refused(n, goal):
    c = np.full(n, 0.8)
    b = 0.7 if goal else np.full(n, 0.7)
    with raises_clear("at least 2 paired splits"):
        bc.correlated_ttest(b, c, rho=0.1)


def test_scalar_candidate_is_refused():
    with raises_clear("one score per split"):
        bc.correlated_ttest([0.7, 0.8], 0.9, rho=0.1)


@SETTINGS
@given(rho=bad_rho)
def test_rho_outside_unit_interval_is_refused(rho):
    with raises_clear(r"rho must lie in \[0, 1\)"):
        bc.correlated_ttest([0.7, 0.8, 0.75], [0.8, 0.82, 0.9], rho=rho)
    with raises_clear("rho"):
        nadeau_bengio_ttest([0.7, 0.8, 0.75], [0.8, 0.82, 0.9], rho=rho)


@SETTINGS
@given(rope=bad_rope)
def test_bad_rope_is_refused(rope):
    with raises_clear("rope must be a finite half-width"):
        bc.correlated_ttest([0.7, 0.8, 0.75], [0.8, 0.82, 0.9], rho=0.1, rope=rope)


@SETTINGS
@given(bad=st.sampled_from(["abc", None, {"a": 1}, ["0.1", "x"]]))
def test_non_numeric_input_is_refused(bad):
    with pytest.raises(ValueError):
        bc.correlated_ttest(bad, [0.8, 0.9], rho=0.1)


@SETTINGS
@given(big=st.floats(1e155, 1e308), n=st.integers(2, 10))
def test_huge_scores_never_give_nan(big, n):
    c = big * np.linspace(-1.0, 1.0, n)
    assert np.all(np.isfinite(c))
    try:
        res = bc.correlated_ttest(np.zeros(n), c, rho=0.1)
    except ValueError as exc:
        assert "rescale" in str(exc)
    else:
        check_probabilities(res)


# ------------------------------------------------------ malformed score tables
def _table(n_b, n_c, *, datasets=("d1",), metric="accuracy", seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for ds in datasets:
        for model, n in (("base", n_b), ("cand", n_c)):
            for k in range(n):
                rows.append(
                    {
                        "dataset": ds,
                        "model": model,
                        "split": k,
                        "n_train": 90,
                        "n_test": 10,
                        metric: rng.uniform(0.7, 0.9),
                    }
                )
    return pd.DataFrame(rows)


@TABLE_SETTINGS
@given(n=st.integers(3, 20), drop=st.data(), who=st.sampled_from(["base", "cand"]))
def test_unpaired_splits_are_refused(n, drop, who):
    frame = _table(n, n)
    k = drop.draw(st.integers(0, n - 1))
    frame = frame[~((frame["model"] == who) & (frame["split"] == k))]
    with raises_clear(f"unpaired splits: .*'{who}' covers"):
        bc.compare(bc.Scores.from_frame(frame), "base", "cand")


@TABLE_SETTINGS
@given(
    n=st.integers(3, 20),
    data=st.data(),
    who=st.sampled_from(["base", "cand"]),
    new_size=st.integers(1, 89),
)
def test_mismatched_split_sizes_are_refused(n, data, who, new_size):
    assume(new_size != 10)
    frame = _table(n, n)
    k = data.draw(st.integers(0, n - 1))
    frame.loc[(frame["model"] == who) & (frame["split"] == k), "n_test"] = new_size
    with raises_clear(f"split {k} has different sizes"):
        bc.compare(bc.Scores.from_frame(frame), "base", "cand")


@TABLE_SETTINGS
@given(n=st.integers(3, 20), data=st.data(), who=st.sampled_from(["base", "cand"]), bad=non_finite)
def test_nan_scores_in_a_table_are_refused(n, data, who, bad):
    frame = _table(n, n)
    k = data.draw(st.integers(0, n - 1))
    frame.loc[(frame["model"] == who) & (frame["split"] == k), "accuracy"] = bad
    scores = bc.Scores.from_frame(frame)
    with raises_clear(f"'accuracy' of '{who}' is NaN/inf on split"):
        bc.compare(scores, "base", "cand")
    if who == "cand":
        with raises_clear("NaN/inf"):
            bc.compare(scores, 0.8, "cand")


def test_one_split_table_is_refused():
    with raises_clear("at least 2 paired splits"):
        bc.compare(bc.Scores.from_frame(_table(1, 1)), "base", "cand")


@TABLE_SETTINGS
@given(name=st.text(min_size=1, max_size=8).filter(lambda s: s not in ("base", "cand")))
def test_unknown_model_metric_dataset(name):
    scores = bc.Scores.from_frame(_table(5, 5))
    with raises_clear("unknown model"):
        bc.compare(scores, name, "cand")
    with raises_clear("unknown model"):
        bc.compare(scores, "base", name)
    with raises_clear("unknown metric"):
        bc.compare(scores, "base", "cand", metric=name)
    with raises_clear("unknown dataset"):
        bc.compare(scores, "base", "cand", dataset=name)


def test_unknown_metric_direction_needs_higher_is_better():
    scores = bc.Scores.from_frame(_table(5, 5, metric="weird_metric"))
    with raises_clear("higher_is_better"):
        bc.compare(scores, "base", "cand")
    res = bc.compare(scores, "base", "cand", higher_is_better=True)
    check_probabilities(res)


@TABLE_SETTINGS
@given(k=st.integers(2, 5))
def test_several_datasets_need_dataset(k):
    # (method="auto" runs the hierarchical model across datasets; the t-test needs one)
    scores = bc.Scores.from_frame(_table(5, 5, datasets=[f"d{i}" for i in range(k)]))
    with raises_clear(f"{k} datasets .* pass dataset="):
        bc.compare(scores, "base", "cand", method="ttest")
    check_probabilities(bc.compare(scores, "base", "cand", dataset="d1"))


def test_same_model_twice_and_missing_metric_choice():
    frame = _table(5, 5)
    frame["roc_auc"] = 0.9
    scores = bc.Scores.from_frame(frame)
    with raises_clear("same model"):
        bc.compare(scores, "base", "base", metric="accuracy")
    with raises_clear("several metrics"):
        bc.compare(scores, "base", "cand")


@TABLE_SETTINGS
@given(rho=bad_rho, rope=bad_rope)
def test_compare_refuses_bad_rope_and_goal(rho, rope):
    scores = bc.Scores.from_frame(_table(5, 5))
    with raises_clear("rope"):
        bc.compare(scores, "base", "cand", rope=rope)
    with raises_clear("goal must be a finite number"):
        bc.compare(scores, float("nan"), "cand")
    with raises_clear("test_fraction"):
        bc.Scores.from_frame(
            _table(5, 5).drop(columns=["n_train", "n_test"]),
            test_fraction=rho if not 0 < rho < 1 else 1.5,
        )


def test_compare_refuses_non_table():
    with raises_clear("Scores or a pandas DataFrame"):
        bc.compare({"base": [1, 2]}, "base", "cand")


@pytest.mark.parametrize("gamma", [0.5, 1.0, -1, 2, float("nan")])
def test_bad_gamma(gamma):
    res = bc.correlated_ttest([0.7, 0.8, 0.75], [0.8, 0.82, 0.9], rho=0.1)
    with raises_clear("gamma must lie in"):
        res.decision(gamma)


def test_dataset_filter_and_goal_on_a_dataset_without_the_model():
    frame = pd.concat(
        [_table(4, 4, datasets=("d1",)), _table(4, 4, datasets=("d2",)).replace({"cand": "other"})]
    )
    with raises_clear("unknown dataset 'd3'"):
        bc.Scores.from_frame(frame, dataset="d3")
    scores = bc.Scores.from_frame(frame)
    with raises_clear("'cand' has no scores on dataset 'd2'"):
        bc.compare(scores, 0.8, "cand", dataset="d2")
    with raises_clear("'cand' has no scores on dataset 'd2'"):
        bc.compare(scores, "base", "cand", dataset="d2")
