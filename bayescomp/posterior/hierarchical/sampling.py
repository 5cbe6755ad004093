"""Sampling the hierarchical model: sampler choice, seeding, the NUTS run and the refit.

:func:`hierarchical_test` is the front end: it checks the options, prepares the
data, samples with the chosen parameterisation and, when that fit fails the
convergence checks, samples once more with the other one and keeps the better fit.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_rope, seed_from
from bayescomp.core.exceptions import ConvergenceWarning
from bayescomp.posterior.hierarchical.io import from_draws
from bayescomp.posterior.hierarchical.model import (
    PARAMETERIZATIONS,
    _choose_parameterization,
    _get_model,
    _prepare,
)

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az

    from bayescomp.posterior.hierarchical.model import _Prepared
    from bayescomp.posterior.hierarchical.result import HierarchicalResult

__all__ = ["hierarchical_test"]

_SAMPLERS = ("auto", "nutpie", "pymc", "numpyro")


def _resolve_sampler(sampler: str) -> str:
    if sampler not in _SAMPLERS:
        raise ValueError(f"sampler must be one of {_SAMPLERS}; got {sampler!r}")
    if sampler == "numpyro":
        try:
            import jax  # noqa: F401
            import numpyro  # noqa: F401
        except ImportError:
            raise ImportError(
                "sampler='numpyro' needs numpyro and jax, which are not installed; install them "
                "with `pip install bayescomp[numpyro]` (or use sampler='auto')"
            ) from None
        return "numpyro"
    if sampler in ("auto", "nutpie"):
        try:
            import nutpie  # noqa: F401
        except ImportError:
            if sampler == "nutpie":
                raise ImportError(
                    "sampler='nutpie' needs nutpie; install it with `pip install "
                    "bayescomp[nutpie]` (or use sampler='auto' to fall back to PyMC's NUTS)"
                ) from None
            return "pymc"
        return "nutpie"
    return "pymc"

def _sample(
    prep: _Prepared,
    parameterization: str,
    backend: str,
    *,
    seed: int,
    chains: int,
    draws: int,
    tune: int,
    target_accept: float,
    progressbar: bool,
) -> az.InferenceData:
    """Posterior draws (standardised scale) from the cached model with ``prep``'s data."""
    data = prep.standardised()
    cores = max(1, min(chains, os.cpu_count() or 1))
    with warnings.catch_warnings():
        # The model is scalar per dataset: PyTensor's "could not link to a BLAS" is noise here.
        warnings.filterwarnings(
            "ignore", message=".*could not link to a BLAS", category=UserWarning
        )
        model, compiled = _get_model(prep.q, parameterization, backend)
        if backend == "nutpie":
            import nutpie

            return nutpie.sample(
                compiled.with_data(**data), draws=draws, tune=tune, chains=chains, cores=cores,
                seed=seed, progress_bar=progressbar, target_accept=target_accept,
            )
        import pymc as pm

        kwargs: dict[str, Any] = {"nuts_sampler": "numpyro"} if backend == "numpyro" else {}
        with model:
            pm.set_data(data)
            return pm.sample(
                draws=draws, tune=tune, chains=chains, cores=cores, random_seed=seed,
                target_accept=target_accept, progressbar=progressbar,
                compute_convergence_checks=False, **kwargs,
            )


def _check_options(
    chains: int, draws: int, tune: int, target_accept: float, parameterization: str,
    std_upper: float,
) -> None:
    for name, val in (("chains", chains), ("draws", draws), ("tune", tune)):
        if int(val) != val or val < 1:
            raise ValueError(f"{name} must be a positive integer; got {val!r}")
    if not 0 < float(target_accept) < 1:
        raise ValueError(f"target_accept must lie in (0, 1), e.g. 0.9; got {target_accept}")
    if parameterization not in ("auto", *PARAMETERIZATIONS):
        raise ValueError(
            f"parameterization must be 'auto', 'centered' or 'noncentered'; got "
            f"{parameterization!r}"
        )
    if not std_upper > 1:
        raise ValueError(f"std_upper must be > 1 (baycomp uses 1000); got {std_upper}")


def _score(res: HierarchicalResult) -> tuple[int, float]:
    """Order fits: fewer divergences first, then the larger worst-case bulk ESS."""
    return (-res.divergences, float(res.diagnostics["ess_bulk"].min()))


def _fit(
    prep: _Prepared, first: str, draw: Any, settings: dict[str, Any], refit: bool
) -> HierarchicalResult:
    """Fit with ``first``; if that fails the checks and ``refit``, try the other form too.

    ``draw(parameterization)`` returns the raw draws.  Each result is built once, with
    its final ``refitted`` flag: a kept first fit is rebuilt from its own draws.
    """
    raw = draw(first)
    res = from_draws(raw, prep, **settings, parameterization=first, refitted=False)
    if res.converged or not refit:
        return res
    other = "noncentered" if first == "centered" else "centered"
    alt = from_draws(draw(other), prep, **settings, parameterization=other, refitted=True)
    if alt.converged or _score(alt) > _score(res):
        return alt
    return from_draws(raw, prep, **settings, parameterization=first, refitted=True)


# ------------------------------------------------------------------ front end
def hierarchical_test(
    differences: Mapping[str, Any],
    rho: float | Mapping[str, float],
    *,
    rope: float = 0.0,
    random_state: Any = None,
    chains: int = 4,
    draws: int = 2000,
    tune: int = 1000,
    sampler: str = "auto",
    parameterization: str = "auto",
    target_accept: float = 0.9,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    metric: str | None = None,
    progressbar: bool = False,
    refit: bool = True,
    std_upper: float = 1000.0,
) -> HierarchicalResult:
    """Compare two models over many datasets with the Bayesian hierarchical model.

    Parameters
    ----------
    differences : mapping of str to array_like
        Dataset name -> 1-D paired differences ``candidate - baseline`` on its
        resampling splits (oriented so that higher is better).  The number of
        splits may differ between datasets.
    rho : float or mapping of str to float
        Correlation between splits of each dataset: the test fraction
        ``n_test / (n_train + n_test)`` of its design (0.1 for 10-fold CV).
    rope : float, default 0
        Half-width of the region of practical equivalence, in metric units.
    random_state : int, numpy Generator or None
        Seed of the sampler; the same seed gives the same draws.
    chains, draws, tune : int
        MCMC chains, kept draws per chain and tuning steps per chain.
    sampler : {"auto", "nutpie", "pymc", "numpyro"}
        ``"auto"`` uses nutpie when it is installed, else PyMC's NUTS.
    parameterization : {"auto", "centered", "noncentered"}
        ``"auto"`` picks from the data (see Notes).
    target_accept : float
        NUTS target acceptance rate.
    baseline_name, candidate_name, metric : str
        Used in reports and plots.
    progressbar : bool
        Show the sampler's progress bar.
    refit : bool, default True
        When the first fit fails the convergence checks, fit once more with
        the other parameterisation and keep the better fit.
    std_upper : float, default 1000
        Upper bound of the uniform priors on ``sigma_i`` and ``std0``, as a
        multiple of the observed within- and between-dataset standard deviations.

    Returns
    -------
    HierarchicalResult

    Notes
    -----
    *Parameterisation.*  When the spread of the dataset means exceeds the
    typical standard error of one mean, the centred form is used, otherwise the
    non-centred form ``delta_i = delta0 + std0 * z_i``.

    *Zero variance.*  A dataset whose differences are identical on every split
    keeps its mean; its within-dataset standard deviation is set to the
    smallest one observed on the other datasets (a ``ZeroVarianceWarning``
    names it).  Nothing random is added.

    *Compiled-model cache.*  The compiled model is cached in-process by
    ``(number of datasets, parameterisation, sampler)`` and the data are
    swapped in, so repeated comparisons of the same shape skip compilation
    (see :func:`model_cache_info`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> diffs = {f"d{i}": rng.normal(0.02, 0.01, 20) for i in range(8)}
    >>> res = hierarchical_test(diffs, rho=0.1, rope=0.005, random_state=1,
    ...                         chains=2, draws=300, tune=300)  # doctest: +SKIP
    >>> res.p_right > 0.9  # doctest: +SKIP
    True
    """
    rope_f = float(check_rope(rope))
    _check_options(chains, draws, tune, target_accept, parameterization, std_upper)
    backend = _resolve_sampler(sampler)
    prep = _prepare(differences, rho, float(std_upper))
    first = _choose_parameterization(prep) if parameterization == "auto" else parameterization
    draw = partial(
        _sample, prep, backend=backend, seed=seed_from(random_state), chains=int(chains),
        draws=int(draws), tune=int(tune), target_accept=float(target_accept),
        progressbar=progressbar,
    )
    settings = dict(
        rope=rope_f, baseline_name=str(baseline_name), candidate_name=str(candidate_name),
        metric=metric, sampler=backend,
        random_state=int(random_state) if isinstance(random_state, (int, np.integer)) else None,
    )
    res = _fit(prep, first, draw, settings, refit)
    if not res.converged:
        warnings.warn(
            f"hierarchical model did not converge ({res.convergence_problems}); decisions will "
            "be 'inconclusive' — increase draws/tune or target_accept",
            ConvergenceWarning,
            stacklevel=2,
        )
    return res
