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
        "error", "error_rate", "zero_one_loss", "hamming_loss", "log_loss", "brier_score_loss",
        "brier", "mse", "mean_squared_error", "rmse", "root_mean_squared_error", "mae",
        "mean_absolute_error", "median_absolute_error", "max_error", "mape",
        "mean_absolute_percentage_error", "mean_squared_log_error", "msle",
        "root_mean_squared_log_error", "mean_poisson_deviance", "mean_gamma_deviance",
        "mean_tweedie_deviance", "mean_pinball_loss", "fpr", "fnr", "false_positive_rate",
        "false_negative_rate", "fit_time", "score_time", "runtime", "latency",
        # OpenML evaluation measures
        "relative_absolute_error", "root_relative_squared_error", "mean_prior_absolute_error",
    }
)
HIGHER_IS_BETTER = frozenset(
    {
        "accuracy", "balanced_accuracy", "roc_auc", "auc", "average_precision", "precision",
        "recall", "f1", "fbeta", "f_beta", "r2", "explained_variance", "matthews_corrcoef",
        "mcc", "cohen_kappa", "jaccard", "tpr", "tnr", "sensitivity", "specificity",
        "true_positive_rate", "true_negative_rate", "top_k_accuracy", "d2_absolute_error_score",
        "precision_at_k", "recall_at_k", "ndcg", "map", "score", "ppv", "npv", "f2", "f0.5",
        "precision_at_k_unlabeled", "recall_at_k_unlabeled", "f1_at_k",
        # OpenML evaluation measures
        "predictive_accuracy", "area_under_roc_curve", "f_measure", "kappa",
    }
)


#: the one table of metric aliases, shared by every command and function that takes a
#: metric name (a scikit-learn scorer for fits, a metric function for intervals): each
#: alias means the same metric, pointing the same way, as the name it maps to
METRIC_ALIASES: dict[str, str] = {
    "auc": "roc_auc", "roc_auc_score": "roc_auc", "accuracy_score": "accuracy",
    "balanced_accuracy_score": "balanced_accuracy", "f1_score": "f1",
    "precision_score": "precision", "recall_score": "recall", "r2_score": "r2",
    "average_precision_score": "average_precision", "ap": "average_precision",
    "mcc": "matthews_corrcoef",
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
        "accuracy", "balanced_accuracy", "roc_auc", "average_precision", "precision", "recall",
        "f1", "fbeta", "f_beta", "f2", "f0.5", "jaccard", "tpr", "tnr", "fpr", "fnr",
        "sensitivity", "specificity", "true_positive_rate", "true_negative_rate",
        "false_positive_rate", "false_negative_rate", "top_k_accuracy", "precision_at_k",
        "recall_at_k", "f1_at_k", "ppv", "npv", "error", "error_rate", "zero_one_loss",
        "hamming_loss", "brier_score_loss", "brier",
    }
)


def metric_bounds(metric: str | None) -> tuple[float, float]:
    """The range a metric's value can take: ``(0, 1)`` for proportions and AUCs,
    ``(-1, 1)`` for correlations (MCC, Cohen's kappa), ``(-inf, 1)`` for R² and
    explained variance, ``(-inf, inf)`` for anything else (losses, unknown names).

    Negated scorers (``neg_brier_score``) get the mirrored range.

    Examples
    --------
    >>> metric_bounds("auc"), metric_bounds("f1_macro"), metric_bounds("r2")
    ((0.0, 1.0), (0.0, 1.0), (-inf, 1.0))
    >>> metric_bounds("neg_brier_score"), metric_bounds("rmse")
    ((-1.0, 0.0), (-inf, inf))
    """
    inf = float("inf")
    if metric is None:
        return -inf, inf
    key = canonical_metric(metric).lower()
    if key.startswith("neg_"):
        lo, hi = metric_bounds(key[4:])
        return -hi, 0.0 - lo  # 0.0 - 0.0 is 0.0, not -0.0
    for suffix in ("_micro", "_macro", "_weighted", "_samples", "_ovr", "_ovo", "_binary",
                   "_ovr_weighted", "_ovo_weighted", "_score"):
        if key.endswith(suffix) and key[: -len(suffix)] in UNIT_INTERVAL | {"roc_auc"}:
            key = key[: -len(suffix)]
    if key in UNIT_INTERVAL:
        return 0.0, 1.0
    if key in ("matthews_corrcoef", "mcc", "cohen_kappa", "cohen_kappa_score"):
        return -1.0, 1.0
    if key in ("r2", "explained_variance", "d2_absolute_error_score"):
        return -inf, 1.0
    return -inf, inf


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
    if higher_is_better is not None:
        return bool(higher_is_better)
    return _registry(metric)


def _registry(metric: str | None) -> bool:
    # resolve_direction's argument shadows the module-level function
    return higher_is_better(metric)


def higher_is_better(metric: str) -> bool:
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
