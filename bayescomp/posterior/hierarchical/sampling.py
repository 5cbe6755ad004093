"""Sampling the hierarchical model: sampler choice, seeding, the NUTS run and the retries.

:func:`hierarchical_test` is the front end: it checks the options, prepares the
data, samples with the chosen parameterisation and, when that fit fails the
convergence checks, retries along :func:`retry_schedule` (a higher ``target_accept``
with longer tuning, then the other parameterisation) until one fit passes; every
attempt's settings and diagnostics are kept in the result (``res.attempts``).
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core import exceptions
from bayescomp.core.checks import check_number, check_rope, seed_from
from bayescomp.core.optional import require
from bayescomp.posterior.hierarchical.diagnostics import ESS_BULK_MIN, ess_required, retry_note
from bayescomp.posterior.hierarchical.io import from_draws, relabel
from bayescomp.posterior.hierarchical.model import (
    PARAMETERIZATIONS,
    choose_parameterization,
    get_model,
    prepare_datasets,
)

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

    from bayescomp.posterior.hierarchical.model import Prepared
    from bayescomp.posterior.hierarchical.result import HierarchicalResult

__all__ = ["RETRY_TARGET_ACCEPT", "hierarchical_test", "retry_schedule"]

#: ``target_accept`` of the escalated retries (the smaller NUTS step removes the rare
#: divergences of the default fit)
RETRY_TARGET_ACCEPT = 0.99

_SAMPLERS = ("auto", "fast", "nutpie", "pymc", "numpyro")


def resolve_sampler(sampler: str) -> str:
    """The backend that runs: ``"fast"`` (hand-written numba density on nutpie), ``"nutpie"``
    (nutpie on the PyMC model), ``"pymc"`` or ``"numpyro"``.  ``"auto"`` depends only on
    what the ``mcmc`` extra installs (never on numpyro or jax), so a seed gives the same
    draws whatever else is installed."""
    from importlib.util import find_spec

    if sampler not in _SAMPLERS:
        raise ValueError(f"sampler must be one of {_SAMPLERS}; got {sampler!r}")
    if sampler == "numpyro":
        for module in ("jax", "numpyro"):
            require(module, "numpyro", "sampler='numpyro'")
        return "numpyro"
    from bayescomp.posterior.nutpie_fast import fast_path_available, nutpie_minor

    if sampler in ("auto", "fast") and fast_path_available():
        return "fast"
    if sampler == "fast":
        for module in ("numba", "platformdirs", "nutpie"):
            require(module, "mcmc", "sampler='fast'")
        raise exceptions.MissingExtraError(
            f"sampler='fast' needs nutpie 0.16.x, not {nutpie_minor()}; install it with: "
            "pip install 'bayescomp[mcmc]'",
            name="nutpie",
        )
    if sampler == "nutpie" or (sampler == "auto" and find_spec("nutpie") is not None):
        require("nutpie", "mcmc", "sampler='nutpie'")
        return "nutpie"
    return "pymc"


def _sample(prep: Prepared, parameterization: str, backend: str, **run: Any) -> Any:
    """Posterior draws (standardised scale) from the cached model with ``prep``'s data."""

    def fast(**kw: Any) -> Any:  # no PyMC, no PyTensor: the model's density written by hand
        from bayescomp.posterior.hierarchical.fast import sample_fast

        return sample_fast(prep, parameterization, **kw)

    get = partial(get_model, prep.q, parameterization)
    return sample_model(fast, get, prep.standardised, backend, **run)


def sample_model(
    fast: Any,
    get: Any,
    data: Any,
    backend: str,
    *,
    seed: int,
    chains: int,
    draws: int,
    tune: int,
    target_accept: float,
    progressbar: bool,
) -> Any:
    """Draws of a model by ``backend``: ``"fast"`` calls ``fast(**run)`` (the hand-written
    density on nutpie); otherwise the cached PyMC model (``get(backend) -> (model,
    compiled)``) with ``data()`` swapped in, by nutpie on the compiled model or PyMC's NUTS
    (``"pymc"``/``"numpyro"``).  The hierarchical model and the Plackett–Luce ranking both
    sample here."""
    cores = max(1, min(chains, os.cpu_count() or 1))
    run = {"draws": draws, "tune": tune, "chains": chains, "cores": cores, "seed": seed}
    run |= {"target_accept": target_accept, "progressbar": progressbar}
    if backend == "fast":
        return fast(**run)
    data = data()
    with warnings.catch_warnings():
        # the models are small: PyTensor's "could not link to a BLAS" is noise here
        warnings.filterwarnings(
            "ignore", message=".*could not link to a BLAS", category=UserWarning
        )
        model, compiled = get(backend)
        if backend == "nutpie":
            from bayescomp.posterior.nutpie_fast import sample

            return sample(compiled.with_data(**data), **run)
        import pymc as pm

        kwargs: dict[str, Any] = {"nuts_sampler": "numpyro"} if backend == "numpyro" else {}
        with model:
            pm.set_data(data)
            return pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=cores,
                random_seed=seed,
                target_accept=target_accept,
                progressbar=progressbar,
                compute_convergence_checks=False,
                **kwargs,
            )


def _check_options(
    chains: int,
    draws: int,
    tune: int,
    target_accept: float,
    parameterization: str,
    std_upper: float,
) -> None:

    for name, val in (("chains", chains), ("draws", draws), ("tune", tune)):
        check_number(val, name, integer=True, min_val=1)
    check_number(target_accept, "target_accept", min_val=0, max_val=1, include_boundaries="neither")
    if parameterization not in ("auto", *PARAMETERIZATIONS):
        raise ValueError(
            f"parameterization must be 'auto', 'centered' or 'noncentered'; got "
            f"{parameterization!r}"
        )
    check_number(
        std_upper, "std_upper", min_val=1, include_boundaries="neither", advice="baycomp uses 1000"
    )


def retry_schedule(
    first: str, target_accept: float, tune: int, retry: bool = True
) -> list[tuple[str, float, int]]:
    """The ``(parameterization, target_accept, tune)`` of each attempt, in order.

    The first attempt uses the requested settings.  When it fails the convergence
    checks (and ``retry``), the same parameterisation is run again with
    ``target_accept = max(target_accept, 0.99)`` and twice the tuning (what removes the
    rare divergent transitions of the default fit), then the other parameterisation
    with the requested settings and with the escalated ones.  Repeated settings are
    dropped.

    Examples
    --------
    >>> for attempt in retry_schedule("centered", 0.9, 1000):
    ...     print(attempt)
    ('centered', 0.9, 1000)
    ('centered', 0.99, 2000)
    ('noncentered', 0.9, 1000)
    ('noncentered', 0.99, 2000)
    >>> retry_schedule("noncentered", 0.995, 500, retry=False)
    [('noncentered', 0.995, 500)]
    """
    plan = [(first, float(target_accept), int(tune))]
    if not retry:
        return plan
    other = "noncentered" if first == "centered" else "centered"
    high = max(float(target_accept), RETRY_TARGET_ACCEPT)
    for step in (
        (first, high, 2 * int(tune)),
        (other, float(target_accept), int(tune)),
        (other, high, 2 * int(tune)),
    ):
        if step not in plan:
            plan.append(step)
    return plan


def _score(res: HierarchicalResult) -> tuple[int, float]:
    """Order fits: fewer divergences first, then the larger worst-case bulk ESS."""
    return (-res.divergences, float(res.convergence_diagnostics["ess_bulk"].min()))


def _attempt_record(
    res: HierarchicalResult,
    param: str,
    target_accept: float,
    tune: int,
    draws: int,
    seconds: float,
) -> dict[str, Any]:
    return {
        "parameterization": param,
        "target_accept": target_accept,
        "tune": tune,
        "draws": draws,
        "divergences": res.divergences,
        "min_ess_bulk": float(res.convergence_diagnostics["ess_bulk"].min()),
        "max_r_hat": float(res.convergence_diagnostics["r_hat"].max()),
        "converged": res.converged,
        "seconds": round(seconds, 3),
    }


def _warn_retry(done: dict, step: tuple[str, float, int], draws: int, k: int, n: int) -> None:
    """Say that attempt ``k`` failed the convergence checks, why, and what comes next."""
    nxt = dict(zip(("parameterization", "target_accept", "tune"), step, strict=True))
    warnings.warn(
        f"hierarchical fit, attempt {k} of up to {n}: {retry_note(done, nxt | {'draws': draws})}",
        exceptions.ConvergenceWarning,
        stacklevel=4,
    )


def _fit(
    prep: Prepared,
    first: str,
    draw: Any,
    settings: dict[str, Any],
    refit: bool,
    *,
    target_accept: float = 0.9,
    tune: int = 1000,
    draws: int = 2000,
) -> HierarchicalResult:
    """Fit along :func:`retry_schedule` until one attempt converges (or none is left).

    ``draw(parameterization, target_accept, tune, draws)`` returns the raw draws; after
    an attempt whose worst bulk ESS is below the threshold, the next one keeps twice
    ``draws``.  The
    first converged attempt is returned, else the best one (fewest divergences, then
    the largest worst-case bulk ESS), relabelled (:func:`~.io.relabel`: the same draws)
    with the whole log of attempts, so ``refitted`` and ``attempts`` describe
    everything that was tried.  Each retry is said (a ``ConvergenceWarning``: the failed
    attempt's R-hat, divergences and bulk ESS, and the next settings).
    """
    fits, log = [], []
    n_draws = draws
    ess_min = settings.get("ess_min", ESS_BULK_MIN)
    plan = retry_schedule(first, target_accept, tune, refit)
    for param, acc, n_tune in plan:
        if log:  # the previous attempt did not converge
            _warn_retry(log[-1], (param, acc, n_tune), n_draws, len(log), len(plan))
        t0 = time.perf_counter()
        raw = draw(param, acc, n_tune, n_draws)
        res = from_draws(raw, prep, **settings, parameterization=param, refitted=False)
        log.append(_attempt_record(res, param, acc, n_tune, n_draws, time.perf_counter() - t0))
        if log[-1]["min_ess_bulk"] < ess_min:  # too few effective draws: twice as many
            n_draws = 2 * draws
        fits.append(res)
        if res.converged:
            break
    best = next((k for k, f in enumerate(fits) if f.converged), None)
    if best is None:
        best = max(range(len(fits)), key=lambda k: _score(fits[k]))
    return relabel(fits[best], refitted=len(fits) > 1, attempts=tuple(log))


# ------------------------------------------------------------------ front end
def hierarchical_test(
    differences: Mapping[str, ArrayLike],
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
    sampler : {"auto", "fast", "nutpie", "pymc", "numpyro"}
        ``"fast"``: nutpie on the model's log density written by hand (numba, compiled
        once into the user's cache directory; no PyMC import).  ``"nutpie"``: nutpie on
        the PyMC model (compiled through PyTensor in every new process).  ``"pymc"``,
        ``"numpyro"``: those NUTS samplers on the PyMC model.  ``"auto"`` picks
        ``"fast"`` when nutpie 0.16.x and numba are installed, else ``"nutpie"``, else
        ``"pymc"``.
    parameterization : {"auto", "centered", "noncentered"}
        ``"auto"`` picks from the data (see Notes).
    target_accept : float
        NUTS target acceptance rate.
    baseline_name, candidate_name, metric : str
        Used in reports and plots.
    progressbar : bool
        Show the sampler's progress bar.
    refit : bool, default True
        When a fit fails the convergence checks, retry along
        :func:`retry_schedule` (``target_accept`` 0.99 with twice the tuning, then
        the other parameterisation) and keep the first fit that passes, else the
        best one; after an attempt short of bulk ESS the next keeps twice ``draws``.
        ``res.attempts`` lists every attempt (settings, divergences, worst R-hat
        and bulk ESS, seconds).  ``False``: one attempt only.
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

    *ESS requirement.*  A fit converges when its worst bulk ESS reaches
    ``res.ess_min``: 400, or a tenth of ``chains * draws`` for smaller requests but never
    below 100 (:func:`~bayescomp.posterior.hierarchical.diagnostics.ess_required`), so
    ``draws=500, chains=2`` can pass its own checks.

    *Compiled-model cache.*  The fast sampler's code is compiled once and cached on
    disk in the user's cache directory (:mod:`bayescomp.posterior.jit_cache`); it
    serves every number of datasets.  On the PyMC model, the compiled model is cached
    in-process by ``(number of datasets, parameterisation, sampler)`` and the data are
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
    backend = resolve_sampler(sampler)
    prep = prepare_datasets(differences, rho, float(std_upper))
    first = choose_parameterization(prep) if parameterization == "auto" else parameterization
    sample = partial(
        _sample,
        prep,
        backend=backend,
        seed=seed_from(random_state),
        chains=int(chains),
        progressbar=progressbar,
    )

    def draw(param: str, accept: float, n_tune: int, n_draws: int) -> Any:
        return sample(param, target_accept=accept, tune=n_tune, draws=n_draws)

    settings = dict(
        rope=rope_f,
        baseline_name=str(baseline_name),
        candidate_name=str(candidate_name),
        metric=metric,
        sampler=backend,
        random_state=int(random_state) if isinstance(random_state, (int, np.integer)) else None,
        ess_min=ess_required(int(chains), int(draws)),
    )
    res = _fit(
        prep,
        first,
        draw,
        settings,
        refit,
        target_accept=float(target_accept),
        tune=int(tune),
        draws=int(draws),
    )
    if not res.converged:
        tried = f" after {len(res.attempts)} attempts (see res.attempts)" if res.refitted else ""
        warnings.warn(
            f"hierarchical model did not converge{tried} ({res.convergence_problems}); decisions "
            "will be 'inconclusive' — increase draws/tune or target_accept",
            exceptions.ConvergenceWarning,  # scikit-learn imported only to warn
            stacklevel=2,
        )
    return res
