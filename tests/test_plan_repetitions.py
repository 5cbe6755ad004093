"""``plan_repetitions``: its predicted decisive rates against the correlated t-test itself.

The planner predicts, from a pilot's per-split differences, how often the correlated
t-test on the pilot continued to ``R`` repetitions (same rows) promotes, says worse or says
equivalent.  Its model: given the data set, the splits are independent ``N(m, σ²)``; the
pilot gives the posterior of ``(m, σ²)`` (flat priors on ``m`` and ``log σ``).  The checks
here draw ``(m, σ²)`` from that posterior, draw every new split, run
:func:`bayescomp.correlated_ttest` on the pilot and the new splits together and decide
with its own rule: the planner's rates must match within ±5 points and 4 binomial
standard errors.  A slow test checks calibration across pilots drawn from a wide prior.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.posterior.plan import decisive_rates


def pilot(n0: int, mean: float, sd: float) -> np.ndarray:
    """``n0`` differences with exactly this mean and sample standard deviation."""
    z = np.random.default_rng(n0).standard_normal(n0)
    return mean + sd * (z - z.mean()) / z.std(ddof=1)


def simulated_rates(d0, folds, repetitions, rope, gamma, draws=20_000, seed=1):
    """Share of promote / worse / equivalent of the correlated t-test on the pilot ``d0``
    continued to ``repetitions`` with splits drawn from the pilot's posterior."""
    rng = np.random.default_rng(seed)
    n0, m = d0.size, repetitions * folds - d0.size
    var = (n0 - 1) * d0.var(ddof=1) / rng.chisquare(n0 - 1, draws)
    level = d0.mean() + np.sqrt(var / n0) * rng.standard_normal(draws)
    new = level[:, None] + np.sqrt(var)[:, None] * rng.standard_normal((draws, m))
    d = np.concatenate([np.broadcast_to(d0, (draws, n0)), new], axis=1)
    res = bc.correlated_ttest(np.zeros_like(d), d, rho=1 / folds, rope=rope)
    out = res.decisions(gamma)
    return np.array([np.mean(out == o) for o in ("promote", "worse", "equivalent")])


# (folds, pilot repetitions, planned repetitions, pilot mean, pilot sd, rope, gamma)
SETTINGS = [
    (10, 1, 3, 0.025, 0.03, 0.01, 0.95),
    (10, 2, 10, 0.022, 0.02, 0.01, 0.95),
    (5, 2, 6, 0.045, 0.04, 0.02, 0.9),
    (10, 3, 30, 0.003, 0.01, 0.01, 0.95),
    (10, 1, 5, 0.03, 0.05, 0.0, 0.95),
    (5, 1, 20, -0.03, 0.02, 0.01, 0.9),
    (10, 1, 10, 0.0, 0.008, 0.01, 0.95),
    (2, 5, 25, 0.04, 0.02, 0.01, 0.95),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: "k{}-r{}-R{}-mu{}".format(*s[:4]))
def test_predicted_rates_match_simulated_correlated_ttest(setting):
    folds, r0, reps, mean, sd, rope, gamma = setting
    d0 = pilot(r0 * folds, mean, sd)
    predicted = np.array([x[0] for x in decisive_rates(d0, 1 / folds, rope, gamma, [reps * folds])])
    simulated = simulated_rates(d0, folds, reps, rope, gamma)
    # binomial error of the simulation (20,000 draws) and the planner's (4,000 draws)
    se = np.sqrt(simulated * (1 - simulated) * (1 / 20_000 + 1 / 4_000)) + 1e-3
    assert np.all(np.abs(predicted - simulated) <= np.minimum(0.05, 4 * se)), (
        predicted,
        simulated,
    )
    assert predicted.sum() <= 1 + 1e-12


def test_settings_are_not_trivial():
    """At least 6 settings have a decisive rate away from 0 and 1 (where agreement is cheap)."""
    rates = [
        sum(decisive_rates(pilot(r0 * k, mu, sd), 1 / k, rope, g, [reps * k]))[0]
        for k, r0, reps, mu, sd, rope, g in SETTINGS
    ]
    assert sum(0.1 < r < 0.9 for r in rates) >= 6, rates


def test_plan_is_the_first_repetition_count_reaching_the_assurance():
    d0 = pilot(20, 0.03, 0.03)
    t0 = time.perf_counter()
    plan = bc.plan_repetitions(d0, folds=10, rope=0.01, assurance=0.6)
    assert time.perf_counter() - t0 < 1.0
    assert plan.folds == 10 and plan.pilot_splits == 20 and plan.more == plan.repetitions - 2
    at = plan.rates_at(plan.repetitions)
    assert at["decisive"] == pytest.approx(plan.decisive_rate) and at["decisive"] >= 0.6
    assert plan.rates_at(plan.repetitions - 1)["decisive"] < 0.6
    assert plan.promote_rate + plan.worse_rate + plan.equivalent_rate == pytest.approx(
        plan.decisive_rate
    )
    assert "repetitions of the 10-fold design" in str(plan)
    assert plan.advice() == (
        f"about {plan.more} more repetitions ({10 * plan.more} more splits) would decide "
        f"with probability {plan.decisive_rate:.2f} (bc.plan_repetitions)"
    )
    assert plan.to_dict()["repetitions"] == plan.repetitions


def test_unreachable_plan_says_the_rows_limit_the_answer():
    """Repetitions narrow the posterior only down to s·sqrt(rho/(1 - rho)): a pilot at the
    ROPE's edge is not decided by any number of them."""
    plan = bc.plan_repetitions(pilot(20, 0.012, 0.03), folds=10, rope=0.01, max_repetitions=60)
    assert plan.repetitions is None and plan.more is None
    assert plan.decisive_rate < 0.8
    assert "collect more rows" in plan.advice()
    # the largest rate any count reaches, within the planner's Monte Carlo error
    best = max(plan.rates_at(r)["decisive"] for r in (2, 5, 20, 60))
    assert plan.decisive_rate >= best - 0.02


def scores_table(d0, folds, goal_sd=0.02, seed=0):
    """A tidy scores table of two models whose per-split differences are ``d0``."""
    rng = np.random.default_rng(seed)
    base = rng.normal(0.85, goal_sd, d0.size)
    n = d0.size
    return pd.DataFrame(
        {
            "model": np.repeat(["base", "cand"], n),
            "split": np.tile(np.arange(n), 2),
            "repeat": np.tile(np.arange(n) // folds, 2),
            "fold": np.tile(np.arange(n) % folds, 2),
            "n_train": 900 - 900 // folds,
            "n_test": 900 // folds,
            "accuracy": np.concatenate([base, base + d0]),
        }
    )


def test_compare_and_select_say_the_plan_when_inconclusive():
    d0 = pilot(20, 0.026, 0.03)
    table = scores_table(d0, 10)
    plan = bc.plan_repetitions(table, "base", "cand", metric="accuracy", rope=0.01)
    same = bc.plan_repetitions(pd.Series(d0), folds=10, rope=0.01)
    assert (plan.repetitions, plan.decisive_rate) == (same.repetitions, same.decisive_rate)
    res = bc.compare(table, "base", "cand", metric="accuracy", rope=0.01)
    decision = res.decision(0.95)
    assert decision.outcome == "inconclusive"
    # inconclusive at 2 × 10 folds: no number of repetitions reaches 0.8 (the floor of the
    # posterior's width), and the reason says the best rate instead of "more repetitions"
    assert plan.repetitions is None and 0.3 < plan.decisive_rate < 0.8
    assert plan.advice() in decision.reason
    assert f"at most {plan.decisive_rate:.2f}" in decision.reason
    sel = bc.select(bc.Scores.from_frame(table), baseline="base", rope=0.01, metric="accuracy")
    assert plan.advice() in sel.steps["reason"].iloc[0]


def test_decided_and_holdout_reasons_keep_their_own_advice():
    d0 = pilot(20, 0.05, 0.01)
    res = bc.correlated_ttest(np.zeros(20), d0, rho=0.1, rope=0.01)
    assert res.decision(0.95).outcome == "promote"
    assert "bc.plan_repetitions" not in res.decision(0.95).reason
    res = bc.correlated_ttest(np.zeros(20), pilot(20, 0.012, 0.03), rho=0.1, rope=0.01)
    assert "collect more rows" in res.decision(0.95).reason


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(pilot=[0.1, 0.2]), "at least 3 finite"),
        (dict(pilot=[0.1, np.nan, 0.2, 0.3], folds=5), "at least 3 finite"),
        (dict(pilot=[0.1, 0.2, 0.3]), "give rho= "),
        (dict(pilot=[0.1, 0.2, 0.3], folds=1), "folds must be an integer >= 2"),
        (dict(pilot=[0.1, 0.2, 0.3], folds=2.5), "folds must be an integer >= 2"),
        (dict(pilot=[0.1, 0.2, 0.3], rho=0.0), "rho must be > 0"),
        (dict(pilot=[0.1, 0.2, 0.3], rho=1.0), "rho must lie in"),
        (dict(pilot=[0.1, 0.1, 0.1], folds=5), "all equal"),
        (dict(pilot=[0.1, 0.2, 0.3], folds=5, assurance=1.0), "assurance must lie in"),
        (dict(pilot=[0.1, 0.2, 0.3], folds=5, max_repetitions=0), "max_repetitions"),
        (dict(pilot=[0.1, 0.2, 0.3], folds=5, gamma=0.4), "gamma"),
        (dict(pilot=[0.1, 0.2, 0.3], folds=5, rope=-1), "rope"),
    ],
)
def test_bad_input_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bc.plan_repetitions(**kwargs)


@pytest.mark.slow
def test_calibrated_across_pilots_from_a_wide_prior():
    """Pilots of data sets with levels and sds drawn from a wide prior: among pilots whose
    predicted decisive rate is between 0.1 and 0.9, the share decided matches the mean
    prediction within 5 points (the planner's flat priors make it a predictive
    probability)."""
    rng = np.random.default_rng(0)
    folds, r0, reps, rope, gamma, sims = 10, 1, 5, 0.01, 0.95, 20_000
    n0, n = r0 * folds, reps * folds
    sd = 0.03 * np.exp(rng.uniform(-3, 3, sims))
    level = rng.uniform(-1, 1, sims) * (rope + 3 * 0.03 * np.exp(3))
    d = level[:, None] + sd[:, None] * rng.standard_normal((sims, n))
    decided = bc.correlated_ttest(np.zeros_like(d), d, rho=1 / folds, rope=rope)
    decided = decided.decisions(gamma) != "inconclusive"
    predicted = np.concatenate(
        [
            sum(decisive_rates(d[i : i + 500, :n0], 1 / folds, rope, gamma, [n], draws=2000))[:, 0]
            for i in range(0, sims, 500)
        ]
    )
    mid = (predicted > 0.1) & (predicted < 0.9)
    assert mid.sum() > 500
    assert abs(predicted[mid].mean() - decided[mid].mean()) < 0.05
    assert abs(predicted.mean() - decided.mean()) < 0.02


def test_a_test_fraction_that_is_no_k_fold_design_is_refused_and_decision_still_answers():
    """Found by the property test: rho = 4.9e-32 made round(1 / rho) overflow inside
    ``decision()``; the planner refuses it in one line and the decision keeps the plain
    advice."""
    d = np.array([0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="implies no k-fold design; give folds="):
        bc.plan_repetitions(d, rho=1e-9, rope=0.0)
    res = bc.correlated_ttest(np.zeros(3), d, rho=4.896825882981393e-32, rope=0.0)
    dec = res.decision(0.95)
    assert dec.outcome == "inconclusive" and "collect more repetitions" in dec.reason


def test_a_table_pilot_refuses_what_it_does_not_use_or_contradicts():
    """rho= is the table's own test fraction (before: silently ignored, the same plan for 0,
    0.5 and 1.0); folds= must be the pilot's own design (before: a 3-fold plan of a 10-fold
    pilot)."""
    rng = np.random.default_rng(0)
    base = 0.8 + 0.01 * rng.standard_normal(20)
    f = pd.DataFrame(
        {"model": np.repeat(["a", "b"], 20), "split": np.tile(np.arange(20), 2)}
        | {"fold": np.tile(np.arange(20) % 10, 2), "n_train": 90, "n_test": 10}
        | {"accuracy": np.r_[base, base + 0.004 + 0.01 * rng.standard_normal(20)]}
    )
    scores = bc.Scores.from_frame(f)
    plan = bc.plan_repetitions(scores, "a", "b", rope=0.01)
    assert plan == bc.plan_repetitions(scores, "a", "b", rope=0.01, folds=10)
    for bad, message in (
        ({"rho": 0.5}, "rho= is for pilot differences"),
        ({"folds": 3}, "10-fold"),
    ):
        with pytest.raises(ValueError, match=message):
            bc.plan_repetitions(scores, "a", "b", rope=0.01, **bad)
