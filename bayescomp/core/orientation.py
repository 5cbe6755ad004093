"""Which metrics are "higher is better"?  Used to orient differences automatically.

Every scikit-learn *scorer* name (``get_scorer_names()``) is higher-is-better by
construction (losses are negated: ``neg_mean_squared_error``).  Plain metric names
used in score tables from other tools are listed explicitly; anything else is
unknown, and callers must say which way it points.
"""

from __future__ import annotations

from functools import cache
from typing import Any

LOWER_IS_BETTER = frozenset(
    {
        "error",
        "error_rate",
        "zero_one_loss",
        "hamming_loss",
        "log_loss",
        "brier_score_loss",
        "brier",
        "mse",
        "mean_squared_error",
        "rmse",
        "root_mean_squared_error",
        "mae",
        "mean_absolute_error",
        "median_absolute_error",
        "max_error",
        "mape",
        "mean_absolute_percentage_error",
        "mean_squared_log_error",
        "msle",
        "root_mean_squared_log_error",
        "mean_poisson_deviance",
        "mean_gamma_deviance",
        "mean_tweedie_deviance",
        "mean_pinball_loss",
        "fpr",
        "fnr",
        "false_positive_rate",
        "false_negative_rate",
        "fit_time",
        "score_time",
        "runtime",
        "latency",
        # OpenML evaluation measures
        "relative_absolute_error",
        "root_relative_squared_error",
        "mean_prior_absolute_error",
    }
)
HIGHER_IS_BETTER = frozenset(
    {
        "accuracy",
        "balanced_accuracy",
        "roc_auc",
        "auc",
        "average_precision",
        "precision",
        "recall",
        "f1",
        "fbeta",
        "f_beta",
        "r2",
        "explained_variance",
        "matthews_corrcoef",
        "mcc",
        "cohen_kappa",
        "jaccard",
        "tpr",
        "tnr",
        "sensitivity",
        "specificity",
        "true_positive_rate",
        "true_negative_rate",
        "top_k_accuracy",
        "d2_absolute_error_score",
        "precision_at_k",
        "recall_at_k",
        "ndcg",
        "map",
        "score",
        "ppv",
        "npv",
        "f2",
        "f0.5",
        "precision_at_k_unlabeled",
        "recall_at_k_unlabeled",
        "f1_at_k",
        # OpenML evaluation measures
        "predictive_accuracy",
        "area_under_roc_curve",
        "f_measure",
        "kappa",
    }
)


#: the one table of metric aliases, shared by every command and function that takes a
#: metric name (a scikit-learn scorer for fits, a metric function for intervals): each
#: alias means the same metric, pointing the same way, as the name it maps to
METRIC_ALIASES: dict[str, str] = {
    "auc": "roc_auc",
    "roc_auc_score": "roc_auc",
    "accuracy_score": "accuracy",
    "balanced_accuracy_score": "balanced_accuracy",
    "f1_score": "f1",
    "precision_score": "precision",
    "recall_score": "recall",
    "r2_score": "r2",
    "average_precision_score": "average_precision",
    "ap": "average_precision",
    "mcc": "matthews_corrcoef",
}


#: a plain loss name and the scikit-learn scorer that reports it negated: a fit scored on
#: the plain name records the positive loss (lower is better), as ``interval`` reports it
LOSS_SCORERS: dict[str, str] = {
    "rmse": "neg_root_mean_squared_error",
    "root_mean_squared_error": "neg_root_mean_squared_error",
    "mse": "neg_mean_squared_error",
    "mean_squared_error": "neg_mean_squared_error",
    "mae": "neg_mean_absolute_error",
    "mean_absolute_error": "neg_mean_absolute_error",
    "median_absolute_error": "neg_median_absolute_error",
    "max_error": "neg_max_error",
    "mape": "neg_mean_absolute_percentage_error",
    "mean_absolute_percentage_error": "neg_mean_absolute_percentage_error",
    "msle": "neg_mean_squared_log_error",
    "mean_squared_log_error": "neg_mean_squared_log_error",
    "log_loss": "neg_log_loss",
    "brier_score_loss": "neg_brier_score",
    "brier": "neg_brier_score",
}


def canonical_metric(name: str) -> str:
    """The canonical name of a metric: ``"auc"`` -> ``"roc_auc"`` (see ``METRIC_ALIASES``);
    any other name is returned unchanged (stripped).

    Examples
    --------
    >>> canonical_metric("auc"), canonical_metric(" accuracy "), canonical_metric("rmse")
    ('roc_auc', 'accuracy', 'rmse')
    """
    key = str(name).strip()
    return METRIC_ALIASES.get(key.lower(), key)


#: metrics that are proportions (or areas under a curve of proportions): they lie in [0, 1]
UNIT_INTERVAL = frozenset(
    {
        "accuracy",
        "balanced_accuracy",
        "roc_auc",
        "average_precision",
        "precision",
        "recall",
        "f1",
        "fbeta",
        "f_beta",
        "f2",
        "f0.5",
        "jaccard",
        "tpr",
        "tnr",
        "fpr",
        "fnr",
        "sensitivity",
        "specificity",
        "true_positive_rate",
        "true_negative_rate",
        "false_positive_rate",
        "false_negative_rate",
        "top_k_accuracy",
        "precision_at_k",
        "recall_at_k",
        "f1_at_k",
        "ppv",
        "npv",
        "error",
        "error_rate",
        "zero_one_loss",
        "hamming_loss",
        "brier_score_loss",
        "brier",
    }
)


def metric_bounds(metric: str | None) -> tuple[float, float]:
    """The range a metric's value can take: ``(0, 1)`` for proportions and AUCs,
    ``(-1, 1)`` for correlations (MCC, Cohen's kappa), ``(-inf, 1)`` for R² and
    explained variance, ``(0, inf)`` for the registered losses, errors and timings
    (:data:`LOWER_IS_BETTER`), ``(-inf, inf)`` for anything else (unknown names).

    Negated scorers (``neg_brier_score``, ``neg_root_mean_squared_error``) get the
    mirrored range.

    Examples
    --------
    >>> metric_bounds("auc"), metric_bounds("f1_macro"), metric_bounds("r2")
    ((0.0, 1.0), (0.0, 1.0), (-inf, 1.0))
    >>> metric_bounds("neg_brier_score"), metric_bounds("rmse")
    ((-1.0, 0.0), (0.0, inf))
    >>> metric_bounds("neg_root_mean_squared_error"), metric_bounds("my_metric")
    ((-inf, 0.0), (-inf, inf))
    """
    inf = float("inf")
    if metric is None:
        return -inf, inf
    key = canonical_metric(metric).lower()
    if key.startswith("neg_"):
        lo, hi = metric_bounds(key[4:])
        return -hi, 0.0 - lo  # 0.0 - 0.0 is 0.0, not -0.0
    for suffix in (
        "_micro",
        "_macro",
        "_weighted",
        "_samples",
        "_ovr",
        "_ovo",
        "_binary",
        "_ovr_weighted",
        "_ovo_weighted",
        "_score",
    ):
        if key.endswith(suffix) and key[: -len(suffix)] in UNIT_INTERVAL | {"roc_auc"}:
            key = key[: -len(suffix)]
    if key in UNIT_INTERVAL:
        return 0.0, 1.0
    if key in ("matthews_corrcoef", "mcc", "cohen_kappa", "cohen_kappa_score"):
        return -1.0, 1.0
    if key in ("r2", "explained_variance", "d2_absolute_error_score"):
        return -inf, 1.0
    if key in LOWER_IS_BETTER:
        return 0.0, inf
    return -inf, inf


def clip_to_range(
    low: float, high: float, metric: str | None, *, difference: bool = False
) -> tuple[float, float, bool]:
    """An interval ``[low, high]`` clipped to the values ``metric`` can take.

    With ``difference=True`` the range is that of a difference of two such values
    (``[-1, 1]`` for accuracy).  Returns the bounds and whether anything was clipped:
    a symmetric interval (a t posterior, a basic bootstrap) can reach values no score can
    have (an accuracy of 1.005); clipping removes only impossible values.

    Examples
    --------
    >>> clip_to_range(0.97, 1.005, "accuracy")
    (0.97, 1.0, True)
    >>> clip_to_range(-2.98, 3.65, "accuracy", difference=True)
    (-1.0, 1.0, True)
    """
    lo, hi = metric_bounds(metric)
    if difference:
        width = hi - lo
        lo, hi = -width, width
    new_low, new_high = min(max(float(low), lo), hi), max(min(float(high), hi), lo)
    return new_low, new_high, (new_low, new_high) != (float(low), float(high))


def check_metric_range(values: Any, metric: str, *, where: str = "") -> None:
    """Refuse scores that contradict the registered range of ``metric``.

    A loss stored with scikit-learn's sign (``log_loss`` values that are negative, as a
    ``neg_log_loss`` scorer returns them) or an accuracy of 1.2 would silently reverse
    or distort a comparison; the message says which way the metric is oriented and how
    to name the column.  NaN cells are left to the callers that refuse them.

    Examples
    --------
    >>> check_metric_range([0.3, 0.4], "log_loss")
    >>> check_metric_range([-0.3, -0.4], "log_loss")
    Traceback (most recent call last):
    ...
    ValueError: 'log_loss' is a loss (lower is better, never negative) but holds negative values, e.g. -0.4; these look like scikit-learn's negated scorer: name the metric 'neg_log_loss' (higher is better), or negate the values
    """
    import numpy as np

    arr = np.asarray(values, dtype=float).ravel()
    arr = arr[np.isfinite(arr)]
    lo, hi = metric_bounds(metric)
    if arr.size == 0 or (arr.min() >= lo and arr.max() <= hi):
        return
    bad = float(arr[np.argmax(np.maximum(lo - arr, arr - hi))])
    key = canonical_metric(metric).lower()
    name = f"{metric!r}{where}"
    if lo == 0.0 and hi == inf_ and bad < 0:
        raise ValueError(
            f"{name} is a loss (lower is better, never negative) but holds negative values, "
            f"e.g. {bad:.4g}; these look like scikit-learn's negated scorer: name the metric "
            f"'neg_{key}' (higher is better), or negate the values"
        )
    if key.startswith("neg_") and hi == 0.0 and bad > 0:
        raise ValueError(
            f"{name} is a negated loss (higher is better, never positive) but holds positive "
            f"values, e.g. {bad:.4g}; these look like the loss itself: name the metric "
            f"{key[4:]!r} (lower is better), or negate the values"
        )
    direction = "higher" if higher_is_better(key) else "lower"
    raise ValueError(
        f"{name} lies in [{lo:g}, {hi:g}] ({direction} is better) but holds {bad:.4g}; fix "
        "the values (a percentage? divide by 100) or name the column after what it holds"
    )


inf_ = float("inf")


def check_metric_value(value: Any, metric: str, name: str) -> float:
    """``value`` as a float if ``metric`` can take it (finite, inside its range), else a
    ``ValueError`` naming the argument ``name``.

    Examples
    --------
    >>> check_metric_value(0.9, "accuracy", "estimate")
    0.9
    >>> check_metric_value(float("nan"), "accuracy", "estimate")
    Traceback (most recent call last):
    ...
    ValueError: estimate=nan is not a value 'accuracy' can take (a finite number in [0, 1]); pass the value the metric has on the full data, 'full' to compute it, or 'subsets'
    """
    lo, hi = metric_bounds(metric)
    v = float(value)
    if not (v == v and abs(v) != inf_ and lo <= v <= hi):
        raise ValueError(
            f"{name}={value!r} is not a value {metric!r} can take (a finite number "
            f"in [{lo:g}, {hi:g}]); pass the value the metric has on the full "
            "data, 'full' to compute it, or 'subsets'"
        )
    return v


@cache
def _scorer_names() -> frozenset[str]:
    from sklearn.metrics import get_scorer_names

    return frozenset(get_scorer_names())


def resolve_direction(metric: str | None, higher_is_better: bool | None = None) -> bool:
    """The orientation to use: ``higher_is_better`` when the caller says it, else the
    registry's answer for ``metric`` (see :func:`higher_is_better`).

    Examples
    --------
    >>> resolve_direction("rmse"), resolve_direction("rmse", True), resolve_direction(None, False)
    (False, True, False)
    """
    from bayescomp.core.checks import check_bool

    if higher_is_better is not None:
        return bool(check_bool(higher_is_better, "higher_is_better"))
    return _registry(metric)


def _registry(metric: str | None) -> bool:
    # resolve_direction's argument shadows the module-level function
    return higher_is_better(metric)


def higher_is_better(metric: str | None) -> bool:
    """Return whether larger values of ``metric`` are better.

    Raises ``ValueError`` for a metric that is neither a scikit-learn scorer nor a
    known metric name, asking the caller to state the direction.

    Examples
    --------
    >>> higher_is_better("roc_auc"), higher_is_better("neg_log_loss"), higher_is_better("rmse")
    (True, True, False)
    """
    key = str(metric).strip().lower()
    if key in _scorer_names() or key in HIGHER_IS_BETTER:
        return True
    if key in LOWER_IS_BETTER:
        return False
    if key.startswith("neg_"):  # a negated loss, scikit-learn's convention
        return True
    for suffix in ("_micro", "_macro", "_weighted", "_samples", "_ovr", "_ovo", "_binary"):
        if key.endswith(suffix):
            return higher_is_better(key[: -len(suffix)])
    raise ValueError(
        f"unknown metric {metric!r}: bayescomp cannot tell whether higher is better; "
        "pass higher_is_better=True or False explicitly"
    )


def difference_label(res: Any, sep: str = " − ") -> str:
    """``"candidate − baseline"``, or ``"baseline − candidate"`` for a lower-is-better
    metric: the differences bayescomp models are oriented so that positive means the
    candidate is better, and the label says which subtraction that is."""
    if getattr(res, "higher_is_better", True):
        return f"{res.candidate_name}{sep}{res.baseline_name}"
    return f"{res.baseline_name}{sep}{res.candidate_name}"
