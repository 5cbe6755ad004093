"""Bootstrap confidence intervals for an evaluation metric on one test set.

The resampling and every interval method (BCa, percentile, basic) are those of
:func:`scipy.stats.bootstrap`; this module only feeds it row indices and calls
the scikit-learn metric on each resample.  Stratified resampling (every
resample keeps the class counts of the test set) is obtained by handing scipy
one index sample per class: scipy resamples each sample independently.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from bayescomp.core.checks import check_level, check_number
from bayescomp.core.exceptions import DegenerateBootstrapWarning
from bayescomp.metrics._metric import MetricSpec, check_predictions, resolve_metric, safe_call
from bayescomp.metrics.interval import MetricInterval
from bayescomp.metrics.spark import is_spark_frame
from bayescomp.metrics.spark_auc import spark_bootstrap

Method = Literal["bca", "percentile", "basic"]
_SCIPY_METHOD = {"bca": "BCa", "percentile": "percentile", "basic": "basic"}
#: above this many rows BCa's jackknife (one metric evaluation per row) is refused
BCA_MAX_ROWS = 20_000


def check_bootstrap_args(method: str, n_resamples: int, confidence_level: float) -> str:
    key = str(method).lower()
    if key not in _SCIPY_METHOD:
        raise ValueError(f"method must be 'bca', 'percentile' or 'basic'; got {method!r}")
    check_number(
        n_resamples,
        "n_resamples",
        integer=True,
        min_val=100,
        advice="fewer give no usable interval; 2000 or more is typical",
    )
    check_level(confidence_level, "confidence_level")
    return key


def index_samples(y_true: np.ndarray, stratify: bool) -> tuple[np.ndarray, ...]:
    n = y_true.shape[0]
    if not stratify:
        return (np.arange(n),)
    labels = np.unique(y_true)
    if labels.size > 50 or (y_true.dtype.kind == "f" and labels.size > 0.5 * n):
        raise ValueError(
            "stratify=True resamples within each class of y_true, but y_true looks continuous "
            "(a regression target); use stratify=False"
        )
    groups = tuple(np.flatnonzero(y_true == lab) for lab in labels)
    small = [
        int(lab) if np.issubdtype(type(lab), np.integer) else lab
        for lab, g in zip(labels, groups, strict=True)
        if g.size < 2
    ]
    if small:
        raise ValueError(
            f"stratify=True needs at least 2 test rows in every class; classes {small} have one"
        )
    return groups


def run_scipy_bootstrap(
    samples: tuple[np.ndarray, ...],
    rows: Callable[[np.ndarray], np.ndarray],
    n: int,
    *,
    method: str,
    n_resamples: int,
    confidence_level: float,
    random_state: Any,
) -> Any:
    from scipy import stats

    if method == "bca" and n > BCA_MAX_ROWS:
        raise ValueError(
            f"BCa needs a jackknife with one metric evaluation per test row ({n} rows, above "
            f"the limit of {BCA_MAX_ROWS}); use method='percentile' (accurate at this size) "
            "or bc.blb_metric for very large test sets"
        )

    def statistic(*idx: np.ndarray, axis: int = -1) -> np.ndarray:
        full = idx[0] if len(idx) == 1 else np.concatenate(idx, axis=-1)
        flat = full.reshape(-1, full.shape[-1]).astype(np.intp, copy=False)
        out = np.atleast_2d(rows(flat))  # (n_out, batch)
        return out.reshape((out.shape[0], *full.shape[:-1]))

    batch = int(max(1, min(n_resamples, 2_000_000 // max(n, 1))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message=".*degenerate.*")
        warnings.filterwarnings("ignore", message=".*BCa confidence interval cannot.*")
        return stats.bootstrap(
            samples,
            statistic,
            n_resamples=int(n_resamples),
            batch=batch,
            vectorized=True,
            paired=False,
            axis=-1,
            confidence_level=float(confidence_level),
            method=_SCIPY_METHOD[method],
            rng=np.random.default_rng(random_state),
        )


def finish_interval(
    res: Any,
    k: int,
    *,
    name: str,
    estimate: float,
    method: str,
    n: int,
    n_resamples: int,
    confidence_level: float,
    higher_is_better: bool | None,
) -> MetricInterval:
    dist = np.asarray(res.bootstrap_distribution)[k]
    n_bad = int(np.sum(~np.isfinite(dist)))
    if n_bad:
        raise ValueError(
            f"metric {name!r} was undefined on {n_bad} of {dist.size} bootstrap resamples "
            "(typically a resample without a positive, or with a single class); use "
            "stratify=True to keep every class in each resample, or a larger test set"
        )
    low = float(np.atleast_1d(res.confidence_interval.low)[k])
    high = float(np.atleast_1d(res.confidence_interval.high)[k])
    if np.ptp(dist) == 0:
        warnings.warn(
            f"every bootstrap resample gave {name} = {dist[0]:.6g}: the interval collapses to "
            "that point and says nothing about the uncertainty (is the metric saturated, e.g. "
            "a perfect score on a small test set?)",
            DegenerateBootstrapWarning,
            stacklevel=3,
        )
        low = high = float(dist[0])
    elif not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(
            f"scipy could not form the {method} interval for {name!r} (the jackknife is "
            "degenerate); use method='percentile'"
        )
    return MetricInterval(  # clipped to the metric's range (a basic interval can pass it)
        metric=name,
        estimate=float(estimate),
        low=low,
        high=high,
        standard_error=float(np.atleast_1d(res.standard_error)[k]),
        distribution=dist,
        confidence_level=float(confidence_level),
        method=method,
        n=n,
        n_resamples=int(n_resamples),
        higher_is_better=higher_is_better,
    )


def _estimate(spec: MetricSpec, yt: np.ndarray, yp: np.ndarray) -> float:
    value = safe_call(spec, yt, yp)
    if not np.isfinite(value):
        raise ValueError(
            f"metric {spec.name!r} is undefined on this test set (e.g. precision with no "
            "positive prediction); it cannot be given an interval"
        )
    return value


def bootstrap_metric(
    y_true: Any,
    y_pred_or_score: Any,
    metric: str | Callable[..., float] = "roc_auc",
    *,
    method: Method = "bca",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    stratify: bool = False,
    threshold: float | None = None,
    pos_label: Any = 1,
    random_state: Any = None,
    columns: dict[str, str] | None = None,
) -> MetricInterval:
    """Bootstrap confidence interval of a metric on one test set.

    The test rows are resampled with replacement and the metric recomputed on each resample
    by :func:`scipy.stats.bootstrap`, which forms the interval (BCa by default).  The
    interval describes how much the metric would move with another test set of the same
    size from the same population; it does not cover the variability due to training.

    Parameters
    ----------
    y_true : array_like of shape (n,)
        True labels (or targets for regression metrics).
    y_pred_or_score : array_like of shape (n,) or (n, n_classes)
        Predicted labels, or scores/probabilities for score metrics such as
        ``"roc_auc"``.
    metric : str or callable, default "roc_auc"
        A scikit-learn metric name (``"accuracy"``, ``"f1"``, ``"f1_macro"``, ``"precision"``,
        ``"specificity"``, ``"r2"``, ``"rmse"``, a function name of :mod:`sklearn.metrics`...)
        or a callable ``f(y_true, y_pred)``.
    method : {"bca", "percentile", "basic"}, default "bca"
        scipy's interval method.  BCa is refused above ``BCA_MAX_ROWS`` rows
        (its jackknife needs one evaluation per row).
    n_resamples : int, default 2000
    confidence_level : float, default 0.95
    stratify : bool, default False
        Resample within each class so every resample keeps the class counts
        (recommended for rare classes and for AUC on small test sets).
    threshold : float, optional
        Turn scores into labels (``score >= threshold`` is ``pos_label``) for
        label metrics.
    pos_label : default 1
        Positive class for binary precision/recall/F1/specificity, and the
        label given to scores ``>= threshold``; with ``threshold`` it must be
        one of the labels of ``y_true`` (pass e.g. ``pos_label="yes"`` for
        text labels).
    random_state : int or Generator, optional
    columns : dict, optional
        ``{"label", "score"}`` names of a Spark DataFrame ``y_true`` (Poisson bootstrap in Spark).

    Returns
    -------
    MetricInterval

    Raises
    ------
    ValueError
        For empty or mismatched arrays, NaN scores, a single class for a score metric, scores
        passed to a label metric without ``threshold``, or a metric undefined on some resamples.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> score = y + rng.normal(0, 1, 200)
    >>> ci = bootstrap_metric(y, score, "roc_auc", n_resamples=500, random_state=0)
    >>> bool(ci.low < ci.estimate < ci.high), ci.metric, ci.method
    (True, 'roc_auc', 'bca')
    """
    method = check_bootstrap_args(method, n_resamples, confidence_level)
    spec = resolve_metric(metric, pos_label=pos_label)
    if is_spark_frame(y_true):  # in Spark: bayescomp.metrics.spark
        return spark_bootstrap(
            y_true,
            spec,
            method,
            n_resamples,
            confidence_level,
            threshold,
            pos_label,
            random_state,
            dict(columns or {}),
        )
    yt, yp = check_predictions(
        y_true,
        y_pred_or_score,
        spec,
        threshold=threshold,
        pos_label=pos_label,
        name="y_pred_or_score",
    )
    estimate = _estimate(spec, yt, yp)
    samples = index_samples(yt, stratify)

    def rows(r: np.ndarray) -> np.ndarray:
        return spec.batch_rows(yt, yp, r)[None, :]

    res = run_scipy_bootstrap(
        samples,
        rows,
        yt.shape[0],
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
    )
    return finish_interval(
        res,
        0,
        name=spec.name,
        estimate=estimate,
        method=method,
        n=yt.shape[0],
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        higher_is_better=spec.higher_is_better,
    )
