"""The fuzz table (bench/fuzz_table.py) found two more defects, fixed here:
``plan_test_set`` on a tiny difference raised OverflowError (a raw exception) or a scipy
TypeError, and ``select`` on a predictions table dropped its keywords without a word
(``threshold=0.5`` ignored, then the error asked for ``threshold=0.5``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

import bayescomp as bc


@pytest.mark.parametrize(
    ("difference", "rope"), [(1e-300, 0.0), (1e-100, 0.0), (0.01 + 1e-17, 0.01)]
)
def test_plan_for_a_tiny_difference_is_a_clear_error(difference, rope):
    with pytest.raises(ValueError, match=r"too small next to the per-item sd .* more than 1e\+15"):
        bc.plan_test_set(difference, rope=rope, sd=0.2)


def test_plan_for_a_small_difference_still_answers_the_normal_formula():
    plan = bc.plan_test_set(1e-6, sd=0.2)
    z = 1.6448536269514722 + 0.8416212335729143
    assert plan.n_items == pytest.approx((z * 0.2 / 1e-6) ** 2, rel=1e-6)


@pytest.fixture(scope="module")
def probs() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    old = np.where(y == 1, rng.beta(4, 2, 400), rng.beta(2, 4, 400))
    new = np.where(y == 1, rng.beta(6, 2, 400), rng.beta(2, 6, 400))
    return pd.DataFrame({"y_true": y, "old": old, "new": new})


def test_select_on_predictions_takes_threshold_among_compare_options(probs):
    sel = bc.select(probs, baseline="old", rope=0.01, compare_options={"threshold": 0.5})
    means = sel.candidates.set_index("model")["mean"]
    for m in ("old", "new"):
        assert means[m] == pytest.approx(accuracy_score(probs["y_true"], probs[m] >= 0.5))


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"compare_options": {"thresold": 0.5}}, r"\['thresold'\] do not apply"),
        ({"compare_options": {"guardrails": {"f1": 0.1}}}, r"\['guardrails'\] do not apply"),
        ({"cv": 5}, "unexpected keyword argument 'cv'"),
        ({"threshold": 0.5}, "unexpected keyword argument 'threshold'"),
    ],
)
def test_select_on_predictions_refuses_keywords_it_cannot_use(probs, kwargs, words):
    with pytest.raises(TypeError, match=words):
        bc.select(probs, baseline="old", rope=0.01, **kwargs)
