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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from bayescomp.core.checks import check_bool, check_level, check_own_level
from bayescomp.core.deprecation import renamed_attribute
from bayescomp.core.exceptions import DegenerateBootstrapWarning
from bayescomp.core.jsonable import jsonable
from bayescomp.core.orientation import clip_to_range
from bayescomp.metrics._metric import MetricSpec, check_predictions, resolve_metric, safe_call
from bayescomp.metrics.spark import is_spark_frame, spark_bootstrap

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

Method = Literal["bca", "percentile", "basic"]
_SCIPY_METHOD = {"bca": "BCa", "percentile": "percentile", "basic": "basic"}
#: above this many rows BCa's jackknife (one metric evaluation per row) is refused
BCA_MAX_ROWS = 20_000


@dataclass(frozen=True)
class MetricInterval:
    """A confidence interval for one metric on one test set.

    Attributes
    ----------
    metric : str
        Metric name.
    estimate : float
        The metric on the test set as given.
    low, high : float
        Bounds of the interval with coverage ``confidence_level``, clipped to the
        range the metric can take (a basic interval can pass it: accuracy 1.005).
    standard_error : float
        Standard deviation of the bootstrap (or BLB) distribution.
    distribution : ndarray
        Metric values of the resamples (for BLB: of all resamples of all subsets).
    confidence_level : float
    method : str
        ``"bca"``, ``"percentile"``, ``"basic"`` or ``"blb"``.
    n : int
        Number of test rows.
    n_resamples : int
    """

    metric: str
    estimate: float
    low: float
    high: float
    standard_error: float
    distribution: np.ndarray = field(repr=False, compare=False)
    confidence_level: float = 0.95
    method: str = "bca"
    n: int = 0
    n_resamples: int = 0
    higher_is_better: bool | None = None

    def __post_init__(self) -> None:
        # a basic interval (2 * estimate - quantile) can pass the metric's range: clip it
        low, high, _ = clip_to_range(self.low, self.high, self.metric)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @property
    def width(self) -> float:
        """``high - low``."""
        return float(self.high - self.low)

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside ``[low, high]``."""
        return bool(self.low <= value <= self.high)

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        """One row: metric, estimate, bounds, standard error, method, sizes.

        The interval was computed at :attr:`confidence_level`; asking for another level
        raises (compute the interval again with that level).
        """
        import pandas as pd

        check_own_level(confidence_level, self.confidence_level, "interval")
        return pd.DataFrame(
            [
                {
                    "metric": self.metric,
                    "estimate": self.estimate,
                    "low": self.low,
                    "high": self.high,
                    "standard_error": self.standard_error,
                    "confidence_level": self.confidence_level,
                    "method": self.method,
                    "n": self.n,
                    "n_resamples": self.n_resamples,
                }
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """The summary's row, JSON-ready."""
        return jsonable(self.summary().iloc[0].to_dict())

    def _repr_html_(self) -> str:
        """Rich display in Jupyter: the interval in words, the summary, a small plot."""
        from bayescomp.report.notebook import result_html

        return result_html(self, reason=str(self))

    def plot(self, *, ax: Axes | None = None) -> Axes:
        """Histogram of the resampled metric with the estimate and the interval marked."""
        from bayescomp.report.metric_plots import plot_metric_interval

        return plot_metric_interval(self, ax=ax)

    def __str__(self) -> str:
        return (
            f"{self.metric} = {self.estimate:.4g}, {100 * self.confidence_level:g}% CI "
            f"[{self.low:.4g}, {self.high:.4g}] ({self.method}, n={self.n})"
        )


@dataclass(frozen=True)
class PairedMetricInterval:
    """Bootstrap of two models' metric on the *same* test rows, and of their difference.

    ``difference`` is ``candidate - baseline`` on the metric's own scale.
    ``share_resamples_better`` is the share of resamples in which the candidate was
    better (using the metric's direction; ties count one half) — a bootstrap
    proportion, not a posterior probability (its old name ``p_better`` is deprecated).
    """

    metric: str
    baseline: MetricInterval
    candidate: MetricInterval
    difference: MetricInterval
    share_resamples_better: float | None
    baseline_name: str = "baseline"
    candidate_name: str = "candidate"

    p_better = renamed_attribute("p_better", "share_resamples_better")

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        """Three rows: baseline, candidate and the difference."""
        import pandas as pd

        frame = pd.concat(
            [
                r.summary(confidence_level=confidence_level)
                for r in (self.baseline, self.candidate, self.difference)
            ],
            ignore_index=True,
        )
        frame.insert(
            0,
            "model",
            [
                self.baseline_name,
                self.candidate_name,
                f"{self.candidate_name} - {self.baseline_name}",
            ],
        )
        return frame

    def to_dict(self) -> dict[str, Any]:
        """The three rows of the summary and the share of resamples better, JSON-ready."""
        return jsonable(
            {
                "metric": self.metric,
                "baseline": self.baseline_name,
                "candidate": self.candidate_name,
                "share_resamples_better": self.share_resamples_better,
                "intervals": self.summary().to_dict("records"),
            }
        )

    def _repr_html_(self) -> str:
        """Rich display in Jupyter: the interval of the difference and a small plot."""
        from bayescomp.report.notebook import result_html

        return result_html(self, reason=str(self))

    def plot(self, *, ax: Axes | None = None) -> Axes:
        """Histogram of the bootstrap differences with zero and the interval marked."""
        from bayescomp.report.metric_plots import plot_paired_interval

        return plot_paired_interval(self, ax=ax)

    def __str__(self) -> str:
        share = self.share_resamples_better
        pb = "" if share is None else f", share of resamples better = {share:.3f}"
        return (
            f"{self.metric}: {self.candidate_name} - {self.baseline_name} = "
            f"{self.difference.estimate:+.4g}, {100 * self.difference.confidence_level:g}% CI "
            f"[{self.difference.low:+.4g}, {self.difference.high:+.4g}]{pb}"
        )


def check_bootstrap_args(method: str, n_resamples: int, confidence_level: float) -> str:
    key = str(method).lower()
    if key not in _SCIPY_METHOD:
        raise ValueError(f"method must be 'bca', 'percentile' or 'basic'; got {method!r}")
    if int(n_resamples) < 100:
        raise ValueError(
            f"n_resamples must be at least 100 for a usable interval (2000 or more is "
            f"typical); got {n_resamples}"
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
    difference: bool = False,
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
    # the basic interval (2 * estimate - quantile) can pass the metric's range: clip it
    low, high, _ = clip_to_range(low, high, name.removesuffix(" difference"), difference=difference)
    return MetricInterval(
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


def paired_bootstrap_metric(
    y_true: Any,
    baseline_pred: Any,
    candidate_pred: Any,
    metric: str | Callable[..., float] = "roc_auc",
    *,
    method: Method = "bca",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    stratify: bool = False,
    threshold: float | None = None,
    pos_label: Any = 1,
    higher_is_better: bool | None = None,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    random_state: Any = None,
) -> PairedMetricInterval:
    """Bootstrap of the metric difference of two models scored on the same test rows.

    .. deprecated::
        Use :func:`bayescomp.holdout_posterior` (``bayescomp compare --predictions``):
        the posterior of the same difference with ROPE regions, the decision rule,
        clusters and repeated samples.  This frequentist interval stays until a later
        release and warns (``FutureWarning``).

    Both models are evaluated on the *same* resampled rows, so the interval of
    ``candidate - baseline`` accounts for the correlation between them (it is
    usually much narrower than the two separate intervals suggest).

    Parameters
    ----------
    y_true : array_like of shape (n,)
    baseline_pred, candidate_pred : array_like
        Predictions (labels or scores, as the metric needs) of the two models.
    metric, method, n_resamples, confidence_level, stratify, threshold, pos_label, random_state
        As in :func:`bootstrap_metric`.
    higher_is_better : bool, optional
        Direction of the metric for ``share_resamples_better``; looked up in the
        registry when omitted (``None`` there leaves it unset).

    Returns
    -------
    PairedMetricInterval

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 300)
    >>> weak, strong = y + rng.normal(0, 2, 300), y + rng.normal(0, 0.7, 300)
    >>> import warnings; warnings.simplefilter("ignore", FutureWarning)
    >>> res = paired_bootstrap_metric(y, weak, strong, "roc_auc", n_resamples=500,
    ...                               random_state=0)
    >>> bool(res.difference.low > 0), res.share_resamples_better > 0.99
    (True, True)
    """
    warnings.warn(
        "paired_bootstrap_metric is deprecated and will be removed: compare two models on one "
        "test set with bayescomp.holdout_posterior(y_true, baseline_pred, candidate_pred, "
        "metric=..., rope=...) (command line: bayescomp compare --predictions), which decides "
        "by the ROPE rule and handles clusters and repeated samples",
        FutureWarning,
        stacklevel=2,
    )
    method = check_bootstrap_args(method, n_resamples, confidence_level)
    check_bool(higher_is_better, "higher_is_better", optional=True)
    spec = resolve_metric(metric, pos_label=pos_label)
    yt, yb = check_predictions(
        y_true, baseline_pred, spec, threshold=threshold, pos_label=pos_label, name="baseline_pred"
    )
    _, yc = check_predictions(
        y_true,
        candidate_pred,
        spec,
        threshold=threshold,
        pos_label=pos_label,
        name="candidate_pred",
    )
    est_b, est_c = _estimate(spec, yt, yb), _estimate(spec, yt, yc)
    samples = index_samples(yt, stratify)

    def rows(r: np.ndarray) -> np.ndarray:
        b = spec.batch_rows(yt, yb, r)
        c = spec.batch_rows(yt, yc, r)
        return np.stack([b, c, c - b])

    res = run_scipy_bootstrap(
        samples,
        rows,
        yt.shape[0],
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
    )
    direction = spec.higher_is_better if higher_is_better is None else bool(higher_is_better)
    common = dict(
        method=method,
        n=yt.shape[0],
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        higher_is_better=direction,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateBootstrapWarning)
        base = finish_interval(res, 0, name=spec.name, estimate=est_b, **common)
        cand = finish_interval(res, 1, name=spec.name, estimate=est_c, **common)
    diff = finish_interval(
        res, 2, name=f"{spec.name} difference", estimate=est_c - est_b, difference=True, **common
    )
    share = None
    if direction is not None:
        d = diff.distribution if direction else -diff.distribution
        share = float(np.mean(d > 0) + 0.5 * np.mean(d == 0))
    return PairedMetricInterval(
        metric=spec.name,
        baseline=base,
        candidate=cand,
        difference=diff,
        share_resamples_better=share,
        baseline_name=baseline_name,
        candidate_name=candidate_name,
    )
