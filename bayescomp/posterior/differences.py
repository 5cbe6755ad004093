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


def corrected_scale(d: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sample variance and corrected scale of ``d`` along the last axis.

    Raises ``ValueError`` when the variance overflows (scores on a scale near the
    floating-point limit), instead of returning NaN/inf probabilities.
    """
    n = d.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):
        mean = d.mean(axis=-1)
        dev = d - mean[..., None]
        var = np.einsum("...i,...i->...", dev, dev) / (n - 1)  # no squared temporary
        scale = np.sqrt(var * (1.0 / n + r / (1.0 - r)))
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(scale))):
        raise ValueError(
            "the variance of the paired differences overflows (scores around 1e150 or larger, "
            "or rho extremely close to 1); rescale the metric (e.g. divide by a constant) first"
        )
    return mean, var, scale




def as_output(x: Any) -> Any:
    arr = np.asarray(x)
    return float(arr) if arr.ndim == 0 else arr
