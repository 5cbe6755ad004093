"""The parts of the bag of little bootstraps shared by every input kind.

:func:`bayescomp.blb_metric` runs them on NumPy or Dask arrays (``metrics/blb.py``) and,
inside Spark, on a Spark DataFrame (``metrics/spark_blb.py``): the per-subset resampling
(:func:`subset_task`), the adaptive stopping over subsets (:func:`extend_history`,
:func:`settled`), the interval from the averaged per-subset quantiles (:func:`offsets`) and
the :class:`BLBInterval` it returns (:func:`assemble`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_level
from bayescomp.core.exceptions import BLBCenterWarning
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


def subset_task(
    spec: MetricSpec,
    yt: np.ndarray,
    yp: np.ndarray,
    n: int,
    r_max: int,
    seed: int,
    alpha: float,
    adaptive: bool,
    tol: float,
) -> dict[str, Any]:
    """Resample one subset: returns its centre, offsets and the per-subset interval."""
    rng = np.random.default_rng(seed)
    b = yt.shape[0]
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
        if adaptive and done.size >= 60:
            lo, hi = np.quantile(done - center, [alpha / 2, 1 - alpha / 2], method=QUANTILE_METHOD)
            if prev is not None:
                width = max(hi - lo, 1e-12)
                change = max(abs(lo - prev[0]), abs(hi - prev[1])) / width
                stable = stable + 1 if change < tol else 0
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
) -> float:
    """Validate the arguments of :func:`blb_metric`; return ``subset_exponent`` as a float."""
    exponent = float(exponent)
    if not 0.5 <= exponent <= 1.0:
        raise ValueError(
            "subset_exponent must lie in [0.5, 1] (subset size b = "
            f"n**subset_exponent); got {exponent}"
        )
    check_level(confidence_level, "confidence_level")
    if method not in ("percentile", "basic"):
        raise ValueError(f"method must be 'percentile' or 'basic' for BLB; got {method!r}")
    for arg, val in (("n_subsets", n_subsets), ("n_resamples", n_resamples)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)):
            raise TypeError(f"{arg} must be an integer; got {val!r}")
    if int(n_subsets) < 2 or int(n_resamples) < 20:
        raise ValueError(
            f"need n_subsets >= 2 and n_resamples >= 20 (typical: 20 and 100); got "
            f"{n_subsets} and {n_resamples}"
        )
    numeric = isinstance(estimate, int | float) and not isinstance(estimate, bool)
    if not numeric and estimate not in ("auto", "full", "subsets"):
        raise ValueError(
            f"estimate must be 'auto', 'full', 'subsets' or a number; got {estimate!r}"
        )
    return exponent


def extend_history(results: list[dict[str, Any]], history: list[float]) -> None:
    """Append the averaged interval width after each subset not yet in ``history``."""
    for j in range(len(history), len(results)):
        lo = np.mean([r["lo"] for r in results[: j + 1]])
        hi = np.mean([r["hi"] for r in results[: j + 1]])
        history.append(float(hi - lo))


def settled(history: list[float], *, tol: float, window: int, min_subsets: int) -> bool:
    """Adaptive stopping: the width changed by less than ``tol`` (relative) over the last
    ``window`` subsets, after at least ``max(min_subsets, window + 1)`` subsets."""
    if len(history) < max(min_subsets, window + 1):
        return False
    h = np.asarray(history)
    change = np.abs(np.diff(h[-(window + 1) :])) / np.maximum(h[-window:], 1e-12)
    return bool(np.all(change < tol))


def offsets(
    method: str,
    results: list[dict[str, Any]],
    est: float | None,
    source: str,
    centers: np.ndarray,
    alpha: float,
) -> tuple[float, float, float]:
    """Centre and the interval's offsets from it, from the averaged per-subset quantiles.

    Centred on the subsets' mean, the interval is widened by that mean's standard error.
    """
    q_lo = float(np.mean([r["lo"] for r in results]))
    q_hi = float(np.mean([r["hi"] for r in results]))
    if method == "percentile":
        off_lo, off_hi = q_lo, q_hi
    else:
        off_lo, off_hi = -q_hi, -q_lo
    if source != "subsets":
        return float(est), off_lo, off_hi
    from scipy import stats

    se_c = float(centers.std(ddof=1) / np.sqrt(centers.size))
    z = float(stats.norm.ppf(1 - alpha / 2))
    warnings.warn(
        "the full-data value was not computed; the interval is centred on "
        f"the mean of {centers.size} subset values and widened by their standard error "
        f"({se_c:.3g}); pass estimate=<full-data value> for the narrower interval",
        BLBCenterWarning,
        stacklevel=4,
    )
    return (
        float(centers.mean()),
        -float(np.hypot(off_lo, z * se_c)),
        float(np.hypot(off_hi, z * se_c)),
    )


def subset_size(n: int, exponent: float, stacklevel: int) -> int:
    """Rows per subset, ``b = n ** exponent`` (at least 2); a warning below 1000 rows."""
    if n < 1000:
        warnings.warn(
            f"only {n} rows: the bag of little bootstraps is meant for large test sets; "
            "bc.bootstrap_metric gives a more accurate interval here",
            UserWarning,
            stacklevel=stacklevel + 1,
        )
    return max(2, min(n, int(np.ceil(n**exponent))))


def assemble(
    spec: MetricSpec,
    results: list[dict[str, Any]],
    history: list[float],
    estimate: tuple[float | None, str],
    converged: bool,
    *,
    alpha: float,
    confidence_level: float,
    method: str,
    n: int,
    exponent: float,
    b: int,
) -> BLBInterval:
    """The :class:`BLBInterval` with its per-subset table, around ``estimate`` (the centre
    and its source)."""
    import pandas as pd

    source = estimate[1]
    centers = np.array([r["center"] for r in results])
    est, off_lo, off_hi = offsets(method, results, estimate[0], source, centers, alpha)

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
        confidence_level=confidence_level,
        method=f"blb-{method}",
        n=n,
        n_resamples=int(subsets["n_resamples"].sum()),
        higher_is_better=spec.higher_is_better,
        subset_exponent=exponent,
        b=b,
        n_subsets=len(results),
        converged=converged,
        estimate_source=source,
        subsets=subsets,
        history=np.asarray(history),
    )
