"""Per-row scores of the metrics that are means of items (accuracy, error rate, log loss,
Brier, squared and absolute error), and the checks of the predictions they are computed
from: the one place a row's score is computed, for one test set (``posterior/holdout_data.py``)
and for cross-validation's out-of-fold rows (``scores/crossval.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from bayescomp.core.metric import METRICS

#: per-item scores of metrics that are means of items: name -> (score(y, pred), needs y_true)
_EPS = float(np.finfo(float).eps)  # scikit-learn's log_loss clip


def _labels(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Predicted labels comparable with ``y``: no missing values, of ``y``'s kind.

    A label that is NaN, inf, text among numeric labels (or a number among text labels)
    would count as a silent wrong prediction.
    """
    complete(p, "predicted labels")
    numeric_y = y.dtype.kind in "biuf"
    if numeric_y:
        try:
            q = np.asarray(p, dtype=float)
        except (TypeError, ValueError):
            q = None
        if q is None or p.dtype.kind not in "biuf":
            raise ValueError(
                f"y_true holds numbers but the predicted labels are not numbers (values "
                f"like {p.ravel()[:3].tolist()}); predict labels of y_true's kind"
            )
        if not np.all(np.isfinite(q)):
            raise ValueError("predicted labels contain inf; predict labels of y_true's kind")
        return q
    if not all(isinstance(v, str) for v in p.ravel()):
        raise ValueError(
            f"y_true holds text labels but the predictions are not all text (values like "
            f"{p.ravel()[:3].tolist()}); predict labels of y_true's kind"
        )
    return p


def _as_labels(y: np.ndarray, p: np.ndarray, threshold: float | None) -> np.ndarray:
    """Predictions a label metric can count: ``p >= threshold`` when a threshold is given;
    refused when they are fractions (probabilities, scores) but ``y`` holds whole labels."""
    if threshold is not None:
        binary_labels(y)
        return (numeric(p, "predictions") >= threshold).astype(float)
    if y.dtype.kind not in "biuf" or p.dtype.kind not in "biuf":
        return p
    q = np.asarray(p, dtype=float)
    fractions = np.isfinite(q) & (q != np.round(q))
    if not fractions.any() or np.any(np.asarray(y, dtype=float) != np.round(y)):
        return p
    seen = np.unique(q[fractions])[:3].round(4).tolist()
    if np.all((q >= 0) & (q <= 1)):
        raise ValueError(
            f"these look like probabilities (values like {seen}), not labels: a label "
            "metric would count a match only where a probability equals the label. Pass "
            "threshold=0.5 to predict 1 where p >= 0.5, or compare the scores with "
            "metric=roc_auc, log_loss or brier"
        )
    raise ValueError(
        f"y_true holds whole-number labels but the predictions hold fractions (values like "
        f"{seen}): predict labels, or compare the numbers with metric=mse or mae"
    )


def item_scores(metric: str, y: np.ndarray, p: Any, threshold: float | None = None) -> np.ndarray:
    """Per-row score of an item-wise ``metric`` (a key of :data:`ITEMWISE`): the one place
    a label metric's predictions are checked, and thresholded on request."""
    func = ITEMWISE[metric]
    p = np.asarray(p)
    if func in (_correct, _wrong):
        p = _as_labels(np.asarray(y), p, threshold)
    elif threshold is not None:
        raise ValueError(
            f"threshold= turns scores into labels for a label metric (accuracy, error_rate, "
            f"f1, precision, recall); {metric} uses the predictions as they are: drop it"
        )
    return func(y, p)


def _correct(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (y == _labels(y, p)).astype(float)


def _wrong(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (y != _labels(y, p)).astype(float)


def _log_loss(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """As scikit-learn's ``log_loss``: probabilities clipped to ``[eps, 1 - eps]``."""
    p = np.clip(_probabilities(p), _EPS, 1.0 - _EPS)
    return -np.log(np.where(binary_labels(y), p, 1.0 - p))


def _squared(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (numeric(p, "predictions") - numeric(y, "y_true")) ** 2


def _brier(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (_probabilities(p) - binary_labels(y).astype(float)) ** 2


def _absolute(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.abs(numeric(p, "predictions") - numeric(y, "y_true"))


#: each kind of per-item score (``core.metric.Metric.item``)
ITEM_SCORES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "hit": _correct,
    "miss": _wrong,
    "log": _log_loss,
    "squared_probability": _brier,
    "squared": _squared,
    "absolute": _absolute,
}
#: the metrics that are means of per-item scores, with their per-item score
ITEMWISE = {m.name: ITEM_SCORES[m.item] for m in METRICS.values() if m.item}
#: metrics that are not means of items: a weighted (Bayesian bootstrap) computation each
AGGREGATE = frozenset(m.name for m in METRICS.values() if m.weighted)


def numeric(x: np.ndarray, what: str) -> np.ndarray:
    try:
        out = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{what} must be numbers for this metric; got values like "
            f"{np.asarray(x).ravel()[:3].tolist()}"
        ) from None
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{what} contain NaN or inf; drop or fix those rows first")
    return out


def _probabilities(p: np.ndarray) -> np.ndarray:
    p = numeric(p, "predictions")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(
            "this metric needs predicted probabilities of the positive class in "
            "[0, 1]; pass probabilities, not labels or raw scores"
        )
    return p


def binary_labels(y: np.ndarray) -> np.ndarray:
    """``y_true`` as a boolean "positive" mask: labels {0, 1} or booleans."""
    y = np.asarray(y)
    values = set(np.unique(y).tolist())
    if not values <= {0, 1}:  # True == 1, False == 0
        raise ValueError(
            f"this metric needs y_true coded 0/1 (or True/False); got "
            f"labels {sorted(map(str, values))[:5]} — pass pos_label= (the positive class, "
            "e.g. pos_label='yes') or encode it as 1"
        )
    return y.astype(bool)


def complete(values: Any, what: str) -> np.ndarray:
    """``values`` as an array, refused when one is missing (NaN, None): a missing label
    would count as a wrong prediction, or as the negative class."""
    import pandas as pd

    arr = np.asarray(values)
    missing = int(pd.isna(pd.Series(arr.ravel(), dtype=object)).sum())
    if missing:
        raise ValueError(f"{what}: {missing} missing (NaN or None); drop or fix those rows first")
    return arr
