"""The Plackett–Luce Gibbs sampler (``sampler="auto"``): exact posterior, determinism, agreement.

Independent references: the posterior by quadrature on the simplex (k = 3, ties included) and
NUTS on the PyMC model (``sampler="nutpie"``).  The numba kernel and the numpy engine must give
bitwise identical draws, so a seed's draws never depend on what is installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayescomp.core.exceptions import ConvergenceWarning
from bayescomp.posterior.plackett_luce import gibbs, plackett_luce, rankings_from_scores

REPO = Path(__file__).resolve().parents[1]


def _tables():
    rng = np.random.default_rng(3)
    yield pd.DataFrame(rng.integers(0, 3, size=(30, 4)).astype(float))  # ties everywhere
    yield pd.DataFrame(rng.normal(size=(25, 6)))  # strict
    yield pd.DataFrame(
        np.c_[rng.integers(0, 2, size=(6, 6)), rng.normal(size=(6, 2))]
    )  # 6-way ties
    yield pd.DataFrame(rng.normal(size=(9, 2)))  # k = 2


@pytest.mark.parametrize("table", list(_tables()), ids=["ties", "strict", "big-ties", "k2"])
def test_numba_and_numpy_engines_give_bitwise_identical_draws(table):
    pytest.importorskip("numba")
    r = rankings_from_scores(table)
    run = dict(seed=11, chains=3, draws=150, tune=77, thin=2)
    a = gibbs.sample_gibbs(r, 0.7, engine="numba", **run).posterior["worth"].values
    b = gibbs.sample_gibbs(r, 0.7, engine="numpy", **run).posterior["worth"].values
    assert np.array_equal(a, b)


def test_draws_do_not_depend_on_row_order_chain_count_or_all_tied_rows():
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.integers(0, 4, size=(20, 4)).astype(float), columns=list("abcd"))
    run = dict(seed=4, chains=4, draws=100, tune=50)
    ref = gibbs.sample_gibbs(rankings_from_scores(table), 1.0, **run).posterior["worth"].values
    tied = pd.DataFrame(np.ones((2, 4)), columns=table.columns, index=["t0", "t1"])
    moved = pd.concat([table.sample(frac=1.0, random_state=1), tied])
    again = gibbs.sample_gibbs(rankings_from_scores(moved), 1.0, **run).posterior["worth"]
    assert np.array_equal(again.values, ref)
    two = gibbs.sample_gibbs(rankings_from_scores(table), 1.0, **{**run, "chains": 2})
    assert np.array_equal(two.posterior["worth"].values, ref[:2])


def _quadrature(r, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean of the worths and P(best) of three models, integrated on a 400 x 400
    grid of the simplex."""
    g = (np.arange(400) + 0.5) / 400
    u, v = np.meshgrid(g, g, indexing="ij")
    w = np.stack([u, (1 - u) * v, (1 - u) * (1 - v)], -1).reshape(-1, 3)
    wo = w[:, r.orderings]
    tails = np.cumsum(wo[..., ::-1], axis=-1)[..., ::-1]
    ll_o = (np.log(wo) - np.log(tails)).sum(-1)
    ll = np.log(np.where(r.valid[None], np.exp(ll_o[:, r.index]), 0.0).sum(-1)).sum(-1)
    lp = ll + (a - 1) * np.log(w).sum(1) + np.log(1 - u).ravel()
    p = np.exp(lp - lp.max())
    p /= p.sum()
    return p @ w, np.bincount(w.argmax(1), weights=p, minlength=3)


def _assert_agrees(d: np.ndarray, exact_mean, exact_best, ess: float) -> None:
    """Means and P(best) of draws ``d`` within 4 Monte-Carlo standard errors."""
    se_mean = d.std(0) / np.sqrt(ess)
    best = np.bincount(d.argmax(1), minlength=3) / len(d)
    se_best = np.sqrt(exact_best * (1 - exact_best) / ess) + 1e-3
    assert np.all(np.abs(d.mean(0) - exact_mean) < 4 * se_mean), (d.mean(0), exact_mean)
    assert np.all(np.abs(best - exact_best) < 4 * se_best), (best, exact_best)


@pytest.mark.parametrize("a", [1.0, 0.5, 3.0, 1e-3])
def test_gibbs_matches_the_posterior_computed_by_quadrature(a):
    """k = 3 with ties: means and P(best) within 4 Monte-Carlo standard errors of the
    posterior by quadrature.  At ``a = 1e-3`` the scale ``S ~ Gamma(3a)`` underflows to 0 in
    about a tenth of the sweeps (every draw was NaN before the sweeps left it out of the
    worths' scale)."""
    rng = np.random.default_rng(int(10 * a))
    r = rankings_from_scores(pd.DataFrame(rng.integers(0, 3, size=(15, 3)).astype(float)))
    assert r.tied
    res = gibbs.sample_gibbs(r, a, seed=5, chains=4, draws=3000, tune=300)
    d = res.posterior["worth"].values.reshape(-1, 3)
    # a floor: the bulk ESS of these runs is 0.5-0.9 per kept draw
    _assert_agrees(d, *_quadrature(r, a), ess=0.4 * len(d))


def test_scale_underflows_at_a_tiny_concentration():
    """The premise of the ``a = 1e-3`` case: ``Gamma(0.003)`` is 0 in a float64 often."""
    s = np.random.default_rng(0).standard_gamma(3e-3, size=20_000)
    assert 0.05 < (s == 0).mean() < 0.3


def test_a_model_that_wins_every_dataset_converges_at_the_defaults():
    """30 datasets all won by model 0 (the others random): at the defaults the chains run on
    (thinning more) until the convergence check holds, so the best model is named; the
    posterior agrees with quadrature."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame(np.c_[np.full(30, 9.0), rng.normal(size=(30, 2))], columns=list("abc"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        res = plackett_luce(table, random_state=0)
    assert res.converged and res.idata.posterior.attrs["thin"] > 1
    assert res.best().model == "a"
    ess = float(res.diagnostics["ess_bulk"].min())
    _assert_agrees(res.worth_draws, *_quadrature(rankings_from_scores(table), 1.0), ess=ess)


def test_non_convergence_advice_fits_the_gibbs_sampler():
    table = pd.DataFrame(np.random.default_rng(1).normal(size=(6, 3)), columns=list("abc"))
    with pytest.warns(ConvergenceWarning) as rec:
        res = plackett_luce(table, random_state=0, chains=2, draws=20, tune=20)
    assert res.idata.posterior.attrs["thin"] == gibbs.MAX_THIN
    text = str(rec[0].message)
    assert "target_accept" not in text and "increase draws" in text and "16x" in text


@pytest.mark.slow  # compiles the PyMC model
@pytest.mark.stack
def test_gibbs_agrees_with_nutpie_on_the_pymc_model():
    rng = np.random.default_rng(2)
    worth = np.array([0.5, 0.3, 0.15, 0.05])
    table = pd.DataFrame(np.log(worth) + rng.gumbel(size=(40, 4)), columns=list("abcd")).round(1)
    res = plackett_luce(table, random_state=1, chains=4, draws=2000)
    ref = plackett_luce(table, random_state=1, chains=4, draws=2000, sampler="nutpie")
    assert res.sampler == "gibbs" and res.converged and res.tied and ref.converged
    se = np.hypot(res.diagnostics["mcse_mean"].to_numpy(), ref.diagnostics["mcse_mean"].to_numpy())
    diff = res.worth_draws.mean(0) - ref.worth_draws.mean(0)
    assert np.all(np.abs(diff) < 4 * se), (diff, se)
    assert np.abs(res.p_best - ref.p_best).max() < 0.05
    assert res.order == ref.order


_CHILD = """
import json, sys
for m in sys.argv[1:]:
    sys.modules[m] = None  # as if not installed
import numpy as np, pandas as pd
from bayescomp.posterior.plackett_luce import plackett_luce
t = pd.DataFrame(np.random.default_rng(1).integers(0, 4, size=(12, 4)).astype(float))
res = plackett_luce(t, random_state=3, chains=2, draws=50, tune=20)
print(json.dumps({"sampler": res.sampler, "pymc": sys.modules.get("pymc") is not None,
                  "w": res.worth_draws.tolist()}))
"""


def test_auto_is_gibbs_with_the_same_draws_whatever_is_installed():
    out = []
    for blocked in ([], ["numba", "nutpie", "pymc"]):
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, *blocked],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=300,
            check=True,
        )
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert all(o["sampler"] == "gibbs" and not o["pymc"] for o in out)
    assert out[0]["w"] == out[1]["w"]
