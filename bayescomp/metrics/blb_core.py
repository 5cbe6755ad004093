"""The bag of little bootstraps, shared by every input kind.

:func:`bayescomp.blb_metric` checks its arguments once (:func:`check_blb_args`, into a
:class:`BLBSettings`) and draws the subsets from NumPy or Dask arrays (``metrics/blb.py``)
or, inside Spark, from a Spark DataFrame (``metrics/spark_blb.py``); the rest is here and
the same for both: the per-subset resampling (:func:`subset_task`), the rounds of subsets
with adaptive stopping and the centre (:func:`bag`), and the interval from the averaged
per-subset quantiles (:func:`offsets`) with the :class:`BLBInterval` it returns.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_level, check_number
from bayescomp.core.exceptions import BLBCenterWarning
from bayescomp.core.orientation import check_metric_value
from bayescomp.metrics._metric import MetricSpec, safe_call
from bayescomp.metrics.interval import MetricInterval

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes


#: Per-subset quantiles are *averaged* over subsets, so they must be (close to) mean-unbiased:
#: numpy's default linear estimator puts the 2.5% quantile of 100 normal draws at about
#: -1.87 SD instead of -1.96 (intervals ~5% too narrow).  Hyndman & Fan's type 9
#: ("normal_unbiased") is approximately unbiased for near-normal resampling distributions.
QUANTILE_METHOD = "normal_unbiased"


@dataclass(frozen=True)
class BLBInterval(MetricInterval):
    """A bag-of-little-bootstraps interval (a :class:`MetricInterval` with BLB details).

    It has every attribute of :class:`MetricInterval`, and these.

    Attributes
    ----------
    subset_exponent : float
        Subset size exponent, ``b = n**subset_exponent``.
    b : int
        Rows per subset.
    n_subsets : int
        Subsets used (fewer than the maximum when adaptive stopping converged).
    converged : bool
        Whether adaptive stopping reached its tolerance (always True when not adaptive).
    estimate_source : str
        ``"full"`` (metric on all rows), ``"subsets"`` (mean over subsets) or ``"given"``.
    subsets : DataFrame
        Per subset: its metric value, resamples used, interval offsets and SD.
    history : ndarray
        Averaged interval width after each subset (the quantity that must settle).
    """

    subset_exponent: float = 0.7
    b: int = 0
    n_subsets: int = 0
    converged: bool = True
    estimate_source: str = "full"
    subsets: Any = field(default=None, repr=False, compare=False)
    history: np.ndarray | None = field(default=None, repr=False, compare=False)

    def plot_convergence(self, ax: Axes | None = None) -> Axes:
        """Averaged interval width against the number of subsets processed."""
        from bayescomp.report.metric_plots import plot_blb_convergence

        return plot_blb_convergence(self, ax=ax)

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        frame = super().summary(confidence_level=confidence_level)
        frame["b"] = self.b
        frame["n_subsets"] = self.n_subsets
        frame["converged"] = self.converged
        frame["estimate_source"] = self.estimate_source
        return frame


@dataclass(frozen=True)
class BLBSettings:
    """The checked arguments of :func:`bayescomp.blb_metric` that every input kind runs by
    (made by :func:`check_blb_args`)."""

    exponent: float
    n_subsets: int
    n_resamples: int
    confidence_level: float
    method: str
    adaptive: bool
    tol: float
    window: int
    min_subsets: int
    estimate: Any
    threshold: float | None
    pos_label: Any

    @property
    def alpha(self) -> float:
        return 1 - self.confidence_level


def subset_task(
    spec: MetricSpec, yt: np.ndarray, yp: np.ndarray, n: int, seed: int, settings: BLBSettings
) -> dict[str, Any]:
    """Resample one subset: returns its centre, offsets and the per-subset interval."""
    rng = np.random.default_rng(seed)
    b = yt.shape[0]
    r_max, alpha = settings.n_resamples, settings.alpha
    center = safe_call(spec, yt, yp)
    p = np.full(b, 1.0 / b)
    chunk = 20
    values: list[np.ndarray] = []
    prev: tuple[float, float] | None = None
    stable = 0
    while sum(v.size for v in values) < r_max:
        m = min(chunk, r_max - sum(v.size for v in values))
        w = rng.multinomial(n, p, size=m)
        values.append(spec.batch_weights(yt, yp, w))
        done = np.concatenate(values)
        if settings.adaptive and done.size >= 60:
            lo, hi = np.quantile(done - center, [alpha / 2, 1 - alpha / 2], method=QUANTILE_METHOD)
            if prev is not None:
                width = max(hi - lo, 1e-12)
                change = max(abs(lo - prev[0]), abs(hi - prev[1])) / width
                stable = stable + 1 if change < settings.tol else 0
                if stable >= 2:  # settled over the last 2 chunks (40 resamples)
                    break
            prev = (lo, hi)
    done = np.concatenate(values)
    bad = int(np.sum(~np.isfinite(done)))
    if bad or not np.isfinite(center):
        raise ValueError(
            f"metric {spec.name!r} was undefined on a subset of {b} rows or on {bad} of its "
            "resamples (a subset without one of the classes?); increase subset_exponent so subsets are "
            "larger"
        )
    dev = done - center
    lo, hi = np.quantile(dev, [alpha / 2, 1 - alpha / 2], method=QUANTILE_METHOD)
    return {
        "center": center,
        "lo": float(lo),
        "hi": float(hi),
        "sd": float(done.std(ddof=1)),
        "r": int(done.size),
        "dev": dev,
    }


def check_blb_args(
    exponent: float,
    confidence_level: float,
    method: str,
    n_subsets: int,
    n_resamples: int,
    estimate: Any,
    *,
    adaptive: bool,
    tol: float,
    window: int,
    min_subsets: int,
    threshold: float | None,
    pos_label: Any,
) -> BLBSettings:
    """Validate the arguments of :func:`blb_metric`; return them as :class:`BLBSettings`."""
    exponent = check_number(
        exponent,
        "subset_exponent",
        min_val=0.5,
        max_val=1,
        advice="subsets of n**subset_exponent rows",
    )
    check_level(confidence_level, "confidence_level")
    if method not in ("percentile", "basic"):
        raise ValueError(f"method must be 'percentile' or 'basic' for BLB; got {method!r}")
    n_subsets = check_number(n_subsets, "n_subsets", integer=True, min_val=2, advice="20 is usual")
    n_resamples = check_number(
        n_resamples, "n_resamples", integer=True, min_val=20, advice="100 is usual"
    )
    numeric = isinstance(estimate, int | float) and not isinstance(estimate, bool)
    if not numeric and estimate not in ("auto", "full", "subsets"):
        raise ValueError(
            f"estimate must be 'auto', 'full', 'subsets' or a number; got {estimate!r}"
        )
    check_number(
        tol, "tol", min_val=0, include_boundaries="neither", advice="a relative change, e.g. 0.05"
    )
    return BLBSettings(  # positional, in the order of its fields
        exponent,
        n_subsets,
        n_resamples,
        float(confidence_level),
        method,
        adaptive,
        tol,
        window,
        min_subsets,
        estimate,
        threshold,
        pos_label,
    )


def _rounds(
    run: Callable[[range], Iterable[dict[str, Any]]], settings: BLBSettings, per_round: int
) -> tuple[list[dict[str, Any]], list[float], bool]:
    """Resample subsets in rounds of ``per_round`` (``run`` resamples the subsets of a range
    of indices) until ``n_subsets`` or, when adaptive, until the averaged interval width has
    settled.  The rule is applied one subset at a time, in order, so where it stops does not
    depend on ``per_round``.  Returns the per-subset results, the averaged width after each
    subset, and whether adaptive stopping converged (True when not adaptive)."""
    window = settings.window
    results: list[dict[str, Any]] = []
    history: list[float] = []
    while len(results) < settings.n_subsets:
        k = min(per_round, settings.n_subsets - len(results))
        for r in run(range(len(results), len(results) + k)):
            results.append(r)
            lo = np.mean([q["lo"] for q in results])
            hi = np.mean([q["hi"] for q in results])
            history.append(float(hi - lo))
            # adaptive stopping: after at least max(min_subsets, window + 1) subsets, the
            # width changed by less than tol (relative) over each of the last window subsets
            if settings.adaptive and len(history) >= max(settings.min_subsets, window + 1):
                h = np.asarray(history[-(window + 1) :])
                if np.all(np.abs(np.diff(h)) / np.maximum(h[1:], 1e-12) < settings.tol):
                    return results, history, True
    return results, history, not settings.adaptive


def _center(
    settings: BLBSettings, spec: MetricSpec, full: Callable[[], float | None], unavailable: str
) -> tuple[float | None, str]:
    """The interval's centre and its source (``"given"``, ``"full"`` or ``"subsets"``).

    ``full()`` is the metric on all rows, None where the input kind cannot compute it
    (``unavailable`` says which it can); the centre is None when it is the mean over subsets
    (computed by :func:`offsets`)."""
    estimate = settings.estimate
    if isinstance(estimate, int | float | np.number) and not isinstance(estimate, bool):
        return check_metric_value(estimate, spec.name, "estimate"), "given"
    est = None if estimate == "subsets" else full()
    if est is None and estimate == "full":
        raise ValueError(
            f"the full-data value of {spec.name!r} {unavailable}; pass estimate='subsets' or "
            "your own value"
        )
    if est is not None and not np.isfinite(est):
        raise ValueError(f"metric {spec.name!r} is undefined on the full data")
    return est, "full" if est is not None else "subsets"


def offsets(
    results: list[dict[str, Any]], center: tuple[float | None, str], settings: BLBSettings
) -> tuple[float, float, float]:
    """Centre and the interval's offsets from it, from the averaged per-subset quantiles.

    Centred on the subsets' mean (``center`` from :func:`_center`), the interval is widened
    by that mean's standard error.
    """
    est, source = center
    centers = np.array([r["center"] for r in results])
    q_lo = float(np.mean([r["lo"] for r in results]))
    q_hi = float(np.mean([r["hi"] for r in results]))
    if settings.method == "percentile":
        off_lo, off_hi = q_lo, q_hi
    else:
        off_lo, off_hi = -q_hi, -q_lo
    if source != "subsets":
        return float(est), off_lo, off_hi
    from scipy import stats

    se_c = float(centers.std(ddof=1) / np.sqrt(centers.size))
    z = float(stats.norm.ppf(1 - settings.alpha / 2))
    warnings.warn(
        "the full-data value was not computed; the interval is centred on "
        f"the mean of {centers.size} subset values and widened by their standard error "
        f"({se_c:.3g}); pass estimate=<full-data value> for the narrower interval",
        BLBCenterWarning,
        stacklevel=5,  # offsets < bag < the input kind's driver < blb_metric < user
    )
    return (
        float(centers.mean()),
        -float(np.hypot(off_lo, z * se_c)),
        float(np.hypot(off_hi, z * se_c)),
    )


def subset_size(n: int, exponent: float) -> int:
    """Rows per subset, ``b = n ** exponent`` (at least 2); a warning below 1000 rows."""
    if n < 1000:
        warnings.warn(
            f"only {n} rows: the bag of little bootstraps is meant for large test sets; "
            "bc.bootstrap_metric gives a more accurate interval here",
            UserWarning,
            stacklevel=4,  # subset_size < the input kind's driver < blb_metric < user
        )
    return max(2, min(n, int(np.ceil(n**exponent))))


def bag(
    spec: MetricSpec,
    settings: BLBSettings,
    *,
    n: int,
    b: int,
    run: Callable[[range], Iterable[dict[str, Any]]],
    per_round: int,
    full: Callable[[], float | None],
    unavailable: str,
) -> BLBInterval:
    """The bag of little bootstraps of ``n`` rows in subsets of ``b``, as a
    :class:`BLBInterval` with its per-subset table.

    ``run`` resamples the subsets of a range of indices (:func:`subset_task` on each),
    ``per_round`` subsets at a time (:func:`_rounds`); ``full`` and ``unavailable`` give the
    centre (:func:`_center`)."""
    import pandas as pd

    results, history, converged = _rounds(run, settings, per_round)
    center = _center(settings, spec, full, unavailable)
    est, off_lo, off_hi = offsets(results, center, settings)
    subsets = pd.DataFrame(
        [
            {
                "value": r["center"],
                "n_resamples": r["r"],
                "offset_low": r["lo"],
                "offset_high": r["hi"],
                "sd": r["sd"],
            }
            for r in results
        ]
    )
    dist = est + np.concatenate([r["dev"] for r in results])
    return BLBInterval(  # low/high are clipped to the metric's range (MetricInterval)
        metric=spec.name,
        estimate=est,
        low=est + off_lo,
        high=est + off_hi,
        standard_error=float(np.mean([r["sd"] for r in results])),
        distribution=dist,
        confidence_level=settings.confidence_level,
        method=f"blb-{settings.method}",
        n=n,
        n_resamples=int(subsets["n_resamples"].sum()),
        higher_is_better=spec.higher_is_better,
        subset_exponent=settings.exponent,
        b=b,
        n_subsets=len(results),
        converged=converged,
        estimate_source=center[1],
        subsets=subsets,
        history=np.asarray(history),
    )
