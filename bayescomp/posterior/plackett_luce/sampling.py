"""Sampling the Plackett–Luce model: one MCMC fit for all ``k`` models, seeded and checked.

``sampler="auto"`` is the data-augmented Gibbs sampler of
:mod:`~bayescomp.posterior.plackett_luce.gibbs` on every install (numpy; numba, when
installed, only makes it faster: the same draws).  NUTS on the PyMC model on request
(``"nutpie"``, ``"pymc"``, ``"numpyro"``: the cross-check) and the convergence rule (R-hat,
bulk ESS, divergences) are the hierarchical model's own, imported from
:mod:`bayescomp.posterior.hierarchical`.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any

import numpy as np

from bayescomp.core import exceptions
from bayescomp.core.arviz_compat import from_dict
from bayescomp.core.checks import check_bool, check_number, seed_from
from bayescomp.posterior.hierarchical.diagnostics import check_convergence, diagnostics_table
from bayescomp.posterior.hierarchical.sampling import resolve_sampler, sample_model
from bayescomp.posterior.plackett_luce.model import Rankings, get_model, rankings_from_scores
from bayescomp.posterior.plackett_luce.result import PlackettLuceResult, expected_rank

__all__ = ["plackett_luce"]

_SAMPLERS = ("auto", "gibbs", "nutpie", "pymc", "numpyro")
#: the most models one fit ranks: every draw's expected ranks cost k^2 (1,000 models x 3
#: datasets: 13 s and 0.9 GB peak for the whole ``bayescomp rank``; 10,000 would take ~100x)
MAX_MODELS = 2000


def _resolve(sampler: str) -> str:
    """``"gibbs"`` for ``"auto"`` and ``"gibbs"`` (on every install); NUTS backends by name."""
    if sampler not in _SAMPLERS:
        raise ValueError(f"sampler must be one of {_SAMPLERS}; got {sampler!r}")
    return "gibbs" if sampler in ("auto", "gibbs") else resolve_sampler(sampler)


def _check_options(
    chains: int, draws: int, tune: int, target_accept: float, concentration: float
) -> None:

    for name, val in (("chains", chains), ("draws", draws), ("tune", tune)):
        check_number(val, name, integer=True, min_val=1)
    check_number(target_accept, "target_accept", min_val=0, max_val=1, include_boundaries="neither")
    check_number(
        concentration,
        "concentration",
        min_val=0,
        include_boundaries="neither",
        advice="1 is the uniform Dirichlet prior of Calvo et al.",
    )


def _sample(rankings: Rankings, concentration: float, backend: str, **run: Any) -> Any:
    """Raw draws of the worths: the Gibbs sampler, or NUTS on the cached PyMC model with
    ``rankings``' data swapped in."""
    if backend == "gibbs":  # sweeps are cheap: run on (thinning more) until the check holds
        from bayescomp.posterior.plackett_luce.gibbs import sample_gibbs

        return sample_gibbs(rankings, float(concentration), enough=_converged, **run)

    def data() -> dict[str, Any]:
        return {**rankings.data(), "concentration": np.full(rankings.k, float(concentration))}

    # no hand-written density: ``fast`` is never called (``_resolve`` never returns it)
    return sample_model(None, partial(get_model, rankings), data, backend, **run)


def _converged(worth: np.ndarray) -> bool:
    """The result's convergence check (:class:`PlackettLuceResult`'s), on draws of the worths."""
    idata = from_dict({"posterior": {"worth": worth}}, dims={"worth": ["model"]})
    return check_convergence(diagnostics_table(idata, var_names=("worth",)), 0)[0]


def _to_idata(raw: Any, rankings: Rankings, attrs: dict[str, Any]) -> Any:
    """Worths and expected ranks named by model; observed ranks in ``constant_data``."""
    worth = raw.posterior["worth"].values
    ranks = rankings.ranks
    used = np.isin(ranks.index, rankings.datasets)
    groups = {
        "posterior": {"worth": worth, "expected_rank": expected_rank(worth)},
        "sample_stats": {"diverging": raw.sample_stats["diverging"].values.astype(bool)},
        "constant_data": {"rank": ranks.to_numpy(dtype=float), "informative": used.astype(int)},
    }
    dims = {
        "worth": ["model"],
        "expected_rank": ["model"],
        "rank": ["dataset", "model"],
        "informative": ["dataset"],
    }
    coords = {"model": list(rankings.models), "dataset": list(ranks.index)}
    return from_dict(groups, coords=coords, dims=dims, attrs=attrs)


def plackett_luce(
    scores: Any,
    *,
    metric: str | None = None,
    higher_is_better: bool = True,
    tie_tol: float = 1e-12,
    concentration: float = 1.0,
    random_state: Any = None,
    chains: int = 4,
    draws: int = 1000,
    tune: int = 1000,
    sampler: str = "auto",
    target_accept: float = 0.9,
    progressbar: bool = False,
) -> PlackettLuceResult:
    """Joint Bayesian ranking of ``k`` models across datasets (Plackett–Luce, one MCMC fit).

    Parameters
    ----------
    scores : DataFrame
        One row per dataset (the index names it), one column per model; each cell
        is the model's score on that dataset (e.g. its mean over the splits).
        Only the order of the models on each dataset is used.
    metric : str, optional
        Name of the metric, for labels.
    higher_is_better : bool, default True
        ``False`` ranks the lowest score first (errors, losses, times).
    tie_tol : float, default 1e-12
        Scores within ``tie_tol`` tie.  A tied ranking's likelihood is the exact sum
        over the strict orders consistent with it (see Notes).
    concentration : float, default 1
        The Dirichlet prior ``w ~ Dir(concentration, ..., concentration)`` on the worths.
    random_state : int, Generator or None
        Seed of the sampler; the same seed gives the same draws.
    chains, draws, tune : int
        MCMC chains, kept draws per chain and tuning steps per chain.
    sampler : {"auto", "gibbs", "nutpie", "pymc", "numpyro"}
        ``"auto"`` = ``"gibbs"``: the data-augmented Gibbs sampler of Caron & Doucet (2012)
        on every install (no PyMC; numba, when installed, makes it faster with the same
        draws); ``tune`` is its burn-in and every sweep is kept.  NUTS on the PyMC model
        on request (the cross-check): ``"nutpie"``, ``"pymc"``, ``"numpyro"``.  All
        sample the same posterior.
    target_accept : float
        NUTS target acceptance rate (no effect on the Gibbs sampler: while its draws fail
        the convergence check it runs on, thinning twice as much each time, up to 16
        sweeps per kept draw; ``idata.posterior.attrs["thin"]`` says how many).
    progressbar : bool
        Show the sampler's progress bar.

    Returns
    -------
    PlackettLuceResult

    Notes
    -----
    Model (Calvo et al. 2018, 2019): the ranking ``o`` of one dataset, best first, has
    probability ``prod_p w_{o_p} / sum_{q >= p} w_{o_q}``, and ``w ~ Dirichlet``.
    *Ties:* a dataset whose scores tie contributes ``sum_o P(o | w)`` over the strict
    orders consistent with it (the exact marginal likelihood; at most 5040 orders per
    dataset); a dataset on which every model ties contributes 1 and is left out (named
    in ``result.all_tied``).  A ``ConvergenceWarning`` is raised when the fit fails
    the convergence checks (R-hat, bulk ESS; divergences only exist for NUTS), and the
    result then makes no claim.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> table = pd.DataFrame(rng.normal([0.80, 0.82, 0.85], 0.02, size=(30, 3)),
    ...                      columns=["a", "b", "c"])
    >>> res = plackett_luce(table, random_state=0, chains=2, draws=500)  # doctest: +SKIP
    >>> res.order  # doctest: +SKIP
    ['c', 'b', 'a']
    """
    _check_options(chains, draws, tune, target_accept, concentration)
    higher_is_better = check_bool(higher_is_better, "higher_is_better")
    backend = _resolve(sampler)
    k = _numeric(scores).shape[1]
    if k > MAX_MODELS:
        raise ValueError(
            f"a Plackett–Luce ranking takes at most {MAX_MODELS:,} models, got {k:,} (each "
            "draw's expected ranks cost k^2); rank a subset of the models, or use "
            "method='pairwise'"
        )
    oriented = scores if higher_is_better else -_numeric(scores)
    rankings = rankings_from_scores(_numeric(oriented), tie_tol=float(tie_tol))
    seed = seed_from(random_state)
    raw = _sample(
        rankings,
        concentration,
        backend,
        seed=seed,
        chains=int(chains),
        draws=int(draws),
        tune=int(tune),
        target_accept=float(target_accept),
        progressbar=progressbar,
    )
    rs = int(random_state) if isinstance(random_state, (int, np.integer)) else None
    settings = dict(
        metric=metric,
        sampler=backend,
        random_state=rs,
        concentration=float(concentration),
        all_tied=rankings.all_tied,
        tied=rankings.tied,
    )
    attrs = {
        "bayescomp_result": "PlackettLuceResult",
        "metric": metric,
        "sampler": backend,
        "random_state": rs,
        "concentration": float(concentration),
        "higher_is_better": int(bool(higher_is_better)),
        **({"thin": int(raw.thin)} if backend == "gibbs" else {}),
    }
    res = PlackettLuceResult(idata=_to_idata(raw, rankings, attrs), **settings)
    if not res.converged:
        advice = (
            f"the Gibbs chains already ran {raw.thin}x the requested sweeps: increase draws"
            if backend == "gibbs"
            else "increase draws/tune or target_accept"
        )
        warnings.warn(
            f"Plackett–Luce model did not converge ({res.convergence_problems}); no model is "
            f"named best and no pair is resolved — {advice}",
            exceptions.ConvergenceWarning,  # scikit-learn imported only to warn
            stacklevel=2,
        )
    return res


def _numeric(scores: Any) -> Any:
    import pandas as pd

    if not isinstance(scores, pd.DataFrame):
        raise ValueError(
            f"scores must be a DataFrame with one row per dataset and one column per model, "
            f"got {type(scores).__name__}; from a bayescomp.Scores table use "
            "bayescomp.rank(scores, metric, method='plackett_luce')"
        )
    try:
        return scores.astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"scores must be numeric; could not convert: {exc}") from None
