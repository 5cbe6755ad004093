"""Paired differences of two models and their Nadeau–Bengio corrected scale.

Shared by the Bayesian correlated t-test (:mod:`bayescomp.posterior.ttest`) and its
frequentist twin (:mod:`bayescomp.posterior.frequentist`).  The differences
``d_j = candidate_j - baseline_j`` of ``n`` resampling splits are correlated because
the training sets overlap; Nadeau and Bengio (2003) inflate the variance of their mean
from ``s^2 / n`` to ``s^2 (1/n + rho / (1 - rho))``, ``rho`` the test fraction.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from bayescomp.core.checks import as_float_array


def paired_differences(baseline: Any, candidate: Any, axis: int = -1) -> np.ndarray:
    """Validate two score arrays and return ``candidate - baseline`` with the splits last.

    Raises ``ValueError`` for non-numeric, NaN/inf, mismatched or too short inputs.
    """
    b = as_float_array(baseline, "baseline")
    c = as_float_array(candidate, "candidate")
    if c.ndim == 0:
        raise ValueError("candidate must hold one score per split, got a single number")
    if b.ndim == 0:
        b = np.full(np.moveaxis(c, axis, -1).shape, float(b))
    else:
        if b.shape != c.shape:
            raise ValueError(
                f"baseline and candidate must have the same shape (one score per split for each "
                f"model, on the same splits); got {b.shape} and {c.shape}"
            )
        b = np.moveaxis(b, axis, -1)
    c = np.moveaxis(c, axis, -1)
    with np.errstate(over="ignore", invalid="ignore"):
        d = c - b
    # one pass over the data: d is finite exactly when both scores are finite and the
    # subtraction did not overflow; the slow path below only runs to word the error
    if not np.isfinite(d.sum()) and not np.all(np.isfinite(d)):
        for arr, name in ((b, "baseline"), (c, "candidate")):
            finite = np.isfinite(arr)
            if not finite.all():
                idx = np.argwhere(~finite)[0].tolist()
                raise ValueError(
                    f"{name} scores contain NaN or inf (first at index {tuple(idx)}); a failed "
                    "fit must be fixed or its split dropped for both models before comparing"
                )
        raise ValueError(
            "candidate - baseline overflows to inf: the scores are too large for floating "
            "point (|score| near 1e308); rescale the metric (e.g. divide by a constant) first"
        )
    n = c.shape[-1]
    if n < 2:
        raise ValueError(
            f"need at least 2 paired splits to estimate the variance of the difference, got {n}; "
            "use repeated cross-validation (e.g. RepeatedStratifiedKFold(n_splits=10, n_repeats=10))"
        )
    return d


def _power_of_two_scale(d: np.ndarray) -> np.ndarray:
    """A power of two per comparison (last axis reduced, kept) near ``max |d|``.

    Dividing by a power of two is exact, so statistics computed on ``d / factor`` and
    multiplied back are those of ``d`` without the underflow (``var`` of differences
    near 1e-200 is 0 in floating point) or overflow (near 1e200 it is inf) of the raw
    squares: the answer is invariant to rescaling the scores and the ROPE together.
    """
    top = np.max(np.abs(d), axis=-1, keepdims=True)
    _, exponent = np.frexp(np.where(top > 0, top, 1.0))
    return np.ldexp(1.0, exponent)


def corrected_scale(d: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sample standard deviation and corrected scale of ``d`` along the last axis.

    Computed on ``d`` standardised by a power of two (see :func:`_power_of_two_scale`), so
    differences on any scale from 1e-300 to 1e300 give the same probabilities as the same
    differences near 1.  Raises ``ValueError`` only when ``rho`` is so close to 1 that the
    correction itself overflows.
    """
    n = d.shape[-1]
    factor = _power_of_two_scale(d)
    z = d / factor
    factor = factor[..., 0]
    with np.errstate(over="ignore", invalid="ignore"):
        mean_z = z.mean(axis=-1)
        dev = z - mean_z[..., None]
        sd_z = np.sqrt(np.einsum("...i,...i->...", dev, dev) / (n - 1))  # no squared temporary
        scale = factor * sd_z * np.sqrt(1.0 / n + r / (1.0 - r))
    mean, sd = factor * mean_z, factor * sd_z
    # the 99.9% interval must be representable too (df = 1 has very heavy tails)
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.abs(mean) + stats.t.ppf(0.9995, max(n - 1, 1)) * scale
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(reach))):
        raise ValueError(
            "the posterior scale of the paired differences overflows (scores near the "
            "floating-point limit 1e308, or rho extremely close to 1); rescale the metric "
            "(e.g. divide by a constant) or check rho"
        )
    return mean, sd, scale


def rounding_floor(baseline: Any, candidate: Any, axis: int = -1) -> np.ndarray:
    """Spread of differences explained by rounding alone: 16 eps × the largest |score|.

    Relative to the scores, so it scales with them (a copy of the baseline plus a constant
    is a point mass at any scale).
    """
    b = np.abs(np.asarray(baseline, dtype=float))
    c = np.moveaxis(np.abs(np.asarray(candidate, dtype=float)), axis, -1)
    top_b = b if b.ndim == 0 else np.moveaxis(b, axis, -1).max(axis=-1)
    return 16 * np.finfo(float).eps * np.maximum(top_b, c.max(axis=-1))


def as_output(x: Any) -> Any:
    arr = np.asarray(x)
    return float(arr) if arr.ndim == 0 else arr
