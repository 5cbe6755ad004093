"""The result types and the scores table satisfy the protocols the stages talk through."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.core.protocols import Posterior, ScoresProvider
from bayescomp.core.rule import decide, decide_many


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    base = rng.normal(0.8, 0.02, 20)
    frame = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], 20),
            "split": np.tile(range(20), 2),
            "accuracy": np.r_[base, base + rng.normal(0.02, 0.01, 20)],
        }
    )
    return bc.Scores.from_frame(frame, test_fraction=0.1)


def test_ttest_result_is_a_posterior(scores):
    res = bc.compare(scores, "a", "b", rope=0.01)
    assert isinstance(res, bc.CorrelatedTTestResult)
    assert isinstance(res, Posterior)
    lo, hi = res.hdi(0.9)
    assert lo < res.expected_gain < hi


@pytest.mark.parametrize("test", [bc.sign_test, bc.signed_rank_test])
def test_rank_test_result_is_a_posterior(test):
    z = np.array([0.02, 0.03, 0.015, 0.04, -0.005, 0.025, 0.03, 0.01])
    res = test(z, rope=0.01, random_state=0, draws=2000)
    assert isinstance(res, Posterior)
    lo, hi = res.hdi(0.9)
    assert lo <= res.expected_gain <= hi
    # the interval is the HDI of the Dirichlet-process mean difference
    assert lo == pytest.approx(np.quantile(res.gain_sample, 0.05), abs=0.01)


def test_scores_is_a_scores_provider(scores):
    assert isinstance(scores, ScoresProvider)
    paired = scores.paired("a", "b")
    assert list(paired.columns) == [
        "dataset",
        "split",
        "baseline",
        "candidate",
        "n_train",
        "n_test",
    ]
    assert paired.attrs["rho"] == scores.rho() == 0.1


def test_decide_many_is_the_scalar_rule():
    rng = np.random.default_rng(1)
    p = rng.dirichlet([0.3, 0.3, 0.3], 500)
    for gamma in (0.6, 0.9, 0.95):
        many = decide_many(p[:, 0], p[:, 1], p[:, 2], gamma)
        one = [decide(*row, gamma=gamma, expected_gain=0.0, risk=0.5).outcome for row in p]
        assert many.tolist() == one
    with pytest.raises(ValueError, match="gamma must lie in"):
        decide_many(0.1, 0.1, 0.8, gamma=1.0)


def test_compare_registry_lists_every_method():
    from bayescomp.posterior.registry import REGISTRY, methods

    assert ("auto", *methods()) == (
        "auto",
        "ttest",
        "time_ordered",
        "hierarchical",
        "signed_rank",
        "sign",
        "multivariate",
        "holdout",
    )
    assert tuple(n for n, m in methods().items() if m.across_datasets) == (
        "hierarchical",
        "signed_rank",
        "sign",
    )
    assert not REGISTRY["ttest"].across_datasets
