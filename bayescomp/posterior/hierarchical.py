"""Bayesian hierarchical comparison of two models across many datasets.

The model is the one of Corani, Benavoli, Demšar, Mangili and Zaffalon (2017),
"Statistical comparison of classifiers through Bayesian hierarchical
modelling", with the priors of their reference implementation (baycomp).  For
dataset ``i`` with ``n_i`` paired differences ``d_i`` (candidate minus
baseline, from resampling splits whose test fraction is ``rho_i``)::

    d_i     ~ MVN(delta_i * 1, sigma_i^2 [(1 - rho_i) I + rho_i 1 1^T])
    delta_i ~ Student-t(nu, delta0, std0)
    sigma_i ~ Uniform(0, 1000 * mean within-dataset sd)
    delta0  ~ Uniform(-max|d|, max|d|)
    std0    ~ Uniform(0, 1000 * sd of the dataset means)
    nu - 1  ~ Gamma(alpha, rate=beta),  alpha ~ U(1, 2),  beta ~ U(0.01, 0.1)

The differences are divided by the mean within-dataset standard deviation
before sampling (as baycomp does) and every reported quantity is rescaled to
the metric's own units.

The likelihood of dataset ``i`` is evaluated in closed form from its
sufficient statistics ``(n_i, mean_i, SS_i = sum (d_ij - mean_i)^2, rho_i)``:
the equicorrelated covariance ``a I + b 1 1^T`` (``a = sigma^2 (1 - rho)``,
``b = sigma^2 rho``) has, by Sherman–Morrison, the inverse
``(I - b/(a + n b) 1 1^T) / a`` and the determinant ``a^(n-1) (a + n b)``, so ::

    log L_i = -n/2 log(2 pi) - (n-1)/2 log(a) - 1/2 log(a + n b)
              - SS_i / (2 a) - n (mean_i - delta_i)^2 / (2 (a + n b))

which costs O(1) per dataset and allows a different ``n_i`` and ``rho_i``
for every dataset.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_rope, seed_from
from bayescomp.core.exceptions import ConvergenceWarning, ZeroVarianceWarning
from bayescomp.core.regions import RegionProbabilities, argmax_shares, t_region_masses
from bayescomp.core.rule import Decision, decide

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "ConvergenceWarning",
    "HierarchicalResult",
    "RegionProbabilities",
    "hierarchical_loglik",
    "hierarchical_test",
    "load",
    "model_cache_info",
]

#: convergence thresholds used by :attr:`HierarchicalResult.converged`
R_HAT_MAX = 1.01
ESS_BULK_MIN = 400

#: parameters whose diagnostics decide convergence (all sampled quantities)
_DIAG_VARS = ("delta0", "std0", "nu", "gamma_alpha", "gamma_beta", "delta", "sigma")

_PARAMETERIZATIONS = ("centered", "noncentered")
_SAMPLERS = ("auto", "nutpie", "pymc", "numpyro")


# The model is scalar per dataset: PyTensor's "could not link to a BLAS" warning is noise here.
warnings.filterwarnings("ignore", message=".*could not link to a BLAS", category=UserWarning)



# ----------------------------------------------------------------- likelihood
def hierarchical_loglik(
    n: Any, mean: Any, ss: Any, rho: Any, delta: Any, sigma: Any, xp: Any = np
) -> Any:
    """Log-likelihood of each dataset's differences from its sufficient statistics.

    Exact (Sherman–Morrison) multivariate-normal log density of ``n`` paired
    differences with mean ``delta`` and equicorrelated covariance
    ``sigma^2 [(1 - rho) I + rho 1 1^T]``, written with ``n``, the sample
    ``mean`` and the within-dataset sum of squares ``ss = sum (d - mean)^2``.

    Parameters
    ----------
    n, mean, ss, rho : array_like
        Per-dataset sufficient statistics and correlations (broadcast together).
    delta, sigma : array_like
        Per-dataset mean difference and standard deviation.
    xp : module, default numpy
        Array namespace providing ``log`` (``numpy`` or ``pytensor.tensor``).

    Returns
    -------
    array
        One log-likelihood per dataset.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> d = np.array([0.1, 0.3, -0.2, 0.4])
    >>> rho, delta, sigma = 0.2, 0.05, 0.3
    >>> cov = sigma**2 * ((1 - rho) * np.eye(4) + rho)
    >>> ll = hierarchical_loglik(4, d.mean(), ((d - d.mean())**2).sum(), rho, delta, sigma)
    >>> bool(np.isclose(ll, stats.multivariate_normal(np.full(4, delta), cov).logpdf(d)))
    True
    """
    var_a = sigma**2 * (1.0 - rho)
    var_b = sigma**2 * (1.0 + (n - 1.0) * rho)
    return (
        -0.5 * n * math.log(2.0 * math.pi)
        - 0.5 * ((n - 1.0) * xp.log(var_a) + xp.log(var_b))
        - 0.5 * (ss / var_a + n * (mean - delta) ** 2 / var_b)
    )


# ------------------------------------------------------------------ data prep
@dataclass(frozen=True)
class _Prepared:
    names: tuple[str, ...]
    n: np.ndarray
    mean: np.ndarray          # metric units
    ss: np.ndarray            # metric units^2, after the zero-variance floor
    rho: np.ndarray
    zero_variance: np.ndarray  # bool
    scale: float              # standardisation divisor
    delta_hi: float           # standardised prior bounds
    std0_hi: float
    sigma_hi: float

    @property
    def q(self) -> int:
        return len(self.names)

    def standardised(self) -> dict[str, np.ndarray]:
        s = self.scale
        return {
            "n": self.n.astype(float),
            "mean": self.mean / s,
            "ss": self.ss / s**2,
            "rho": self.rho.astype(float),
            "delta_hi": np.asarray(self.delta_hi),
            "std0_hi": np.asarray(self.std0_hi),
            "sigma_hi": np.asarray(self.sigma_hi),
        }


def _prepare(
    differences: Mapping[str, Any], rho: Any, std_upper: float
) -> _Prepared:
    if not isinstance(differences, Mapping):
        raise ValueError(
            "differences must be a mapping {dataset name: 1-D array of paired differences "
            f"candidate - baseline}}; got {type(differences).__name__}"
        )
    if len(differences) < 2:
        raise ValueError(
            f"the hierarchical model needs at least 2 datasets, got {len(differences)}; for a "
            "single dataset use bayescomp.correlated_ttest"
        )
    names = tuple(str(k) for k in differences)
    if len(set(names)) != len(names):
        raise ValueError("dataset names must be unique")
    arrays = []
    for name, values in differences.items():
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"differences of dataset {name!r} are not numeric: {exc}") from None
        if arr.ndim != 1:
            raise ValueError(
                f"differences of dataset {name!r} must be 1-D (one value per split), got shape "
                f"{arr.shape}"
            )
        if arr.size < 2:
            raise ValueError(
                f"dataset {name!r} has {arr.size} paired split(s); at least 2 are needed to "
                "estimate its variance (use repeated cross-validation)"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(
                f"differences of dataset {name!r} contain NaN or inf; fix or drop the failed "
                "split for both models"
            )
        arrays.append(arr)
    # rho
    if isinstance(rho, Mapping):
        missing = [k for k in names if k not in rho and str(k) not in rho]
        if missing:
            raise ValueError(
                f"rho is missing for dataset(s) {missing[:5]}; give one rho per dataset or a "
                "single number"
            )
        r = np.array([float(rho[k]) for k in differences], dtype=float)
    else:
        r = np.broadcast_to(np.asarray(rho, dtype=float), (len(names),)).astype(float)
    bad = ~(np.isfinite(r) & (r >= 0) & (r < 1))
    if bad.any():
        raise ValueError(
            "rho must lie in [0, 1) (the test fraction n_test / (n_train + n_test) of each "
            f"dataset's design, e.g. 0.1 for 10-fold CV); got {r[bad][:5].tolist()}"
        )
    n = np.array([a.size for a in arrays], dtype=float)
    mean = np.array([a.mean() for a in arrays])
    ss = np.array([((a - a.mean()) ** 2).sum() for a in arrays])
    sd = np.sqrt(ss / n)  # population sd, as the reference implementation
    tol = (np.finfo(float).eps * 64) * np.maximum(np.abs(mean), 1.0)
    zero = sd <= tol
    if zero.all():
        raise ValueError(
            "the paired differences have zero variance on every dataset (the two models give "
            "identical differences on every split); the hierarchical model cannot estimate any "
            "uncertainty — use bayescomp.sign_test on the per-dataset means instead"
        )
    scale = float(sd.mean())
    if zero.any():
        floor = float(sd[~zero].min())
        ss = np.where(zero, n * floor**2, ss)
        sd = np.where(zero, floor, sd)
        warnings.warn(
            f"{int(zero.sum())} dataset(s) have paired differences with zero variance "
            f"({', '.join(np.asarray(names)[zero][:5])}); their within-dataset standard "
            f"deviation is set deterministically to the smallest one observed on the other "
            f"datasets ({floor:.4g}), keeping their mean difference",
            ZeroVarianceWarning,
            stacklevel=3,
        )
    max_abs = max(float(np.max(np.abs(a))) for a in arrays)
    std_within = float(sd.mean()) / scale
    std_among = float(np.std(mean / scale))
    if not std_among > 0:
        std_among = std_within
    return _Prepared(
        names=names,
        n=n,
        mean=mean,
        ss=ss,
        rho=r,
        zero_variance=zero,
        scale=scale,
        delta_hi=max(max_abs / scale, 1e-12),
        std0_hi=std_upper * std_among,
        sigma_hi=std_upper * std_within,
    )


def _choose_parameterization(prep: _Prepared) -> str:
    """Centred when the datasets disagree more than their own noise, else non-centred.

    Compares the spread of the dataset means with the typical squared standard
    error of a dataset mean under the correlated design; when the between-dataset
    variance dominates, the data pin each ``delta_i`` and the centred form mixes
    well; when the datasets agree within their noise, the funnel of the centred
    form appears and the non-centred form is used.
    """
    s2 = prep.ss / np.maximum(prep.n - 1.0, 1.0)
    se2 = s2 * (1.0 / prep.n + prep.rho / (1.0 - prep.rho))
    between = float(np.var(prep.mean))
    return "centered" if between > float(np.mean(se2)) else "noncentered"


# ---------------------------------------------------------------- model cache
_CACHE: dict[tuple, Any] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_STATS = {"hits": 0, "misses": 0}


def model_cache_info() -> dict[str, int]:
    """Hits, misses and size of the in-process cache of compiled hierarchical models.

    Examples
    --------
    >>> info = model_cache_info()
    >>> sorted(info)
    ['hits', 'misses', 'size']
    """
    return {**_CACHE_STATS, "size": len(_CACHE)}


def clear_model_cache() -> None:
    """Forget every cached model (the next comparison compiles again)."""
    with _CACHE_LOCK:
        _CACHE.clear()
        _CACHE_STATS.update(hits=0, misses=0)


def _build_model(q: int, parameterization: str) -> Any:
    import pymc as pm
    import pytensor.tensor as pt

    with pm.Model(coords={"dataset": np.arange(q)}) as model:
        n = pm.Data("n", np.full(q, 2.0), dims="dataset")
        mean = pm.Data("mean", np.zeros(q), dims="dataset")
        ss = pm.Data("ss", np.ones(q), dims="dataset")
        rho = pm.Data("rho", np.full(q, 0.1), dims="dataset")
        delta_hi = pm.Data("delta_hi", 1.0)
        std0_hi = pm.Data("std0_hi", 1.0)
        sigma_hi = pm.Data("sigma_hi", 1.0)
        delta0 = pm.Uniform("delta0", -delta_hi, delta_hi)
        std0 = pm.Uniform("std0", 0.0, std0_hi)
        alpha = pm.Uniform("gamma_alpha", 1.0, 2.0)
        beta = pm.Uniform("gamma_beta", 0.01, 0.1)
        nu_m1 = pm.Gamma("nu_minus_one", alpha=alpha, beta=beta)
        nu = pm.Deterministic("nu", nu_m1 + 1.0)
        if parameterization == "centered":
            delta = pm.StudentT("delta", nu=nu, mu=delta0, sigma=std0, dims="dataset")
        else:
            z = pm.StudentT("delta_z", nu=nu, mu=0.0, sigma=1.0, dims="dataset")
            delta = pm.Deterministic("delta", delta0 + std0 * z, dims="dataset")
        sigma = pm.Uniform("sigma", 0.0, sigma_hi, dims="dataset")
        pm.Potential("loglik", hierarchical_loglik(n, mean, ss, rho, delta, sigma, xp=pt).sum())
    return model


def _get_model(q: int, parameterization: str, backend: str) -> Any:
    """Return the cached (model, compiled) pair for this shape, building it on a miss."""
    key = (q, parameterization, backend)
    with _CACHE_LOCK:
        entry = _CACHE.get(key)
        if entry is not None:
            _CACHE_STATS["hits"] += 1
            return entry
        _CACHE_STATS["misses"] += 1
        model = _build_model(q, parameterization)
        compiled = None
        if backend == "nutpie":
            import nutpie

            compiled = nutpie.compile_pymc_model(model, freeze_model=False)
        entry = (model, compiled)
        _CACHE[key] = entry
        return entry


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
    import os

    data = prep.standardised()
    model, compiled = _get_model(prep.q, parameterization, backend)
    cores = max(1, min(chains, os.cpu_count() or 1))
    if backend == "nutpie":
        import nutpie

        fitted = compiled.with_data(**data)
        return nutpie.sample(
            fitted, draws=draws, tune=tune, chains=chains, cores=cores, seed=seed,
            progress_bar=progressbar, target_accept=target_accept,
        )
    import pymc as pm

    with model:
        pm.set_data(data)
        kwargs: dict[str, Any] = {}
        if backend == "numpyro":
            kwargs["nuts_sampler"] = "numpyro"
        return pm.sample(
            draws=draws, tune=tune, chains=chains, cores=cores, random_seed=seed,
            target_accept=target_accept, progressbar=progressbar,
            compute_convergence_checks=False, **kwargs,
        )


def _to_result_idata(raw: az.InferenceData, prep: _Prepared, attrs: dict[str, Any]) -> Any:
    """Posterior on the metric's scale, named dataset coords, data and settings attached."""
    import arviz as az
    import xarray as xr

    post = raw.posterior
    s = prep.scale
    names = list(prep.names)

    def per(var: str, mult: float) -> xr.DataArray:
        arr = post[var].values * mult
        return xr.DataArray(arr, dims=("chain", "draw", "dataset"))

    scalar = {
        "delta0": post["delta0"].values * s,
        "std0": post["std0"].values * s,
        "nu": post["nu"].values,
        "gamma_alpha": post["gamma_alpha"].values,
        "gamma_beta": post["gamma_beta"].values,
    }
    ds = xr.Dataset(
        {
            **{k: xr.DataArray(v, dims=("chain", "draw")) for k, v in scalar.items()},
            "delta": per("delta", s),
            "sigma": per("sigma", s),
        },
        coords={
            "chain": np.arange(post.sizes["chain"]),
            "draw": np.arange(post.sizes["draw"]),
            "dataset": names,
        },
    )
    div = raw.sample_stats["diverging"].values.astype(bool)
    stats = xr.Dataset(
        {"diverging": xr.DataArray(div, dims=("chain", "draw"))},
        coords={"chain": ds.coords["chain"], "draw": ds.coords["draw"]},
    )
    const = xr.Dataset(
        {
            "n": ("dataset", prep.n.astype(int)),
            "observed_mean": ("dataset", prep.mean),
            "ss": ("dataset", prep.ss),
            "rho": ("dataset", prep.rho),
            "zero_variance": ("dataset", prep.zero_variance.astype(int)),
        },
        coords={"dataset": names},
    )
    idata = az.InferenceData(posterior=ds, sample_stats=stats, constant_data=const)
    for group in (idata.posterior, idata.sample_stats, idata.constant_data):
        group.attrs.update(attrs)
    return idata


def _diagnostics(idata: Any) -> pd.DataFrame:
    import arviz as az
    import pandas as pd

    rhat = az.rhat(idata, var_names=list(_DIAG_VARS))
    bulk = az.ess(idata, var_names=list(_DIAG_VARS), method="bulk")
    tail = az.ess(idata, var_names=list(_DIAG_VARS), method="tail")
    rows = []
    names = list(idata.posterior.coords["dataset"].values)
    for var in _DIAG_VARS:
        r, b, t = (np.atleast_1d(x[var].values) for x in (rhat, bulk, tail))
        labels = [var] if r.size == 1 and var not in ("delta", "sigma") else [
            f"{var}[{nm}]" for nm in names
        ]
        for lab, rv, bv, tv in zip(labels, r, b, t, strict=True):
            rows.append((lab, float(rv), float(bv), float(tv)))
    return pd.DataFrame(rows, columns=["parameter", "r_hat", "ess_bulk", "ess_tail"]).set_index(
        "parameter"
    )


def _check(diag: pd.DataFrame, divergences: int) -> tuple[bool, str]:
    problems = []
    worst_r = float(diag["r_hat"].max())
    if not worst_r <= R_HAT_MAX:
        par = diag["r_hat"].idxmax()
        problems.append(f"R-hat {worst_r:.3f} > {R_HAT_MAX} (worst: {par})")
    worst_ess = float(diag["ess_bulk"].min())
    if not worst_ess >= ESS_BULK_MIN:
        par = diag["ess_bulk"].idxmin()
        problems.append(f"bulk ESS {worst_ess:.0f} < {ESS_BULK_MIN} (worst: {par})")
    if divergences > 0:
        problems.append(f"{divergences} divergent transition(s)")
    return (not problems), "; ".join(problems)


# --------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class HierarchicalResult:
    """Posterior of the hierarchical model, on the metric's own scale.

    ``p_left``, ``p_rope``, ``p_right`` (and :meth:`decision`) refer to the
    mean difference across datasets ``delta0``; :attr:`next_dataset` gives the
    posterior predictive probabilities for a new dataset and
    :attr:`baycomp_convention` the share of draws in which each region is the
    most probable (the number published with baycomp).

    Attributes
    ----------
    idata : arviz.InferenceData
        Posterior draws (``delta0``, ``std0``, ``nu``, ``delta``, ``sigma``,
        ``gamma_alpha``, ``gamma_beta``) with coords named by dataset, the
        divergences in ``sample_stats`` and the per-dataset data in
        ``constant_data``.
    rope : float
        Half-width of the region of practical equivalence (metric units).
    parameterization : {"centered", "noncentered"}
        Parameterisation of the reported fit.
    sampler : str
        Backend that produced the draws (``"nutpie"``, ``"pymc"`` or ``"numpyro"``).
    refitted : bool
        Whether the first fit failed the checks and the other parameterisation was tried.
    """

    idata: Any = field(repr=False)
    rope: float
    baseline_name: str = "baseline"
    candidate_name: str = "candidate"
    metric: str | None = None
    parameterization: str = "centered"
    sampler: str = "pymc"
    refitted: bool = False
    random_state: int | None = None
    #: orientation of the metric (labels only: the differences are already oriented)
    higher_is_better: bool = True

    # ---------------------------------------------------------------- draws
    @cached_property
    def _delta0(self) -> np.ndarray:
        return self.idata.posterior["delta0"].values.ravel()

    @cached_property
    def _next_sample(self) -> np.ndarray:
        post = self.idata.posterior
        return t_region_masses(
            float(self.rope), post["nu"].values.ravel(), self._delta0, post["std0"].values.ravel()
        )

    @property
    def dataset_names(self) -> tuple[str, ...]:
        return tuple(str(x) for x in self.idata.posterior.coords["dataset"].values)

    @property
    def n_datasets(self) -> int:
        return len(self.dataset_names)

    @property
    def sample(self) -> np.ndarray:
        """Per-draw next-dataset region probabilities, shape ``(draws, 3)`` (left, rope, right).

        These are the points of :meth:`plot_simplex`, as in baycomp.
        """
        return self._next_sample

    # -------------------------------------------------------- probabilities
    @property
    def p_left(self) -> float:
        """``P(delta0 < -rope)``: the candidate is practically worse on average."""
        return float(np.mean(self._delta0 < -self.rope))

    @property
    def p_right(self) -> float:
        """``P(delta0 > rope)``: the candidate is practically better on average."""
        return float(np.mean(self._delta0 > self.rope))

    @property
    def p_rope(self) -> float:
        """``P(-rope <= delta0 <= rope)``."""
        return float(1.0 - self.p_left - self.p_right)

    @property
    def p_better(self) -> float:
        """``P(delta0 > 0)``."""
        return float(np.mean(self._delta0 > 0))

    @property
    def p_worse(self) -> float:
        """``P(delta0 < 0)``: the risk that the candidate is worse on average."""
        return float(np.mean(self._delta0 < 0))

    @property
    def expected_gain(self) -> float:
        """Posterior mean of ``delta0``."""
        return float(np.mean(self._delta0))

    @property
    def delta0(self) -> RegionProbabilities:
        """The region probabilities of ``delta0`` (same as ``p_left, p_rope, p_right``)."""
        return RegionProbabilities(self.p_left, self.p_rope, self.p_right, "delta0")

    @property
    def next_dataset(self) -> RegionProbabilities:
        """Posterior predictive for a new dataset: mean over draws of the Student-t mass."""
        m = self._next_sample.mean(axis=0)
        return RegionProbabilities.of(m, "next_dataset")

    @property
    def baycomp_convention(self) -> RegionProbabilities:
        """Share of draws in which each region holds the largest next-dataset mass.

        This is what baycomp's ``HierarchicalTest.probs`` returns and what most
        published comparisons report; it is *not* a probability of the region
        itself.
        """
        m = argmax_shares(self._next_sample)
        return RegionProbabilities.of(m, "baycomp_convention")

    def probabilities(self) -> dict[str, RegionProbabilities]:
        """All three kinds, keyed by kind."""
        return {
            "delta0": self.delta0,
            "next_dataset": self.next_dataset,
            "baycomp_convention": self.baycomp_convention,
        }

    def hdi(self, level: float = 0.95) -> tuple[float, float]:
        """Highest-density interval of ``delta0``."""
        import arviz as az

        lo, hi = az.hdi(self._delta0, hdi_prob=float(level))
        return float(lo), float(hi)

    # ---------------------------------------------------------- diagnostics
    @cached_property
    def diagnostics(self) -> pd.DataFrame:
        """R-hat, bulk and tail ESS for every sampled quantity (one row per parameter).

        The total number of divergent transitions is in :attr:`divergences` and
        in ``diagnostics.attrs["divergences"]``.
        """
        diag = _diagnostics(self.idata)
        diag.attrs["divergences"] = self.divergences
        return diag

    @property
    def divergences(self) -> int:
        return int(self.idata.sample_stats["diverging"].values.sum())

    @cached_property
    def _check(self) -> tuple[bool, str]:
        return _check(self.diagnostics, self.divergences)

    @property
    def converged(self) -> bool:
        """R-hat <= 1.01, bulk ESS >= 400 for every parameter and no divergences."""
        return self._check[0]

    @property
    def convergence_problems(self) -> str:
        """Which checks failed (empty when converged)."""
        return self._check[1]

    def diagnostics_summary(self) -> dict[str, Any]:
        """Worst-case diagnostics in one dict."""
        d = self.diagnostics
        return {
            "max_r_hat": float(d["r_hat"].max()),
            "min_ess_bulk": float(d["ess_bulk"].min()),
            "min_ess_tail": float(d["ess_tail"].min()),
            "divergences": self.divergences,
            "converged": self.converged,
            "problems": self.convergence_problems,
            "parameterization": self.parameterization,
            "sampler": self.sampler,
            "refitted": self.refitted,
        }

    # ----------------------------------------------------------- per dataset
    @cached_property
    def per_dataset(self) -> pd.DataFrame:
        """Shrunk per-dataset differences ``delta_i`` with HDI and region probabilities."""
        import arviz as az
        import pandas as pd

        post = self.idata.posterior["delta"]
        draws = post.values.reshape(-1, post.sizes["dataset"])
        hdi = az.hdi(post, hdi_prob=0.95)["delta"].values
        const = self.idata.constant_data
        r = self.rope
        return pd.DataFrame(
            {
                "dataset": list(self.dataset_names),
                "n": const["n"].values.astype(int),
                "rho": const["rho"].values,
                "observed_mean": const["observed_mean"].values,
                "zero_variance": const["zero_variance"].values.astype(bool),
                "mean": draws.mean(axis=0),
                "sd": draws.std(axis=0, ddof=1),
                "hdi_95_low": hdi[:, 0],
                "hdi_95_high": hdi[:, 1],
                "p_better": (draws > 0).mean(axis=0),
                "p_left": (draws < -r).mean(axis=0),
                "p_rope": ((draws >= -r) & (draws <= r)).mean(axis=0),
                "p_right": (draws > r).mean(axis=0),
            }
        )

    # --------------------------------------------------------------- decision
    def decision(self, gamma: float = 0.95, on: str = "delta0") -> Decision:
        """Apply the promotion rule; ``inconclusive`` whenever the chains did not converge.

        Parameters
        ----------
        gamma : float
            Required posterior probability.
        on : {"delta0", "next_dataset", "baycomp_convention"}
            Which probabilities the rule reads (default: the mean difference ``delta0``).
        """
        probs = self.probabilities()
        if on not in probs:
            raise ValueError(f"on must be one of {sorted(probs)}; got {on!r}")
        p = probs[on]
        reason = ""
        if not self.converged:
            reason = (
                f"the MCMC chains have not converged ({self.convergence_problems}); run longer "
                "(more draws/tune) or raise target_accept"
            )
        return decide(
            *p.as_tuple(), gamma=gamma, expected_gain=self.expected_gain, risk=self.p_worse,
            rope=float(self.rope), baseline=self.baseline_name, candidate=self.candidate_name,
            trusted=self.converged, untrusted_reason=reason,
        )

    # ---------------------------------------------------------------- summary
    def summary(self, gamma: float = 0.95) -> pd.DataFrame:
        """One row per kind of probability, with ``delta0``'s moments and the decision."""
        import pandas as pd

        lo, hi = self.hdi(0.95)
        sd = float(np.std(self._delta0, ddof=1))
        rows = []
        for kind, p in self.probabilities().items():
            rows.append(
                {
                    "baseline": self.baseline_name,
                    "candidate": self.candidate_name,
                    "metric": self.metric,
                    "quantity": kind,
                    "p_left": p.p_left,
                    "p_rope": p.p_rope,
                    "p_right": p.p_right,
                    "delta0_mean": self.expected_gain,
                    "delta0_sd": sd,
                    "hdi_95_low": lo,
                    "hdi_95_high": hi,
                    "rope": float(self.rope),
                    "n_datasets": self.n_datasets,
                    "converged": self.converged,
                    "decision": self.decision(gamma, on=kind).outcome,
                }
            )
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return (
            f"HierarchicalResult({_label(self)} over "
            f"{self.n_datasets} datasets: delta0={self.expected_gain:+.4g}, rope={self.rope:g}; "
            f"p_left={self.p_left:.3f}, p_rope={self.p_rope:.3f}, p_right={self.p_right:.3f}; "
            f"converged={self.converged})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HierarchicalResult):
            return NotImplemented
        same_meta = (
            self.rope == other.rope
            and self.baseline_name == other.baseline_name
            and self.candidate_name == other.candidate_name
            and self.metric == other.metric
            and self.parameterization == other.parameterization
            and self.sampler == other.sampler
            and self.refitted == other.refitted
            and self.dataset_names == other.dataset_names
        )
        if not same_meta:
            return False
        a, b = self.idata, other.idata
        return all(
            np.array_equal(a.posterior[v].values, b.posterior[v].values)
            for v in a.posterior.data_vars
        ) and all(
            np.array_equal(a.constant_data[v].values, b.constant_data[v].values)
            for v in a.constant_data.data_vars
        )

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ plots
    def plot_simplex(self, ax: Axes | None = None) -> Axes:
        """Next-dataset (left, rope, right) probabilities of every draw in a triangle."""
        from bayescomp.report.hierarchical_plots import plot_simplex

        return plot_simplex(
            self.sample, baseline=self.baseline_name, candidate=self.candidate_name,
            probabilities=self.baycomp_convention, ax=ax,
        )

    def plot_forest(self, ax: Axes | None = None) -> Axes:
        """Shrunk per-dataset ``delta_i`` (95% HDI) with the ROPE band and ``delta0``."""
        from bayescomp.report.hierarchical_plots import plot_forest

        return plot_forest(self, ax=ax)

    def plot_posterior(self, ax: Axes | None = None) -> Axes:
        """Posterior of ``delta0`` with the ROPE and the reference value 0."""
        from bayescomp.report.hierarchical_plots import plot_delta0_posterior

        return plot_delta0_posterior(self, ax=ax)

    def plot(self, ax: Axes | None = None) -> Axes:
        """Same as :meth:`plot_posterior` (the plot every result type offers)."""
        return self.plot_posterior(ax=ax)

    def plot_trace(self) -> np.ndarray:
        """Trace and rank plots of the hyper-parameters (array of Axes)."""
        from bayescomp.report.hierarchical_plots import plot_trace

        return plot_trace(self)

    # --------------------------------------------------------------------- io
    def to_netcdf(self, path: Any) -> str:
        """Write the posterior, the data and the settings to a netCDF file.

        Restore it with :func:`bayescomp.load`.
        """
        idata = self.idata.copy()
        idata.posterior.attrs["higher_is_better"] = int(self.higher_is_better)
        return idata.to_netcdf(str(path))


_ATTR_KEYS = (
    "rope", "baseline_name", "candidate_name", "metric", "parameterization", "sampler",
    "refitted", "random_state", "higher_is_better",
)


def _label(res: Any) -> str:
    from bayescomp.report.plots import difference_label

    return difference_label(res, sep=" - ")


def _attrs_of(res_kwargs: dict[str, Any]) -> dict[str, Any]:
    attrs: dict[str, Any] = {"bayescomp_result": "HierarchicalResult"}
    for k in _ATTR_KEYS:
        v = res_kwargs.get(k)
        if v is None:
            attrs[k] = ""  # netCDF attributes cannot be None
        elif isinstance(v, bool):
            attrs[k] = int(v)
        else:
            attrs[k] = v
    return attrs


def load(path: Any) -> HierarchicalResult:
    """Restore a :class:`HierarchicalResult` written by :meth:`HierarchicalResult.to_netcdf`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "missing.nc")
    >>> try:
    ...     load(path)
    ... except FileNotFoundError as e:
    ...     print("not found")
    not found
    """
    import os

    import arviz as az

    path = str(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path}")
    idata = az.from_netcdf(path)
    if "posterior" not in idata.groups():
        raise ValueError(f"{path} holds no posterior group; it was not written by to_netcdf")
    attrs = dict(idata.posterior.attrs)
    if attrs.get("bayescomp_result") != "HierarchicalResult":
        raise ValueError(
            f"{path} was not written by HierarchicalResult.to_netcdf (missing bayescomp attrs)"
        )
    idata.posterior.load()
    idata.sample_stats.load()
    idata.constant_data.load()

    def opt(key: str) -> Any:
        v = attrs.get(key, "")
        return None if v == "" else v

    rs = opt("random_state")
    return HierarchicalResult(
        idata=idata,
        rope=float(attrs["rope"]),
        baseline_name=str(attrs["baseline_name"]),
        candidate_name=str(attrs["candidate_name"]),
        metric=opt("metric"),
        parameterization=str(attrs["parameterization"]),
        sampler=str(attrs["sampler"]),
        refitted=bool(int(attrs["refitted"])),
        random_state=None if rs is None else int(rs),
        higher_is_better=bool(int(opt("higher_is_better") if opt("higher_is_better") is not None
                                  else 1)),
    )


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
    for name, val in (("chains", chains), ("draws", draws), ("tune", tune)):
        if int(val) != val or val < 1:
            raise ValueError(f"{name} must be a positive integer; got {val!r}")
    if not 0 < float(target_accept) < 1:
        raise ValueError(f"target_accept must lie in (0, 1), e.g. 0.9; got {target_accept}")
    if parameterization not in ("auto", *_PARAMETERIZATIONS):
        raise ValueError(
            f"parameterization must be 'auto', 'centered' or 'noncentered'; got "
            f"{parameterization!r}"
        )
    if not std_upper > 1:
        raise ValueError(f"std_upper must be > 1 (baycomp uses 1000); got {std_upper}")
    backend = _resolve_sampler(sampler)
    prep = _prepare(differences, rho, float(std_upper))
    first = _choose_parameterization(prep) if parameterization == "auto" else parameterization
    seed = seed_from(random_state)
    common = dict(
        rope=rope_f, baseline_name=str(baseline_name), candidate_name=str(candidate_name),
        metric=metric, sampler=backend,
        random_state=int(random_state) if isinstance(random_state, (int, np.integer)) else None,
    )

    def fit(param: str, refitted: bool) -> HierarchicalResult:
        raw = _sample(
            prep, param, backend, seed=seed, chains=int(chains), draws=int(draws),
            tune=int(tune), target_accept=float(target_accept), progressbar=progressbar,
        )
        kw = {**common, "parameterization": param, "refitted": refitted}
        return HierarchicalResult(idata=_to_result_idata(raw, prep, _attrs_of(kw)), **kw)

    res = fit(first, False)
    if not res.converged and refit:
        other = "noncentered" if first == "centered" else "centered"
        alt = fit(other, True)
        if alt.converged or _score(alt) > _score(res):
            res = alt
        else:
            res = HierarchicalResult(
                idata=_to_result_idata_relabel(res, refitted=True),
                **{**common, "parameterization": first, "refitted": True},
            )
    if not res.converged:
        warnings.warn(
            f"hierarchical model did not converge ({res.convergence_problems}); decisions will "
            "be 'inconclusive' — increase draws/tune or target_accept",
            ConvergenceWarning,
            stacklevel=2,
        )
    return res


def _score(res: HierarchicalResult) -> tuple[int, float]:
    """Order fits: fewer divergences first, then the larger worst-case bulk ESS."""
    return (-res.divergences, float(res.diagnostics["ess_bulk"].min()))


def _to_result_idata_relabel(res: HierarchicalResult, refitted: bool) -> Any:
    idata = res.idata
    for group in (idata.posterior, idata.sample_stats, idata.constant_data):
        group.attrs["refitted"] = int(refitted)
    return idata
