"""Resolve a metric name or callable to a scikit-learn function, and validate predictions.

Every formula is delegated to :mod:`sklearn.metrics`; this module only knows
which function a name refers to, which keyword arguments it needs (``average``,
``pos_label``, ``beta``), and whether it takes continuous scores or labels.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bayescomp.core.metric import (
    AVERAGES,
    METRICS,
    MULTICLASS,
    base_record,
    function_needs,
    metric_record,
)
from bayescomp.core.orientation import canonical_metric, higher_is_better
from bayescomp.metrics import _fast

#: the kind of a MetricSpec by what the metric needs (core.metric.Metric.needs)
_KIND = {"labels": "label", "scores": "score", "values": "regression"}


@dataclass(frozen=True)
class MetricSpec:
    """A resolved metric: ``func(y_true, y_pred, sample_weight=None) -> float``."""

    name: str
    func: Callable[..., float] = field(repr=False)
    kind: str  # "score", "label", "regression" or "any" (a user callable)
    higher_is_better: bool | None
    # the positive class of a binary task; a score metric on one-dimensional scores is
    # computed on ``y_true == pos_label`` (scikit-learn's AUC has no pos_label and takes the
    # larger label as positive, which inverts e.g. "fraud"/"ok" with a fraud probability)
    pos_label: Any = None

    def __call__(self, y_true: np.ndarray, y_pred: np.ndarray, sample_weight: Any = None) -> float:
        if sample_weight is None:
            return float(self.func(y_true, y_pred))
        return float(self.func(y_true, y_pred, sample_weight=sample_weight))

    @property
    def fast(self) -> str | None:
        """Name of a vectorised fast path (checked against scikit-learn in the tests)."""
        base = getattr(self.func, "__name__", "")
        if base == "roc_auc_score" and self.name in ("roc_auc", "auc"):
            return "roc_auc"
        if base == "accuracy_score":
            return "accuracy"
        if base == "zero_one_loss":
            return "error_rate"
        return None

    def batch_rows(self, y_true: np.ndarray, y_pred: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Metric on each resample ``y[rows[i]]``; rows has shape (B, n)."""
        fast = self.fast
        if fast is not None and y_pred.ndim == 1 and (fast != "roc_auc" or _binary(y_true)):
            if fast == "roc_auc":
                return _fast.auc_rows(self.positive_mask(y_true), y_pred, rows)
            hit = (y_true == y_pred)[rows]
            acc = hit.mean(axis=1)
            return acc if fast == "accuracy" else 1.0 - acc
        return np.array([safe_call(self, y_true[r], y_pred[r]) for r in rows])

    def batch_weights(
        self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray
    ) -> np.ndarray:
        """Metric of each frequency-weighted resample; weights has shape (r, b)."""
        fast = self.fast
        if fast is not None and y_pred.ndim == 1 and (fast != "roc_auc" or _binary(y_true)):
            if fast == "roc_auc":
                return _fast.auc_weighted(self.positive_mask(y_true), y_pred, weights)
            hit = (y_true == y_pred).astype(float)
            acc = weights @ hit / weights.sum(axis=1)
            return acc if fast == "accuracy" else 1.0 - acc
        return np.array([safe_call(self, y_true, y_pred, w) for w in weights])

    def positive_mask(self, y_true: np.ndarray) -> np.ndarray:
        """Boolean mask of the positive rows: ``y_true == pos_label``, or, where no positive
        class was named, scikit-learn's convention (the larger label is positive)."""
        if self.pos_label is not None:
            return y_true == self.pos_label
        return y_true == np.unique(y_true)[-1]


def _binary(y_true: np.ndarray) -> bool:
    return np.unique(y_true).size == 2


def _direction(name: str) -> bool | None:

    try:
        return higher_is_better(name)
    except ValueError:
        return None


def _wrap(fname: str, kwargs: dict[str, Any], positive: Any = None) -> Callable[..., float]:
    """``fname`` of sklearn.metrics with ``kwargs``; with ``positive`` (a binary score
    metric), one-dimensional scores are scored against ``y_true == positive``."""
    import sklearn
    import sklearn.metrics as skm

    base = getattr(skm, fname)
    kwargs = dict(kwargs)
    negative = kwargs.pop("_negative", False)

    def func(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
        kw = dict(kwargs)
        if sample_weight is not None:
            kw["sample_weight"] = sample_weight
        if positive is not None and np.ndim(y_pred) == 1:
            y_true = np.asarray(y_true) == positive
        if negative:
            labels = np.unique(y_true)
            pos = kw.pop("pos_label", 1)
            others = labels[labels != pos]
            if others.size == 0:
                # no actual negative in this (re)sample: TN / (TN + FP) is 0 / 0, undefined,
                # exactly like recall(pos_label=0) with zero_division=nan
                return np.nan
            if others.size != 1:
                raise ValueError(
                    f"specificity needs binary labels with positive class {pos!r}; "
                    f"y_true holds {labels.tolist()}"
                )
            kw["pos_label"] = others[0]
        with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
            return base(y_true, y_pred, **kw)

    func.__name__ = fname
    return func


def resolve_metric(
    metric: str | Callable[..., float], *, pos_label: Any = None, beta: float | None = None
) -> MetricSpec:
    """Turn a metric name (``"roc_auc"``, ``"f1_macro"``, ``"rmse"``, ``"precision_score"``)
    or a callable ``f(y_true, y_pred[, sample_weight])`` into a :class:`MetricSpec`."""
    if callable(metric):
        name = getattr(metric, "__name__", "metric")
        return MetricSpec(name, metric, "any", _direction(name))
    if not isinstance(metric, str) or not metric.strip():
        raise ValueError(
            f"metric must be a scikit-learn metric name (e.g. 'roc_auc', 'f1', 'rmse') or a "
            f"callable f(y_true, y_pred); got {metric!r}"
        )
    import sklearn.metrics as skm

    key = canonical_metric(metric).lower()
    kwargs: dict[str, Any] = {}
    base = key
    record, suffix = base_record(key)  # the variant: f1_macro, roc_auc_ovr_weighted
    if suffix in MULTICLASS and key.startswith("roc_auc"):
        base = "roc_auc"
        parts = suffix[1:].split("_")
        kwargs["multi_class"] = parts[0]
        kwargs["average"] = parts[1] if len(parts) > 1 else "macro"
    elif suffix in AVERAGES and record is not None and record.averaged:
        base, kwargs["average"] = key[: -len(suffix)], suffix[1:]
    if base.startswith("neg_"):
        raise ValueError(
            f"{metric!r} is a negated scikit-learn scorer name; pass the metric itself "
            f"(e.g. {base[4:]!r}); intervals are reported on the metric's own scale"
        )
    record = metric_record(base)
    if record is not None and record.function is not None:
        fname, kw = record.function, {**record.options, **kwargs}
        kind = _KIND[record.needs or "labels"]
    elif callable(getattr(skm, base, None)) or callable(getattr(skm, base + "_score", None)):
        fname = base if callable(getattr(skm, base, None)) else base + "_score"
        kw = kwargs
        kind = _KIND[function_needs(fname)]
    else:
        raise ValueError(
            f"unknown metric {metric!r}: use a scikit-learn metric name such as 'roc_auc', "
            "'accuracy', 'f1', 'precision', 'recall', 'specificity', 'r2', 'rmse', 'mae', a "
            "function name of sklearn.metrics, or pass a callable f(y_true, y_pred)"
        )
    if beta is not None and fname == "fbeta_score":
        kw["beta"] = float(beta)
    records = [m for m in METRICS.values() if m.function == fname]
    takes_pos = any(m.averaged for m in records)
    # a binary metric of one column of scores (scored against ``y_true == pos_label``)
    binary_score = any(m.binary_scores for m in records) and "multi_class" not in kw
    positive = None
    if pos_label is not None and "average" not in kw and (takes_pos or binary_score):
        positive = pos_label
        if takes_pos:
            kw["pos_label"] = pos_label
    direction = _direction(key)
    if direction is None:
        direction = _direction(base)
    func = _wrap(fname, kw, positive if binary_score else None)
    return MetricSpec(key, func, kind, direction, positive)


def check_no_missing_labels(y_true: Any, where: str = "y_true") -> None:
    """Raise a ValueError when ``y_true`` holds a missing label (NaN, None, NaT): it would
    silently count as a negative.

    Examples
    --------
    >>> check_no_missing_labels([0, 1, float("nan")], "repetition 0: y_true")
    Traceback (most recent call last):
    ...
    ValueError: repetition 0: y_true has 1 missing label (NaN/None), first at row 2; drop those rows or fill in their labels (a missing label is neither class)
    """
    import pandas as pd

    missing = np.flatnonzero(pd.isna(np.asarray(y_true, dtype=object).ravel()))
    if missing.size:
        s = "" if missing.size == 1 else "s"
        raise ValueError(
            f"{where} has {missing.size} missing label{s} (NaN/None), first at row "
            f"{missing[0]}; drop those rows or fill in their labels (a missing label is "
            "neither class)"
        )


def check_pos_label(
    y_true: Any, pos_label: Any, *, flag: str | None = None, single_class_ok: bool = False
) -> None:
    """Raise a ValueError when ``pos_label`` is not one of the labels in ``y_true``.

    ``flag`` names the command-line option to suggest (e.g. ``"--pos-label"``)
    instead of the ``pos_label=`` keyword.  With ``single_class_ok``, a test set
    holding a single class (e.g. only negatives) passes when ``pos_label`` is of
    the same kind (text or number) as that label.
    """
    labels = np.unique(np.asarray(y_true)).tolist()
    if pos_label in labels:
        return
    if (
        single_class_ok
        and len(labels) == 1
        and (isinstance(labels[0], str) == isinstance(pos_label, str))
    ):
        return
    example = labels[-1] if labels else 1
    fix = f"{flag} {example}" if flag else f"pos_label={example!r}"
    raise ValueError(
        f"pos_label={pos_label!r} is not among y_true's labels {labels}; pass "
        f"{flag or 'pos_label='} with the positive class (e.g. {fix})"
    )


def check_predictions(
    y_true: Any,
    y_pred: Any,
    spec: MetricSpec,
    *,
    threshold: float | None = None,
    pos_label: Any = 1,
    name: str = "y_pred",
) -> tuple[np.ndarray, np.ndarray]:
    """Validate a pair of prediction arrays for ``spec``; apply ``threshold`` if given."""
    for arr, nm in ((y_true, "y_true"), (y_pred, name)):
        if arr is None:
            raise TypeError(f"{nm} is None; pass one value per test row")
    yt = np.asarray(y_true)
    yp = np.asarray(y_pred)
    for arr, nm in ((yt, "y_true"), (yp, name)):
        missing = sum(v is None or v != v for v in arr.ravel()) if arr.dtype == object else 0
        if missing:
            raise ValueError(
                f"{nm} has {missing} missing value(s) (None/NaN); drop those rows first"
            )
    if spec.kind == "score":  # a pandas Series (a CSV column) is named by its own name
        numeric_scores(yp, getattr(y_pred, "name", None) or name)
    if threshold is not None and not (
        isinstance(threshold, (int, float, np.number)) and np.isfinite(threshold)
    ):
        raise ValueError(f"threshold must be a finite number (e.g. 0.5); got {threshold!r}")
    if yt.ndim != 1:
        raise ValueError(
            f"y_true must be one-dimensional (one label per row); got shape {yt.shape}"
        )
    if yt.size == 0:
        raise ValueError("y_true is empty: need at least one test row to evaluate a metric")
    if yp.shape[0] != yt.shape[0]:
        raise ValueError(
            f"y_true and {name} must have one entry per test row; got {yt.shape[0]} and "
            f"{yp.shape[0]} rows"
        )
    if yt.dtype.kind == "f" and not np.all(np.isfinite(yt)):
        raise ValueError("y_true contains NaN or inf; drop those rows first")
    if yp.dtype.kind in "fc" and not np.all(np.isfinite(yp)):
        bad = int(np.sum(~np.isfinite(yp)))
        raise ValueError(
            f"{name} contains {bad} NaN or inf value(s); a model that failed on some rows must "
            "be fixed, or those rows dropped for every model, before evaluating"
        )
    if threshold is not None:
        if yp.ndim != 1:
            raise ValueError("threshold applies to one-dimensional scores of the positive class")
        labels = np.unique(yt)
        neg = negative_label(labels, pos_label)
        check_pos_label(labels, pos_label, single_class_ok=True)
        yp = np.where(yp >= threshold, pos_label, neg).astype(yt.dtype, copy=False)
    if (
        spec.kind == "label"
        and yp.dtype.kind == "f"
        and yp.ndim == 1
        and not np.all(yp == np.round(yp))
    ):
        raise ValueError(
            f"metric {spec.name!r} compares predicted labels, but {name} holds continuous "
            "scores; pass threshold=0.5 (or another cut-off) to turn scores into labels, or "
            "use a score metric such as 'roc_auc'"
        )
    if spec.pos_label is not None and yp.ndim == 1:  # two classes, pos_label one of them
        _refuse_multiclass(spec, np.unique(yt))  # (text labels with pos_label=1: wrong class)
        check_pos_label(yt, spec.pos_label, single_class_ok=True)
    if spec.kind == "score" and yt.size and np.unique(yt).size < 2:
        raise ValueError(
            f"metric {spec.name!r} needs both classes in y_true, but y_true holds only "
            f"{np.unique(yt).tolist()}; it is undefined on a single-class test set"
        )
    return yt, yp


def negative_label(labels: np.ndarray, pos_label: Any) -> Any:
    """The label of a score below the threshold: the class of ``labels`` (``y_true``'s) other
    than ``pos_label``, or where there is none 0 (1 when ``pos_label`` is 0); more than two
    classes are refused."""
    if labels.size > 2:
        raise ValueError(
            f"threshold turns scores into binary labels but y_true has {labels.size} classes"
        )
    others = labels[labels != pos_label]
    return others[0] if others.size else (0 if pos_label != 0 else 1)


def numeric_scores(values: Any, name: Any) -> np.ndarray:
    """``values`` as floats; text (even ``"0.9"``) is refused, naming the column."""
    from bayescomp.core.exceptions import InvalidArgumentError

    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise InvalidArgumentError(
            str(name),
            f"column {str(name)!r} is text; scores must be numbers (the model's scores or "
            "probabilities of the positive class)",
        )
    return arr.astype(float, copy=False)


def _refuse_multiclass(spec: MetricSpec, labels: np.ndarray) -> None:
    """A two-class metric on one column of predictions, with more classes in ``y_true``:
    scoring "class pos_label against the rest" silently would answer another question."""
    if labels.size <= 2:
        return
    many = (
        "one probability column per class with 'roc_auc_ovr' or 'roc_auc_ovo'"
        if spec.kind == "score"
        else f"a multiclass average such as '{spec.name}_macro' or '{spec.name}_weighted'"
    )
    raise ValueError(
        f"metric {spec.name!r} compares two classes, but y_true holds {labels.size} classes "
        f"{labels.tolist()[:10]}; to score one class against the rest make y_true binary "
        f"(y_true == that class) and name it with pos_label= (CLI: --pos-label), or use {many}"
    )


def safe_call(
    spec: MetricSpec, y_true: np.ndarray, y_pred: np.ndarray, weight: Any = None
) -> float:
    """Call the metric on a resample, mapping "undefined on this resample" to NaN."""
    with warnings.catch_warnings(action="ignore"):
        try:
            return spec(y_true, y_pred, weight)
        except ValueError as exc:
            msg = str(exc)
            if (
                "only one class" in msg.lower()
                or "one class" in msg.lower()
                or "not defined" in msg
            ):
                return np.nan
            raise
