"""The bag of little bootstraps (Kleiner, Talwalkar, Sarkar & Jordan 2012/2014).

Subsets of ``n**subset_exponent`` rows, each resampled to the full size ``n`` as
multinomial weights; the averaged per-subset quantiles are attached to the full-data
estimate (or to the subsets' mean, widened by its standard error, when a Dask array's
metric has no streaming path).  Subsets run through joblib (``n_jobs``), inputs may be Dask
arrays, and stopping is adaptive (``tol``, ``window``).  The algorithm and its choices:
``docs/metric_uncertainty.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

import numpy as np

from bayescomp.core.checks import check_n_jobs
from bayescomp.core.exceptions import BLBCenterWarning
from bayescomp.metrics import _fast
from bayescomp.metrics._metric import (
    MetricSpec,
    check_predictions,
    negative_label,
    resolve_metric,
    safe_call,
)
from bayescomp.metrics.blb_core import (
    BLBInterval,
    BLBSettings,
    bag,
    check_blb_args,
    subset_size,
    subset_task,
)
from bayescomp.metrics.spark import is_spark_frame

__all__ = ["BLBCenterWarning", "BLBInterval", "blb_metric"]


def _full_estimate(spec: MetricSpec, yt: Any, yp: Any, dask: bool) -> float | None:
    """Metric on all rows; memory-light for ROC AUC; None when not computable (Dask)."""
    if spec.fast == "roc_auc" and np.ndim(yp) == 1:
        if dask:
            import dask.array as da

            labels = np.unique(da.unique(yt).compute()).tolist()
            pos = labels[-1] if spec.pos_label is None else spec.pos_label
            if len(labels) != 2 or pos not in labels:  # materialise the smaller class below
                raise ValueError(
                    f"roc_auc needs binary y_true holding pos_label={pos!r}; it holds {labels}"
                )
            positive = yt == pos
            return _fast.auc_low_memory(positive, yp, blocks=_dask_blocks(yp, positive))
        return _fast.auc_low_memory(spec.positive_mask(yt), np.asarray(yp))
    if dask:
        if spec.fast in ("accuracy", "error_rate") and np.ndim(yp) == 1:
            acc = float((yt == yp).mean().compute())
            return acc if spec.fast == "accuracy" else 1.0 - acc
        return None
    return safe_call(spec, yt, yp)


def _dask_blocks(score: Any, positive: Any) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The matching blocks of two Dask arrays, computed one pair at a time."""
    import dask

    for s, m in zip(score.to_delayed().ravel(), positive.to_delayed().ravel(), strict=True):
        yield dask.compute(s, m)


def blb_metric(
    y_true: Any,
    y_pred_or_score: Any,
    metric: str | Callable[..., float] = "roc_auc",
    *,
    subset_exponent: float = 0.7,
    n_subsets: int = 20,
    n_resamples: int = 100,
    confidence_level: float = 0.95,
    method: Literal["percentile", "basic"] = "percentile",
    adaptive: bool = True,
    tol: float = 0.05,
    window: int = 3,
    min_subsets: int = 3,
    estimate: Literal["auto", "full", "subsets"] | float = "auto",
    threshold: float | None = None,
    pos_label: Any = 1,
    n_jobs: int | None = None,
    random_state: Any = None,
    columns: dict[str, str] | None = None,
) -> BLBInterval:
    """Confidence interval of a metric on a very large test set by the bag of little bootstraps.

    Parameters
    ----------
    y_true, y_pred_or_score : array_like or dask.array.Array of shape (n,)
        Labels and predictions (scores for score metrics).  Dask arrays are
        only read subset by subset (``pip install bayescomp[dask]``).  A Spark
        DataFrame may be passed as ``y_true`` (with ``y_pred_or_score=None`` and
        ``columns=``): the subsets are drawn, resampled and the full-data value
        computed inside Spark; only per-subset summaries reach the driver
        (``pip install bayescomp[spark]``; see the "Scaling out" docs page).
    metric : str or callable, default "roc_auc"
        Any metric accepting ``sample_weight`` (scikit-learn names or a
        callable ``f(y_true, y_pred, sample_weight=None)``).  ROC AUC,
        accuracy and error rate use vectorised implementations equal to
        scikit-learn's.
    subset_exponent : float, default 0.7
        Subset size ``b = n**subset_exponent``, between 0.5 and 1 (Kleiner et
        al. recommend 0.6–0.8).
    n_subsets : int, default 20
        Maximum number of subsets ``s``.
    n_resamples : int, default 100
        Maximum resamples ``r`` per subset.
    confidence_level : float, default 0.95
    method : {"percentile", "basic"}, default "percentile"
        Shape of the interval built from the averaged per-subset quantiles of
        ``theta* - theta_subset``: percentile ``[est + q_lo, est + q_hi]`` or
        basic ``[est - q_hi, est - q_lo]``.
    adaptive : bool, default True
        Stop adding resamples/subsets once the interval has settled.
    tol, window, min_subsets
        Adaptive stopping: relative change below ``tol`` for ``window``
        consecutive subsets, after at least ``min_subsets``.
    estimate : {"auto", "full", "subsets"} or float, default "auto"
        Centre of the interval: the metric on all rows (``"full"``; ROC AUC is
        computed with little extra memory, also from Dask arrays), the mean
        over subsets (``"subsets"``, wider), or a value you computed.  ``"auto"``
        is ``"full"`` unless the input is a Dask array and the metric has no
        streaming path (ROC AUC, accuracy and error rate have one).
    threshold, pos_label
        As in :func:`bayescomp.bootstrap_metric`.
    n_jobs : int, optional
        Subsets processed in parallel by joblib.
    random_state : int or Generator, optional
    columns : dict, optional
        ``{"label": ..., "score": ...}``: the column names when ``y_true`` is a Spark
        DataFrame (default ``"y_true"`` and ``"y_score"``).  ``n_jobs`` does not apply
        there: Spark runs one task per subset.

    Returns
    -------
    BLBInterval

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 100_000)
    >>> score = y + rng.normal(0, 1.5, 100_000)
    >>> ci = blb_metric(y, score, "roc_auc", random_state=0)
    >>> bool(ci.low < ci.estimate < ci.high), ci.b
    (True, 3163)
    >>> round(ci.width, 3)
    0.006
    """
    settings = check_blb_args(
        subset_exponent,
        confidence_level,
        method,
        n_subsets,
        n_resamples,
        estimate,
        adaptive=adaptive,
        tol=tol,
        window=window,
        min_subsets=min_subsets,
        threshold=threshold,
        pos_label=pos_label,
    )
    spec = resolve_metric(metric, pos_label=pos_label)
    if is_spark_frame(y_true):
        from bayescomp.metrics.spark_blb import spark_blb

        return spark_blb(y_true, y_pred_or_score, spec, settings, dict(columns or {}), random_state)
    return _arrays_blb(y_true, y_pred_or_score, spec, settings, n_jobs, random_state)


def _arrays_blb(
    y_true: Any,
    y_pred: Any,
    spec: MetricSpec,
    settings: BLBSettings,
    n_jobs: int | None,
    random_state: Any,
) -> BLBInterval:
    """:func:`blb_metric` on NumPy or Dask arrays: subsets in parallel batches (joblib)."""
    from joblib import Parallel, delayed, effective_n_jobs

    yt_all, yp_all, dask = _inputs(y_true, y_pred, spec, settings)
    n = int(yt_all.shape[0])
    b = subset_size(n, settings.exponent)
    rng = np.random.default_rng(random_state)

    def run(js: range) -> list[dict[str, Any]]:
        """Draw ``len(js)`` subsets of ``b`` rows without replacement, each with its own
        seed, and resample them in parallel."""
        tasks = []
        for _ in js:
            idx = np.sort(rng.choice(n, size=b, replace=False))
            seed = int(rng.integers(2**63 - 1))
            if dask:  # each subset checked as it is materialised
                import dask as dk

                t, p = dk.compute(yt_all[idx], yp_all[idx])
                t, p = check_predictions(
                    t, p, spec, pos_label=settings.pos_label, name="y_pred_or_score"
                )
            else:
                t, p = yt_all[idx], yp_all[idx]
            tasks.append(delayed(subset_task)(spec, t, p, n, seed, settings))
        return parallel(tasks)

    with Parallel(n_jobs=check_n_jobs(n_jobs)) as parallel:  # refused in our words
        return bag(
            spec,
            settings,
            n=n,
            b=b,
            run=run,
            per_round=max(1, effective_n_jobs(n_jobs)),
            full=lambda: _full_estimate(spec, yt_all, yp_all, dask),
            unavailable="cannot be computed from Dask arrays without loading them",
        )


def _inputs(
    y_true: Any, y_pred: Any, spec: MetricSpec, settings: BLBSettings
) -> tuple[Any, Any, bool]:
    """Checked inputs and whether they are Dask arrays.

    NumPy inputs are checked (and thresholded) at once.  Dask inputs are only checked for
    their length and thresholded lazily; each subset is checked when it is materialised.
    """
    threshold, pos_label = settings.threshold, settings.pos_label
    dask = any(type(x).__module__.split(".")[0] == "dask" for x in (y_true, y_pred))
    if not dask:
        yt_all, yp_all = check_predictions(
            y_true, y_pred, spec, threshold=threshold, pos_label=pos_label, name="y_pred_or_score"
        )
        return yt_all, yp_all, False
    import dask.array as da

    yt_all, yp_all = da.asarray(y_true), da.asarray(y_pred)
    n = int(yt_all.shape[0])
    if int(yp_all.shape[0]) != n or n == 0:
        raise ValueError(
            f"y_true and y_pred_or_score must be non-empty with one entry per row; got "
            f"{n} and {int(yp_all.shape[0])} rows"
        )
    if threshold is not None:  # turn scores into labels lazily, as check_predictions does
        neg = negative_label(np.unique(da.unique(yt_all).compute()), pos_label)
        yp_all = da.where(yp_all >= threshold, pos_label, neg).astype(yt_all.dtype)
    return yt_all, yp_all, True
