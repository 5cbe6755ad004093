"""Issue 28 (part c): numbers that were wrong, inputs accepted silently, slow paths.

Every test here failed on the code before its fix and checks a number against an
independent computation (scipy, scikit-learn, baycomp, exact enumeration or numpy).
"""

from __future__ import annotations

import numpy as np
import pytest

import bayescomp as bc


# ---------------------------------------------------------------- item 4: TimeSeriesSplit
def test_from_cross_validate_time_series_split_same_posterior_as_cross_validate_paired():
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import TimeSeriesSplit, cross_validate

    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 3))
    y = X @ [1.0, 0.5, 0.0] + rng.normal(0, 1, 240)
    models = {"dummy": DummyRegressor(), "ridge": Ridge()}
    cv = TimeSeriesSplit(8)
    paired = bc.cross_validate_paired(models, X, y, cv=cv, scoring="r2", progress=False)
    res = {
        m: cross_validate(est, X, y, cv=cv, scoring="r2", return_indices=True)
        for m, est in models.items()
    }
    imported = bc.Scores.from_cross_validate(res, metric="r2")
    a = bc.compare(paired, "dummy", "ridge", metric="r2", rope=0.01)
    b = bc.compare(imported, "dummy", "ridge", metric="r2", rope=0.01)
    assert type(a).__name__ == type(b).__name__ == "TimeOrderedResult"
    np.testing.assert_allclose(
        [b.p_left, b.p_rope, b.p_right], [a.p_left, a.p_rope, a.p_right], rtol=1e-12
    )
    with pytest.warns(bc.TimeOrderedDesignWarning):
        bc.compare(imported, "dummy", "ridge", metric="r2", rope=0.01, method="ttest")
