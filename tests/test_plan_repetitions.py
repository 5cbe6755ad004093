"""``plan_repetitions``: its predicted decisive rates against the correlated t-test itself.

The planner predicts, from a pilot's per-split differences, how often the correlated
t-test on the pilot continued to ``R`` repetitions (same rows) promotes, says worse or says
equivalent.  Its model (``bayescomp/posterior/repetitions.py``): given the data set,
repetition means ``M_r ~ N(μ, φσ²/k)``, each repetition's ``k`` splits about its mean with
sum of squares ``σ²χ²(k − 1)``; flat priors on ``μ``, ``log σ``, uniform on ``φ``.  The
checks here draw pilots from that model with a known ``φ`` (0.2, and 1: independent
splits), sample the posterior another way (``φ`` from its prior resampled by the pilot's
likelihood, itself checked against numerical integration), draw every new split, run
:func:`bayescomp.correlated_ttest` on the pilot and the new splits together and decide
with its own rule: the planner's rates must match within ±5 points and 4 binomial
standard errors.  A slow test checks calibration across pilots drawn from the model.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import bayescomp as bc
from bayescomp.posterior.plan import decisive_rates


def pilot(n0: int, mean: float, sd: float) -> np.ndarray:
    """``n0`` differences with exactly this mean and sample standard deviation."""
    z = np.random.default_rng(n0).standard_normal(n0)
    return mean + sd * (z - z.mean()) / z.std(ddof=1)


def designs(mu, sigma, phi, folds, repetitions, rng) -> np.ndarray:
    """Designs drawn from the model, one a row (repetition after repetition): repetition
    means ``N(mu, phi·sigma²/folds)``, splits ``sigma·(z − z̄)`` about them."""
    mu, sigma, phi = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (mu, sigma, phi))
    size = max(mu.size, sigma.size, phi.size)
    z = rng.standard_normal((size, repetitions, folds))
    sd_mean = np.sqrt(phi * sigma**2 / folds)[:, None]
    means = mu[:, None] + sd_mean * rng.standard_normal((size, repetitions))
    within = sigma[:, None, None] * (z - z.mean(axis=2, keepdims=True))
    return (means[..., None] + within).reshape(size, -1)


def sums_of_squares(d0, folds):
    x = d0.reshape(-1, folds)
    means = x.mean(axis=1)
    return means, ((means - means.mean()) ** 2).sum(), ((x - means[:, None]) ** 2).sum()


def log_posterior_phi(phi, d0, folds):
    """``log p(φ | pilot)`` up to a constant, in closed form (μ and σ integrated out)."""
    means, ssb, ssw = sums_of_squares(d0, folds)
    r0 = means.size
    return -(r0 - 1) / 2 * np.log(phi) - (d0.size - 1) / 2 * np.log(ssw + folds * ssb / phi)


def test_the_posterior_of_phi_is_the_pilots_likelihood_integrated_numerically():
    """The closed form behind both the planner and the simulation below, against the
    pilot's normal likelihood integrated over μ (flat) and log σ (flat) by quadrature."""
    folds, d0 = 5, designs(0.01, 0.02, 0.4, 5, 3, np.random.default_rng(3))[0]
    means, _, ssw = sums_of_squares(d0, folds)

    mu = np.linspace(-0.1, 0.1, 801)[:, None]
    log_sigma = np.linspace(np.log(1e-3), np.log(0.5), 801)[None, :]
    var = np.exp(2 * log_sigma)

    def integrated(phi):
        """log of the likelihood's integral over μ and log σ (trapezoids on a fine grid)."""
        log_lik = stats.chi2.logpdf(ssw / var, d0.size - means.size) - np.log(var)
        sd = np.sqrt(phi * var / folds)
        log_lik = log_lik + sum(stats.norm.logpdf(m, mu, sd) for m in means)
        inner = integrate.trapezoid(np.exp(log_lik - 60), mu[:, 0], axis=0)
        return np.log(integrate.trapezoid(inner, log_sigma[0])) + 60

    phis = np.array([0.1, 0.4, 1.0])
    numeric = np.array([integrated(p) for p in phis])
    closed = log_posterior_phi(phis, d0, folds)
    assert np.allclose(numeric - numeric[-1], closed - closed[-1], atol=1e-3), (numeric, closed)


def simulated_rates(d0, folds, repetitions, rope, gamma, draws=20_000, seed=1):
    """Share of promote / worse / equivalent of the correlated t-test on the pilot ``d0``
    continued to ``repetitions`` with every new split drawn from the pilot's posterior
    predictive: ``φ`` drawn from its uniform prior and resampled by ``p(φ | pilot)``,
    ``σ²``, ``μ`` given ``φ``, the new repetitions by :func:`designs`."""
    rng = np.random.default_rng(seed)
    means, ssb, ssw = sums_of_squares(d0, folds)
    r0 = means.size
    phi = rng.uniform(0, 1, draws)
    w = np.exp(log_posterior_phi(phi, d0, folds) - log_posterior_phi(phi, d0, folds).max())
    phi = phi[rng.choice(draws, draws, p=w / w.sum())]
    var = (ssw + folds * ssb / phi) / rng.chisquare(d0.size - 1, draws)
    mu = means.mean() + np.sqrt(phi * var / folds / r0) * rng.standard_normal(draws)
    new = designs(mu, np.sqrt(var), phi, folds, repetitions - r0, rng)
    d = np.concatenate([np.broadcast_to(d0, (draws, d0.size)), new], axis=1)
    res = bc.correlated_ttest(np.zeros_like(d), d, rho=1 / folds, rope=rope)
    out = res.decisions(gamma)
    return np.array([np.mean(out == o) for o in ("promote", "worse", "equivalent")])


# (folds, pilot repetitions, planned repetitions, φ, μ, σ, rope, gamma, seed of the pilot)
SETTINGS = [
    (10, 2, 10, 0.2, 0.02, 0.03, 0.01, 0.95, 0),
    (10, 2, 10, 1.0, 0.02, 0.03, 0.01, 0.95, 0),
    (10, 1, 4, 0.2, 0.025, 0.03, 0.01, 0.95, 1),
    (10, 1, 5, 1.0, 0.03, 0.05, 0.0, 0.95, 2),
    (5, 2, 6, 0.2, 0.06, 0.04, 0.02, 0.9, 3),
    (10, 3, 30, 1.0, 0.003, 0.01, 0.01, 0.95, 4),
    (5, 1, 20, 0.2, -0.03, 0.02, 0.01, 0.9, 5),
    (10, 2, 10, 0.2, 0.0, 0.011, 0.01, 0.95, 6),
    (2, 5, 25, 1.0, 0.04, 0.04, 0.01, 0.95, 7),
    (10, 10, 30, 0.2, 0.022, 0.02, 0.01, 0.95, 8),
]


def setting_pilot(setting):
    folds, r0, _, phi, mu, sigma, *_, seed = setting
    return designs(mu, sigma, phi, folds, r0, np.random.default_rng(seed))[0]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: "k{}-r{}-R{}-phi{}-mu{}".format(*s[:5]))
def test_predicted_rates_match_a_simulation_of_the_full_design(setting):
    folds, _, reps, _, _, _, rope, gamma, _ = setting
    d0 = setting_pilot(setting)
    predicted = np.array([x[0] for x in decisive_rates(d0, folds, 1 / folds, rope, gamma, [reps])])
    simulated = simulated_rates(d0, folds, reps, rope, gamma)
    # binomial error of the simulation (20,000 draws) and the planner's (4,000 draws)
    se = np.sqrt(simulated * (1 - simulated) * (1 / 20_000 + 1 / 4_000)) + 1e-3
    assert np.all(np.abs(predicted - simulated) <= np.minimum(0.05, 4 * se)), (
        predicted,
        simulated,
    )
    assert predicted.sum() <= 1 + 1e-12


def test_settings_are_not_trivial():
    """At least 7 settings have a decisive rate away from 0 and 1 (where agreement is
    cheap), among them both values of φ."""
    rates = [
        sum(decisive_rates(setting_pilot(s), s[0], 1 / s[0], s[6], s[7], [s[2]]))[0]
        for s in SETTINGS
    ]
    open_ = [s[3] for s, r in zip(SETTINGS, rates, strict=True) if 0.1 < r < 0.9]
    assert len(open_) >= 7 and set(open_) == {0.2, 1.0}, rates


def test_one_repetition_says_nothing_about_phi():
    """A pilot of one repetition: no spread of repetition means to learn φ from, so its
    posterior is its uniform prior; the prediction is that of the uniform prior (the
    simulation above resamples nothing then) and it depends on the pilot only through
    its mean and sum of squares."""
    d0 = setting_pilot(SETTINGS[2])
    phis = np.linspace(0.05, 1, 5)
    assert np.ptp(log_posterior_phi(phis, d0, 10)) == 0
    shuffled = np.random.default_rng(0).permutation(d0)
    assert decisive_rates(shuffled, 10, 0.1, 0.01, 0.95, [4]) == pytest.approx(
        decisive_rates(d0, 10, 0.1, 0.01, 0.95, [4])
    )


def test_the_pilots_own_count_gives_the_pilots_own_decision():
    """Continued to no more repetitions, the prediction is the pilot's own correlated
    t-test: rate 1 for its decision, 0 for the others."""
    for setting in SETTINGS:
        folds, r0, _, _, _, _, rope, gamma, _ = setting
        d0 = setting_pilot(setting)
        got = np.array([x[0] for x in decisive_rates(d0, folds, 1 / folds, rope, gamma, [r0])])
        res = bc.correlated_ttest(np.zeros_like(d0), d0, rho=1 / folds, rope=rope)
        want = [res.decisions(gamma)[()] == o for o in ("promote", "worse", "equivalent")]
        assert got.tolist() == want, setting


def test_a_pilot_of_partial_repetitions_is_refused():
    """The model reads repetitions: folds beyond the pilot's splits (k > splits) or a
    partial last repetition are refused in one line; k = splits is one repetition."""
    d = pilot(10, 0.03, 0.03)
    assert bc.plan_repetitions(d, folds=10, rope=0.01).pilot_splits == 10
    for splits, folds in ((10, 20), (15, 10), (3, 10)):
        with pytest.raises(ValueError, match="not whole repetitions of the") as info:
            bc.plan_repetitions(pilot(splits, 0.03, 0.03), folds=folds, rope=0.01)
        assert "\n" not in str(info.value)
    # an inconclusive t-test on such splits keeps the plain advice
    res = bc.correlated_ttest(np.zeros(15), pilot(15, 0.012, 0.03), rho=0.1, rope=0.01)
    assert res.decision(0.95).reason.endswith(
        "— collect more repetitions or accept the uncertainty"
    )
    plan = bc.plan_repetitions(pilot(20, 0.03, 0.03), folds=10, rope=0.01)
    for bad in (1, 2.5):
        with pytest.raises(ValueError, match="at least the pilot's 2"):
            plan.rates_at(bad)


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
        f"run {plan.more} more repetitions of the 10-fold design ({10 * plan.more} more "
        f"splits, {plan.repetitions} repetitions in all): they decide with probability "
        f"{plan.decisive_rate:.2f} (bc.plan_repetitions)"
    )
    assert plan.to_dict()["repetitions"] == plan.repetitions


def test_unreachable_plan_says_the_rows_limit_the_answer():
    """Repetitions narrow the posterior only down to s·sqrt(rho/(1 - rho)): a pilot at the
    ROPE's edge is not decided by any number of them."""
    plan = bc.plan_repetitions(pilot(20, 0.012, 0.03), folds=10, rope=0.01, max_repetitions=60)
    assert plan.repetitions is None and plan.more is None
    assert plan.decisive_rate < 0.8
    assert plan.advice() == (
        f"up to 60 repetitions of these rows decide with probability at most "
        f"{plan.decisive_rate:.2f} (bc.plan_repetitions): collect more rows (or widen the "
        "ROPE beyond 0.01 if a larger difference is still negligible to you)"
    )
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


def test_calibrated_across_pilots_drawn_from_the_model():
    """Data sets drawn from the model across a wide prior (``φ ~ U(0, 1)``, the planner's
    own prior; ``σ`` log-uniform on [0.004, 0.04], ``μ ~ U(−0.03, 0.03)``), each a full
    10 × 10 design decided by the correlated t-test: the first 2 repetitions' predicted
    decisive rate matches the share decided, overall and among the pilots between 0.05 and
    0.95, within 4 standard errors of realised − predicted."""
    rng = np.random.default_rng(0)
    folds, r0, reps, rope, gamma, sims = 10, 2, 10, 0.01, 0.95, 2000
    phi, mu = rng.uniform(0, 1, sims), rng.uniform(-0.03, 0.03, sims)
    sigma = np.exp(rng.uniform(np.log(0.004), np.log(0.04), sims))
    d = designs(mu, sigma, phi, folds, reps, rng)
    decided = bc.correlated_ttest(np.zeros_like(d), d, rho=1 / folds, rope=rope)
    decided = decided.decisions(gamma) != "inconclusive"
    predicted = np.concatenate(
        [
            sum(decisive_rates(d[i : i + 500, : r0 * folds], 10, 0.1, rope, gamma, [reps], 1000))
            for i in range(0, sims, 500)
        ]
    )[:, 0]
    for inside in (predicted >= 0, (predicted > 0.05) & (predicted < 0.95)):
        err = decided[inside] - predicted[inside]
        assert inside.sum() > 500
        assert abs(err.mean()) <= 4 * err.std(ddof=1) / np.sqrt(inside.sum()), err.mean()


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
