"""The task read_table infers from a target column, checked against scikit-learn's
``type_of_target`` on the same values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.multiclass import type_of_target

from bayescomp.scores.tabular import _task

RNG = np.random.default_rng(0)


@pytest.mark.parametrize(
    "values",
    [
        RNG.integers(0, 2, 500),
        RNG.integers(0, 5, 500),
        RNG.choice(["no", "yes"], 500),
        RNG.choice(["a", "b", "c"], 500),
        RNG.integers(0, 2, 500).astype(bool),
        RNG.integers(0, 3, 500).astype(float),
    ],
)
def test_task_of_class_labels_matches_sklearn(values):
    assert _task(pd.Series(values), None, "y") == type_of_target(values)


def test_regression_and_one_class():
    assert _task(pd.Series(RNG.normal(size=500)), None, "y") == "regression"
    with pytest.raises(ValueError, match="target column 'y' has one class"):
        _task(pd.Series(np.ones(50, dtype=int)), None, "y")
    with pytest.raises(ValueError, match="has 3 classes; use --task multiclass"):
        _task(pd.Series([0, 1, 2] * 10), "binary", "y")
    # labels compared as text: 1 and "1" are one class
    with pytest.raises(ValueError, match="has one class"):
        _task(pd.Series([1, "1"] * 10, dtype=object), "multiclass", "y")
