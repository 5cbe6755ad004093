"""Paired differences of two models and their Nadeau–Bengio corrected scale.

Shared by the Bayesian correlated t-test (:mod:`bayescomp.posterior.ttest`) and its
frequentist twin (:mod:`bayescomp.posterior.frequentist`).  The differences
``d_j = candidate_j - baseline_j`` of ``n`` resampling splits are correlated because
the training sets overlap; Nadeau and Bengio (2003) inflate the variance of their mean
from ``s^2 / n`` to ``s^2 (1/n + rho / (1 - rho))``, ``rho`` the test fraction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from bayescomp.core.checks import as_float_array

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.scores.table import Scores


def paired_differences(baseline: Any, candidate: Any, axis: int = -1) -> np.ndarray:
    """Validate two score arrays and return ``candidate - baseline`` with the splits last.

    Raises ``ValueError`` for non-numeric, NaN/inf, mismatched or too short inputs.
    """
    b = as_float_array(baseline, "baseline")
    c = as_float_array(candidate, "candidate")
    if c.ndim == 0:
        raise ValueError("candidate must hold one score per split, got a single number")
    if (
        isinstance(axis, bool)
        or not isinstance(axis, (int, np.integer))
        or not -c.ndim <= axis < c.ndim
    ):
        raise ValueError(
            f"axis={axis!r} does not exist: the scores have {c.ndim} dimension(s); "
            f"pass the axis that holds the splits (0 to {c.ndim - 1}, or -1 for "
            "the last)"
        )
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
    check_not_subnormal(b, c)
    n = c.shape[-1]
    if n < 2:
        raise ValueError(
            f"need at least 2 paired splits to estimate the variance of the difference, got {n}; "
            "use repeated cross-validation (e.g. RepeatedStratifiedKFold(n_splits=10, n_repeats=10))"
        )
    return d


def check_not_subnormal(*arrays: np.ndarray) -> None:
    """Refuse scores below the smallest normal float (about 2.2e-308) but not 0.

    Subnormal floats keep fewer significant digits (1e-320 has three), so the answer would
    change when the scores are rescaled; the message says to rescale them first.  (A
    subnormal *difference* of two normal scores is exact, and is rescaled exactly.)
    """
    tiny = np.finfo(float).tiny
    for arr in arrays:
        small = np.abs(arr) < tiny
        if small.any() and np.any(arr[small] != 0):
            value = float(arr[small & (arr != 0)].flat[0])
            raise ValueError(
                f"scores as small as {value:.3g} are subnormal floats "
                "(below 2.2e-308) and have lost precision; rescale the metric first (e.g. "
                "multiply every score by 1e300) — the comparison does not depend on the unit"
            )


def _abs_max(x: np.ndarray) -> np.ndarray:
    """``max |x|`` along the last axis, from two reductions (no ``abs`` temporary)."""
    return np.maximum(x.max(axis=-1), -x.min(axis=-1))


#: variances outside [2**-900, 2**900] may have under- or overflowed in the squares
_VAR_SAFE = (2.0**-900, 2.0**900)


def _moments(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sample standard deviation along the last axis, in one pass each."""
    n = d.shape[-1]
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        mean = d.mean(axis=-1)
        dev = d - mean[..., None]
        var = np.einsum("...i,...i->...", dev, dev) / (n - 1)  # no squared temporary
    return mean, np.sqrt(var)


def _rescaled_moments(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_moments` of ``d`` divided by a power of two near ``max |d|``, scaled back.

    Dividing by a power of two is exact, so the statistics are those of ``d`` without the
    underflow (the variance of differences near 1e-200 is 0 in floating point) or the
    overflow (near 1e200 it is inf) of the raw squares.
    """
    top = _abs_max(d)
    _, exponent = np.frexp(np.where(top > 0, top, 1.0))
    factor = np.ldexp(1.0, exponent)
    mean_z, sd_z = _moments(d / factor[..., None])
    with np.errstate(over="ignore"):
        return factor * mean_z, factor * sd_z


def corrected_scale(d: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sample standard deviation and corrected scale of ``d`` along the last axis.

    Invariant to the scale of the data: the comparisons whose squares may have under- or
    overflowed (variance outside ``[2**-900, 2**900]``, or not finite) are computed again
    on ``d`` standardised by a power of two (:func:`_rescaled_moments`), so differences on
    any scale from 1e-300 to 1e300 give the same probabilities as the same differences
    near 1; the others (the common case) cost no extra pass.  Raises ``ValueError`` only
    when the posterior's reach itself overflows (scores near 1e308, or ``rho`` extremely
    close to 1).
    """
    n = d.shape[-1]
    mean, sd = _moments(d)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        var = sd * sd
        redo = ~((var >= _VAR_SAFE[0]) & (var <= _VAR_SAFE[1]) & np.isfinite(mean))
    if np.any(redo):
        if np.ndim(redo) == 0:
            mean, sd = _rescaled_moments(d)
        else:
            mean, sd = mean.copy(), sd.copy()
            mean[redo], sd[redo] = _rescaled_moments(d[redo])
    with np.errstate(over="ignore", invalid="ignore"):
        scale = sd * np.sqrt(1.0 / n + r / (1.0 - r))
        # the 99.9% interval must be representable too (df = 1 has very heavy tails)
        reach = np.abs(mean) + stats.t.ppf(0.9995, max(n - 1, 1)) * scale
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(reach))):
        raise ValueError(
            "the posterior scale of the paired differences overflows (scores near the "
            "floating-point limit 1e308, or rho extremely close to 1); rescale the metric "
            "(e.g. divide by a constant) or check rho"
        )
    return mean, sd, scale


def zero_variance(sd: np.ndarray, baseline: Any, candidate: Any, axis: int = -1) -> np.ndarray:
    """Where the differences are identical up to rounding of the scores.

    The spread rounding alone explains is 16 eps × the largest |score| of the comparison:
    relative to the scores, so a copy of the baseline plus a constant is a point mass at
    any scale.  The largest |score| is computed only for the comparisons that can be at
    that level — ``sd`` within 2**20 of the bound taken from the first split's scores —
    so the common case costs no pass over the scores.
    """
    eps16 = 16 * np.finfo(float).eps
    c = np.moveaxis(np.asarray(candidate, dtype=float), axis, -1)
    b = np.asarray(baseline, dtype=float)
    b = b if b.ndim == 0 else np.moveaxis(b, axis, -1)
    sd1 = np.reshape(sd, -1)
    c2 = c.reshape(-1, c.shape[-1])
    b2 = b if b.ndim == 0 else b.reshape(-1, b.shape[-1])
    first = np.maximum(np.abs(c2[:, 0]), np.abs(b2 if b.ndim == 0 else b2[:, 0]))
    zero = sd1 <= 0.0
    maybe = ~zero & (sd1 <= eps16 * first * 2.0**20)
    if np.any(maybe):
        top = _abs_max(c2[maybe])
        top = np.maximum(top, np.abs(b2) if b.ndim == 0 else _abs_max(b2[maybe]))
        zero[maybe] = sd1[maybe] <= eps16 * top
    return zero.reshape(np.shape(sd))


def as_output(x: Any) -> Any:
    arr = np.asarray(x)
    return float(arr) if arr.ndim == 0 else arr


def per_dataset_means(differences: Any) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """The mean paired difference of every dataset (from ``{dataset: differences}``, or
    given as a 1-D array), validated, and the dataset names (None for an array)."""
    if isinstance(differences, Mapping):
        if len(differences) == 0:
            raise ValueError("differences is empty; give at least one dataset")
        names = tuple(str(k) for k in differences)
        means = []
        for k, v in differences.items():
            arr = np.asarray(v, dtype=float).ravel()
            if arr.size == 0:
                raise ValueError(f"dataset {k!r} has no paired differences")
            means.append(arr.mean())
        z = np.asarray(means, dtype=float)
    else:
        try:
            z = np.asarray(differences, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"differences must be numeric: {exc}") from None
        if z.ndim != 1 or z.size == 0:
            raise ValueError(
                "differences must be a mapping {dataset: paired differences} or a 1-D array of "
                f"per-dataset mean differences; got shape {z.shape}"
            )
        names = None
    if not np.all(np.isfinite(z)):
        raise ValueError("per-dataset differences contain NaN or inf; fix or drop those datasets")
    return z, names


def differences_by_dataset(
    scores: Scores,
    baseline: str | float,
    candidate: str,
    metric: str,
    datasets: list[str],
    sign: float,
    goal: bool,
) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Per-dataset oriented differences ``candidate - baseline`` and each dataset's test
    fraction (one dataset's validated as the t-test needs: :func:`paired_differences`; across
    datasets one split each is enough for the rank tests); with ``goal`` the baseline is a
    performance goal, a number."""
    differences: dict[str, np.ndarray] = {}
    rho: dict[str, float] = {}
    if goal:
        if not np.isfinite(float(baseline)):
            raise ValueError(f"the performance goal must be a finite number, got {baseline}")
        scores._check_model(candidate)
        f = scores.to_frame()
        f = f[f["model"] == candidate]
    for ds in datasets:
        if goal:
            g = f[f["dataset"] == ds].sort_values("split")
            if g.empty:
                raise ValueError(
                    f"model {candidate!r} has no scores on dataset {ds!r}; pass "
                    "dataset= to compare it where it was scored"
                )
            c = g[metric].to_numpy(dtype=float)
            if not np.all(np.isfinite(c)):
                raise ValueError(
                    f"{metric!r} of {candidate!r} has NaN/inf scores; fix or drop them"
                )
            b, rho[ds] = np.full(c.size, float(baseline)), scores.rho(ds, model=candidate)
        else:
            paired = scores.paired(str(baseline), candidate, metric, ds)
            b, c = paired["baseline"].to_numpy(), paired["candidate"].to_numpy()
            rho[ds] = paired.attrs["rho"]
        d = paired_differences(b, c) if len(datasets) == 1 else c - b  # 1 split a dataset: ok
        differences[ds] = d if sign > 0 else -d
    return differences, rho


def row_scale(
    scores: Scores, names: tuple[Any, str], metric: str, dataset: str, split_scale: float, how: str
) -> tuple[float, str]:
    """The posterior scale of the CV mean difference from the per-row scores
    (``docs/per_row_variance.md``), and the variance it used (``how`` is ``"rows"`` or
    ``"gated"``).

    With ``R`` repetitions that each test every one of the ``n`` rows once, ``k`` splits a
    repetition, ``J = kR`` splits, ``e_ri`` row i's difference in repetition r and ``d̄_r``
    repetition r's mean split difference: ``each = k·mean_r var_i(e_ri)/n`` and
    ``cum = k·var_i(mean_r e_ri)/n`` give the rows' persistent part
    ``V = max((R·cum − each)/(R − 1), 0)``; the partition noise is ``P = var_r(d̄_r)/R``;
    ``σ² = V (1/J + ρ/(1 − ρ)) + P``.  ``"gated"`` uses it when ``V ≤ each/3`` (a near-equal
    pair: two thirds of the rows' differences are partition noise) and ``split_scale``
    otherwise."""
    baseline, candidate = names
    rows = scores.per_row
    if rows is None or metric not in rows.columns:
        raise ValueError(
            f"variance={how!r} reads each row's out-of-fold score of {metric!r}, which this "
            "table does not hold: cross_validate_paired and select_models keep them for "
            "accuracy, error rate, log loss, Brier, squared and absolute error; use "
            "variance='split'"
        )
    f = scores.subset(datasets=[dataset]).to_frame()
    key = [c for c in ("block", "repeat") if c in f.columns]
    repetition = f.drop_duplicates("split").set_index("split")[key].apply(tuple, axis=1)
    rows = rows[rows["dataset"] == dataset]
    own = rows[rows["model"] == candidate].set_index(["split", "row"])[metric]
    if isinstance(baseline, str):
        own = own - rows[rows["model"] == baseline].set_index(["split", "row"])[metric]
    e = own.dropna().reset_index()
    e["rep"] = repetition.reindex(e["split"]).to_numpy()
    grid = e.pivot_table(index="rep", columns="row", values=metric, aggfunc="count")
    if grid.shape[0] < 2 or grid.isna().to_numpy().any() or (grid.to_numpy() != 1).any():
        raise ValueError(
            f"variance={how!r} needs at least 2 repetitions that each test every row once "
            "(repeated k-fold, on the same rows for both models); this design does not: use "
            "variance='split'"
        )
    E = e.pivot_table(index="rep", columns="row", values=metric).to_numpy()
    R, n = E.shape
    k = len(e["split"].unique()) / R
    each = k * E.var(axis=1, ddof=1).mean() / n
    cum = k * E.mean(axis=0).var(ddof=1) / n
    persistent = max((R * cum - each) / (R - 1), 0.0)
    fold_means = e.groupby("split")[metric].mean()
    partition = fold_means.groupby(repetition.reindex(fold_means.index)).mean().var(ddof=1) / R
    if how == "gated" and persistent > each / 3:
        return split_scale, "gated: split"
    rho = float(scores.rho(dataset))
    nb = 1 / (k * R) + rho / (1 - rho)
    return float(np.sqrt(persistent * nb + partition)), "rows" if how == "rows" else "gated: rows"
