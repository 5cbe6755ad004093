"""Bayesian hierarchical comparison of two models across many datasets: the likelihood from
per-dataset sufficient statistics (closed form by Sherman–Morrison, O(1) per dataset), the
data preparation (standardisation, prior bounds), the parameterisation and the PyMC model
with its in-process cache of compiled models.  The model (Corani et al. 2017, baycomp's
priors) and its likelihood are written out in ``docs/hierarchical.md``.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_rho
from bayescomp.core.exceptions import ZeroVarianceWarning
from bayescomp.core.optional import require

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

__all__ = [
    "PARAMETERIZATIONS",
    "hierarchical_loglik",
    "model_cache_info",
]

PARAMETERIZATIONS = ("centered", "noncentered")


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
class Prepared:
    names: tuple[str, ...]
    n: np.ndarray
    mean: np.ndarray  # metric units
    ss: np.ndarray  # metric units^2, after the zero-variance floor
    rho: np.ndarray
    zero_variance: np.ndarray  # bool
    scale: float  # standardisation divisor
    delta_hi: float  # standardised prior bounds
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


def _as_arrays(differences: Mapping[str, ArrayLike]) -> tuple[tuple[str, ...], list[np.ndarray]]:
    """Dataset names and their 1-D finite differences, with an error naming any bad dataset."""
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
    return names, arrays


def _rho_per_dataset(rho: Any, differences: Mapping[str, ArrayLike], names: tuple[str, ...]) -> Any:
    """One correlation per dataset, from a single number or a mapping by dataset name."""
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
    return check_rho(r)


def _floor_zero_variance(
    names: tuple[str, ...], n: np.ndarray, ss: np.ndarray, sd: np.ndarray, zero: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Give zero-variance datasets the smallest sd seen elsewhere (deterministic, warned)."""
    floor = float(sd[~zero].min())
    warnings.warn(
        f"{int(zero.sum())} dataset(s) have paired differences with zero variance "
        f"({', '.join(np.asarray(names)[zero][:5])}); their within-dataset standard "
        f"deviation is set deterministically to the smallest one observed on the other "
        f"datasets ({floor:.4g}), keeping their mean difference",
        ZeroVarianceWarning,
        stacklevel=4,  # here -> prepare_datasets -> hierarchical_test -> the caller
    )
    return np.where(zero, n * floor**2, ss), np.where(zero, floor, sd)


def prepare_datasets(differences: Mapping[str, ArrayLike], rho: Any, std_upper: float) -> Prepared:
    """Sufficient statistics, standardisation scale and prior bounds of the data."""
    names, arrays = _as_arrays(differences)
    r = _rho_per_dataset(rho, differences, names)
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
        ss, sd = _floor_zero_variance(names, n, ss, sd, zero)
    max_abs = max(float(np.max(np.abs(a))) for a in arrays)
    std_within = float(sd.mean()) / scale
    std_among = float(np.std(mean / scale))
    if not std_among > 0:
        std_among = std_within
    return Prepared(
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


def choose_parameterization(prep: Prepared) -> str:
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
    """Hits, misses and size of the in-process cache of compiled PyMC models (of the
    hierarchical model and the Plackett–Luce ranking: :func:`cached_model`).

    Examples
    --------
    >>> info = model_cache_info()
    >>> sorted(info)
    ['hits', 'misses', 'size']
    """
    return {**_CACHE_STATS, "size": len(_CACHE)}


def _build_model(q: int, parameterization: str) -> Any:
    pm = require("pymc", "mcmc", "the hierarchical model")
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


def cached_model(key: tuple, build: Callable[[], Any], backend: str) -> tuple[Any, Any]:
    """The cached ``(model, compiled)`` pair of ``key`` and ``backend``, built on a miss:
    ``build()`` makes the PyMC model, which nutpie compiles for ``backend="nutpie"`` (tens of
    seconds).  The hierarchical model and the Plackett–Luce ranking both cache here
    (:func:`model_cache_info` counts them)."""
    key = (*key, backend)
    with _CACHE_LOCK:
        entry = _CACHE.get(key)
        if entry is not None:
            _CACHE_STATS["hits"] += 1
            return entry
        _CACHE_STATS["misses"] += 1
        model = build()
        compiled = None
        if backend == "nutpie":
            import nutpie

            compiled = nutpie.compile_pymc_model(model, freeze_model=False)
        entry = (model, compiled)
        _CACHE[key] = entry
        return entry


def get_model(q: int, parameterization: str, backend: str) -> tuple[Any, Any]:
    """Return the cached (model, compiled) pair for this shape, building it on a miss."""
    return cached_model(
        ("hierarchical", q, parameterization), partial(_build_model, q, parameterization), backend
    )
