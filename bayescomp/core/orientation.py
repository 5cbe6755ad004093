"""Which metrics are "higher is better"?  Used to orient differences automatically.

Every scikit-learn *scorer* name (``get_scorer_names()``) is higher-is-better by
construction (losses are negated: ``neg_mean_squared_error``).  Plain metric names
used in score tables from other tools are listed explicitly; anything else is
unknown, and callers must say which way it points.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from bayescomp.core.metric import ALIASES, ANY, AVERAGES, METRICS, base_record, metric_record

#: a plain loss name and the scikit-learn scorer that reports it negated: a fit scored on
#: the plain name records the positive loss (lower is better), as ``interval`` reports it
LOSS_SCORERS: dict[str, str] = {m.name: m.scorer for m in METRICS.values() if m.scorer}


def canonical_metric(name: str) -> str:
    """The canonical name of a metric: ``"auc"`` -> ``"roc_auc"`` (the aliases of
    :data:`bayescomp.core.metric.METRICS`); any other name is returned unchanged (stripped).

    Examples
    --------
    >>> canonical_metric("auc"), canonical_metric(" accuracy "), canonical_metric("rmse")
    ('roc_auc', 'accuracy', 'rmse')
    """
    key = str(name).strip()
    return ALIASES.get(key.lower(), key)


def metric_bounds(metric: str | None) -> tuple[float, float]:
    """The range a metric's value can take: ``(0, 1)`` for proportions and AUCs,
    ``(-1, 1)`` for correlations (MCC, Cohen's kappa), ``(-inf, 1)`` for R² and
    explained variance, ``(0, inf)`` for the registered losses, errors and timings
    (lower is better), ``(-inf, inf)`` for anything else (unknown names): the ``bounds`` of
    :data:`bayescomp.core.metric.METRICS`.

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
    if metric is None:
        return ANY
    key = canonical_metric(metric).lower()
    if key.startswith("neg_"):
        lo, hi = metric_bounds(key[4:])
        return -hi, 0.0 - lo  # 0.0 - 0.0 is 0.0, not -0.0
    record = metric_record(key) or base_record(key)[0]
    return record.bounds if record is not None else ANY


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
    if key in _scorer_names():
        return True
    record = metric_record(key)
    if record is not None and record.higher_is_better is not None:
        return record.higher_is_better
    if key.startswith("neg_"):  # a negated loss, scikit-learn's convention
        return True
    for suffix in (*AVERAGES, "_ovr", "_ovo"):
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
