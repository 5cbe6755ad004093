"""Item-level predictions of two models on one test set, made ready for the posterior.

One row per item, or several rows per item (repeated generations, identified by ``item``):
the per-row score of an item-wise metric is averaged within its item (and the within-item
share of the variance recorded); for a metric that is not a mean of items (ROC AUC, F1,
precision, recall) the predictions themselves are averaged within the item.  Items may
belong to clusters (questions of one passage, rows of one customer); a cluster is the unit
the cluster Bayesian bootstrap resamples.

Validated once here, then trusted: NaN, mismatched lengths, a class missing, a label where a
probability belongs, an item spread across clusters all raise with what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescomp.core.item_scores import (
    AGGREGATE,
    ITEMWISE,
    binary_labels,
    complete,
    item_scores,
    numeric,
)
from bayescomp.core.metric import metric_record
from bayescomp.core.orientation import canonical_metric, resolve_direction


def positive_class(
    metric: str, pos_label: Any, y_true: Any, *predictions: Any, threshold: float | None = None
) -> tuple:
    """``y_true`` as 1 for ``pos_label`` and 0 for every other class, and the predicted
    labels of f1, precision and recall likewise; accuracy and error_rate count matching
    labels as they are (scikit-learn's ``accuracy_score``), so only a ``threshold`` (scores
    turned into 1 for ``pos_label``) makes them read ``y_true`` as 0/1."""
    y = complete(y_true, "y_true")
    if not np.any(y == pos_label):
        raise ValueError(
            f"pos_label={pos_label!r} is not a label of y_true (labels: "
            f"{sorted(map(str, np.unique(y)))[:5]}); name the positive class"
        )
    record = metric_record(metric)
    if threshold is None and record is not None and record.item in ("hit", "miss"):
        return (y, *predictions)
    labels = threshold is None and record is not None and record.needs == "labels"
    preds = [
        (complete(p, "predicted labels") == pos_label).astype(int) if labels else p
        for p in predictions
    ]
    return ((y == pos_label).astype(int), *preds)


@dataclass(frozen=True)
class Items:
    """Per-item data of one paired comparison.

    Attributes
    ----------
    kind : {"binary", "mean", "metric"}
        ``binary``: per-item 0/1 scores (Dirichlet–multinomial); ``mean``: any per-item
        score (Bayesian bootstrap of the mean); ``metric``: a metric of the whole set.
    baseline, candidate : ndarray
        Per-item scores (``binary``, ``mean``) or per-item predictions (``metric``).
    y_true : ndarray or None
        Per-item labels (``metric`` only).
    cluster : ndarray of int or None
        Cluster code of each item (0 .. n_clusters - 1).
    n_rows : int
        Rows before averaging within items.
    within_item_share : float or None
        Share of the variance of the per-row differences that lies within items (repeated
        samples only).
    """

    kind: str
    metric: str
    baseline: np.ndarray
    candidate: np.ndarray
    y_true: np.ndarray | None
    cluster: np.ndarray | None
    n_rows: int
    within_item_share: float | None

    @property
    def n_items(self) -> int:
        return int(self.baseline.shape[0])

    @property
    def n_clusters(self) -> int | None:
        return None if self.cluster is None else int(self.cluster.max()) + 1


def _codes(values: Any, n: int, what: str) -> np.ndarray:
    import pandas as pd

    arr = np.asarray(values)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{what} must have one entry per row ({n}); got shape {arr.shape}")
    if pd.isna(pd.Series(arr)).any():
        raise ValueError(f"{what} has missing values; give every row its {what} id")
    codes, _ = pd.factorize(pd.Series(arr), sort=True)
    return codes.astype(np.int64)


def _within_share(d: np.ndarray, item: np.ndarray, n_items: int) -> float | None:
    """Within-item share of the variance of per-row differences (one-way decomposition)."""
    counts = np.bincount(item, minlength=n_items)
    if counts.max() < 2:
        return None
    means = np.bincount(item, weights=d, minlength=n_items) / counts
    within = float(np.sum((d - means[item]) ** 2))
    total = float(np.sum((d - d.mean()) ** 2))
    return within / total if total > 0 else 0.0


def _per_item(values: np.ndarray, item: np.ndarray, n_items: int) -> np.ndarray:
    counts = np.bincount(item, minlength=n_items)
    return np.bincount(item, weights=values, minlength=n_items) / counts


def _constant_within(values: np.ndarray, item: np.ndarray, n_items: int, what: str) -> np.ndarray:
    """The one value each item has (its first row's); raise if an item has two."""
    first = np.full(n_items, -1)
    first[item[::-1]] = np.arange(item.size)[::-1]
    per_item = values[first]
    if np.any(per_item[item] != values):
        raise ValueError(
            f"{what} differs between rows of the same item; every repeated sample "
            f"of an item must share its {what}"
        )
    return per_item


def resolve(
    metric: str | None, y_true: Any, higher_is_better: bool | None, scores: Any = None
) -> tuple[str, bool]:
    """The canonical metric name and its direction (item scores given directly: ``score``).

    Per-item values without ``y_true`` need a direction: a metric name, or
    ``higher_is_better``.  A ``neg_*`` name says the values are negated losses, so positive
    values given under it (``scores``, the model columns) are refused.
    """
    if metric is None:
        if y_true is not None:
            raise ValueError(
                "metric is missing: name it (accuracy, log_loss, mse, roc_auc, f1, "
                "...); without y_true the columns are per-item scores"
            )
        if higher_is_better is None:
            raise ValueError(
                "per-item scores without a metric name have no direction: say whether higher "
                "is better with higher_is_better=True or False (a score or grade: higher; a "
                "loss: lower), or name the metric with metric= (accuracy, log_loss, mse, ...)"
            )
        return "score", bool(higher_is_better)
    name = canonical_metric(metric)
    if y_true is not None and name not in ITEMWISE and name not in AGGREGATE:
        raise ValueError(
            f"metric {metric!r} is neither a mean of per-item scores ({sorted(ITEMWISE)}) nor "
            f"one of {sorted(AGGREGATE)}; compute the per-item scores yourself and pass them "
            "without y_true"
        )
    negated = y_true is None and str(metric).lower().startswith("neg_")
    if negated and any(np.max(numeric(v, "per-item scores")) > 0 for v in scores or ()):
        raise ValueError(
            f"metric {metric!r} names negated losses (higher is better), but the per-item "
            f"values include positive ones: pass the losses as they are with "
            f"metric={str(metric)[4:]}, or negate them"
        )
    return name, resolve_direction(name, higher_is_better)


def _same_index(**given: Any) -> None:
    """Refuse pandas inputs whose indexes differ: they would be paired by position."""
    import pandas as pd

    indexed = {k: v.index for k, v in given.items() if isinstance(v, pd.Series | pd.DataFrame)}
    first = next(iter(indexed), None)
    for k, index in indexed.items():
        if not index.equals(indexed[first]):
            raise ValueError(
                f"{first} and {k} are pandas objects with different indexes, so their rows "
                f"would be paired by position, not by index: align them first (e.g. "
                f"{k}.reindex({first}.index)) or pass arrays in one row order"
            )


def _check_rows(y_true: Any, baseline: Any, candidate: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    b, c = np.asarray(baseline), np.asarray(candidate)
    if b.ndim != 1 or c.ndim != 1 or b.shape != c.shape:
        raise ValueError(
            f"baseline and candidate need one prediction per row; got shapes "
            f"{b.shape} and {c.shape}"
        )
    if b.size < 2:
        raise ValueError(f"a comparison needs at least 2 items; got {b.size}")
    yt = None
    if y_true is not None:
        yt = np.asarray(y_true)
        if yt.shape != b.shape:
            raise ValueError(
                f"y_true has {yt.shape[0] if yt.ndim else 0} rows but the "
                f"predictions have {b.size}; pass the same rows in the same order"
            )
        complete(yt, "y_true")
    return yt, b, c


def _aggregate_predictions(
    name: str, yt: np.ndarray, b: np.ndarray, c: np.ndarray, threshold: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pos = binary_labels(yt)
    b, c = numeric(b, "baseline predictions"), numeric(c, "candidate predictions")
    if pos.all() or not pos.any():
        raise ValueError(f"{name} needs both classes in y_true; it holds only one")
    if name == "roc_auc" and threshold is not None:
        raise ValueError("threshold= turns scores into labels; roc_auc ranks the scores: drop it")
    if name != "roc_auc":
        if threshold is not None:
            b, c = (b >= threshold).astype(float), (c >= threshold).astype(float)
        elif not (set(np.unique(b)) | set(np.unique(c))) <= {0.0, 1.0}:
            raise ValueError(
                f"{name} needs predicted labels 0/1; these look like scores — "
                "pass threshold= to turn them into labels"
            )
    return pos, b, c


def prepare(
    y_true: Any,
    baseline: Any,
    candidate: Any,
    *,
    metric: str,
    item: Any = None,
    cluster: Any = None,
    threshold: float | None = None,
) -> Items:
    """Validate the rows and reduce them to one entry per item (see :class:`Items`)."""
    _same_index(y_true=y_true, baseline=baseline, candidate=candidate, cluster=cluster, item=item)
    yt, b, c = _check_rows(y_true, baseline, candidate)
    n = b.size
    item_codes = np.arange(n) if item is None else _codes(item, n, "item")
    n_items = int(item_codes.max()) + 1
    clusters = None
    if cluster is not None:
        clusters = _constant_within(_codes(cluster, n, "cluster"), item_codes, n_items, "cluster")
        clusters = np.unique(clusters, return_inverse=True)[1].astype(np.int64)
    if item is not None and yt is not None:
        _constant_within(_codes(yt, n, "y_true"), item_codes, n_items, "y_true")
    if metric in AGGREGATE or (yt is not None and metric not in ITEMWISE):
        if yt is None:
            raise ValueError(f"{metric} is computed from y_true and the predictions; pass y_true")
        pos, pb, pc = _aggregate_predictions(metric, yt, b, c, threshold)
        share = _within_share(pc - pb, item_codes, n_items) if item is not None else None
        pos_item = _constant_within(pos, item_codes, n_items, "y_true")
        return Items(
            "metric",
            metric,
            _per_item(pb, item_codes, n_items),
            _per_item(pc, item_codes, n_items),
            pos_item,
            clusters,
            n,
            share,
        )
    if yt is None:
        sb, sc = numeric(b, "baseline scores"), numeric(c, "candidate scores")
    else:
        sb, sc = item_scores(metric, yt, b, threshold), item_scores(metric, yt, c, threshold)
    share = _within_share(sc - sb, item_codes, n_items) if item is not None else None
    sb, sc = _per_item(sb, item_codes, n_items), _per_item(sc, item_codes, n_items)
    binary = bool(np.all((sb == 0) | (sb == 1)) and np.all((sc == 0) | (sc == 1)))
    return Items("binary" if binary else "mean", metric, sb, sc, None, clusters, n, share)


def item_kind(metric: str) -> str:
    """The per-item score kind of ``metric``'s record, or a one-line refusal."""
    record = metric_record(metric)
    if record is None or record.item is None:
        raise ValueError(
            f"metric {metric!r} has no per-item score, so no sequence of paired items can "
            "track it (ROC AUC ranks pairs of items: docs/live_promotion.md); watch a mean of "
            "items: accuracy, error_rate, brier, log_loss, mse or mae"
        )
    return record.item
