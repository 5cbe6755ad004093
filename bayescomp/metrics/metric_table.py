"""Classic confusion-matrix and regression metrics in one table, each with an interval.

Every formula is scikit-learn's; all metrics share one set of bootstrap
resamples (one :func:`scipy.stats.bootstrap` call with a vector statistic), so
the intervals are mutually consistent.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from bayescomp.core.checks import check_no_missing, check_number
from bayescomp.core.metric import metric_record, shown
from bayescomp.metrics._metric import MetricSpec, check_predictions, resolve_metric, safe_call
from bayescomp.metrics.bootstrap import (
    DegenerateBootstrapWarning,
    check_bootstrap_args,
    finish_interval,
    index_samples,
    run_scipy_bootstrap,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def _infer_task(y_true: np.ndarray, y_pred: np.ndarray) -> str:
    if y_pred.dtype.kind == "f" and not np.all(y_pred == np.round(y_pred)):
        return "regression"
    if y_true.dtype.kind == "f" and np.unique(y_true).size > max(20, 0.2 * y_true.size):
        return "regression"
    return "classification"


def metric_table(
    y_true: Any,
    y_pred: Any,
    *,
    y_score: Any = None,
    task: Literal["auto", "classification", "regression"] = "auto",
    metrics: Sequence[str] | None = None,
    beta: float = 2.0,
    pos_label: Any = 1,
    average: str = "macro",
    interval: bool = True,
    method: Literal["bca", "percentile", "basic"] = "percentile",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    stratify: bool = False,
    random_state: Any = None,
) -> pd.DataFrame:
    """Accuracy, error rate, TPR, TNR, precision, F1, F-beta (or R², MSE, RMSE, MAE) with intervals.

    Parameters
    ----------
    y_true : array_like of shape (n,)
    y_pred : array_like of shape (n,)
        Predicted labels (classification) or values (regression).
    y_score : array_like of shape (n,), optional
        Scores of the positive class; adds ROC AUC and average precision.
    task : {"auto", "classification", "regression"}
    metrics : sequence of str, optional
        Metric names (any accepted by :func:`bayescomp.bootstrap_metric`);
        default: the classic set of the task.
    beta : float, default 2.0
        The F-beta weight.
    pos_label : default 1
        Positive class for binary classification.
    average : str, default "macro"
        Averaging of precision/recall/F for more than two classes
        (specificity is then left out).
    interval : bool, default True
        Bootstrap interval per metric (one shared set of resamples).
    method, n_resamples, confidence_level, stratify, random_state
        As in :func:`bayescomp.bootstrap_metric`.

    Returns
    -------
    DataFrame
        Indexed by metric: ``estimate``, ``low``, ``high``, ``standard_error``,
        ``higher_is_better``, ``sklearn`` (the function used) and ``note``
        (why an interval is missing, if it is).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1] * 30 + [0] * 970)
    >>> pred = np.array([1] * 9 + [0] * 21 + [1] * 14 + [0] * 956)
    >>> t = metric_table(y, pred, n_resamples=200, random_state=0)
    >>> t.loc[["precision (PPV)", "recall (TPR, sensitivity)"], "estimate"].round(4).tolist()
    [0.3913, 0.3]
    >>> t.loc[["specificity (TNR)", "accuracy"], "estimate"].round(4).tolist()
    [0.9856, 0.965]
    """
    for values, name in ((y_true, "y_true"), (y_pred, "y_pred")):
        if values is not None:
            check_no_missing(values, name, "a label")
    check_number(
        beta,
        "beta",
        min_val=0,
        include_boundaries="neither",
        advice="it weighs recall in F-beta, e.g. 2.0 or 0.5",
    )
    yt = np.asarray(y_true)
    yp = np.asarray(y_pred)
    task, multiclass = _resolve_task(task, yt, yp)
    if interval:
        method = check_bootstrap_args(method, n_resamples, confidence_level)
    names = _metric_names(metrics, task, multiclass, y_score)
    specs, preds, labels, yt = _resolve_specs(
        names,
        yt,
        yp,
        y_score,
        multiclass=multiclass,
        average=average,
        pos_label=pos_label,
        beta=beta,
    )
    estimates = [safe_call(s, yt, p) for s, p in zip(specs, preds, strict=True)]
    frame = _point_table(specs, labels, estimates)
    frame.attrs.update(task=task, n=int(yt.shape[0]), interval=interval)
    if not interval:
        return frame
    _add_intervals(
        frame,
        specs,
        preds,
        estimates,
        yt,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        stratify=stratify,
        random_state=random_state,
        beta=beta,
    )
    frame.attrs.update(
        method=method, n_resamples=int(n_resamples), confidence_level=float(confidence_level)
    )
    return frame


def _resolve_task(task: str, yt: np.ndarray, yp: np.ndarray) -> tuple[str, bool]:
    """The task (inferred when ``"auto"``) and whether it is multiclass classification."""
    if task == "auto":
        task = _infer_task(yt, yp) if yp.size else "classification"
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'auto', 'classification' or 'regression'; got {task!r}")
    return task, task == "classification" and np.unique(yt).size > 2


def _metric_names(
    metrics: Sequence[str] | None, task: str, multiclass: bool, y_score: Any
) -> list[str]:
    """The metrics asked for, or the classic set of the task."""
    if metrics is not None:
        names = [str(m) for m in metrics]
        if not names:
            raise ValueError("metrics is empty; name at least one metric")
        return names
    names = shown("values" if task == "regression" else "labels")
    if multiclass:
        names.remove("specificity")
    if y_score is not None and task == "classification" and not multiclass:
        names.extend(shown("scores"))
    return names


def _resolve_specs(
    names: list[str],
    yt: np.ndarray,
    yp: np.ndarray,
    y_score: Any,
    *,
    multiclass: bool,
    average: str,
    pos_label: Any,
    beta: float,
) -> tuple[list[MetricSpec], list[np.ndarray], list[str], np.ndarray]:
    """Each metric's spec, checked predictions and row label; and the checked ``y_true``."""
    specs, preds, labels = [], [], []
    for name in names:
        key = name
        if multiclass and getattr(metric_record(name), "averaged", False):
            key = f"{name}_{average}"
        spec = resolve_metric(
            key,
            pos_label=None if multiclass else pos_label,
            beta=beta if name.startswith("fbeta") else None,
        )
        if spec.kind == "score":
            if y_score is None:
                raise ValueError(f"metric {name!r} needs y_score (scores of the positive class)")
            _, pr = check_predictions(yt, y_score, spec, name="y_score")
        else:
            yt, pr = check_predictions(yt, yp, spec, name="y_pred")
        specs.append(spec)
        preds.append(pr)
        also = metric_record(name).also if metric_record(name) else ()
        label = f"{name} ({', '.join(also)})" if also else name
        if name.startswith("fbeta"):
            label = f"f_beta (beta={beta:g})"
        labels.append(label)
    return specs, preds, labels, yt


def _point_table(
    specs: list[MetricSpec], labels: list[str], estimates: list[float]
) -> pd.DataFrame:
    """The table of point estimates; interval columns empty, undefined metrics noted."""
    import pandas as pd

    frame = pd.DataFrame(
        {
            "estimate": estimates,
            "low": np.nan,
            "high": np.nan,
            "standard_error": np.nan,
            "higher_is_better": [s.higher_is_better for s in specs],
            "sklearn": [getattr(s.func, "__name__", s.name) for s in specs],
            "note": "",
        },
        index=pd.Index(labels, name="metric"),
    )
    for i, e in enumerate(estimates):
        if not np.isfinite(e):
            frame.iloc[i, frame.columns.get_loc("note")] = "undefined on this test set"
    return frame


def _add_intervals(
    frame: pd.DataFrame,
    specs: list[MetricSpec],
    preds: list[np.ndarray],
    estimates: list[float],
    yt: np.ndarray,
    *,
    method: str,
    n_resamples: int,
    confidence_level: float,
    stratify: bool,
    random_state: Any,
    beta: float = 2.0,
) -> None:
    """Fill ``low``, ``high`` and ``standard_error`` in place from one shared set of resamples."""
    samples = index_samples(yt, stratify)
    names = [str(label).split(" ")[0].removeprefix("f_beta") or "fbeta" for label in frame.index]

    def rows(r: np.ndarray) -> np.ndarray:
        return np.stack(
            [
                count_rows(name, s, yt, p, r, beta)
                for name, s, p in zip(names, specs, preds, strict=True)
            ]
        )

    res = run_scipy_bootstrap(
        samples,
        rows,
        yt.shape[0],
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
    )
    for i, spec in enumerate(specs):
        if not np.isfinite(estimates[i]):
            continue
        try:
            with warnings.catch_warnings(action="ignore", category=DegenerateBootstrapWarning):
                iv = finish_interval(
                    res,
                    i,
                    name=spec.name,
                    estimate=estimates[i],
                    method=method,
                    n=yt.shape[0],
                    n_resamples=n_resamples,
                    confidence_level=confidence_level,
                    higher_is_better=spec.higher_is_better,
                )
        except ValueError as exc:
            frame.iloc[i, frame.columns.get_loc("note")] = str(exc).split(";")[0]
            continue
        frame.iloc[i, [frame.columns.get_loc(c) for c in ("low", "high", "standard_error")]] = [
            iv.low,
            iv.high,
            iv.standard_error,
        ]
        if iv.low == iv.high:
            frame.iloc[i, frame.columns.get_loc("note")] = "every resample gave the same value"


def count_rows(
    name: str, spec: MetricSpec, yt: np.ndarray, yp: np.ndarray, rows: np.ndarray, beta: float
) -> np.ndarray:
    """The metric on each resample ``rows`` (shape ``(B, n)``): from the resample's
    confusion counts (binary labels) or errors (regression) in one numpy pass, the formulas
    of scikit-learn (``zero_division=nan``, ``r2_score``'s ``force_finite``); any other
    metric through :meth:`MetricSpec.batch_rows` (one scikit-learn call per resample)."""
    record = metric_record(name)
    if record is not None and record.counts and spec.pos_label is not None and yp.ndim == 1:
        t, p = (yt == spec.pos_label)[rows], (yp == spec.pos_label)[rows]
        tp, fp = (t & p).sum(axis=1), (~t & p).sum(axis=1)
        fn, tn = (t & ~p).sum(axis=1), (~t & ~p).sum(axis=1)
        return record.from_counts(tp, fp, fn, tn, beta if "beta" in record.options else None)
    if record is not None and "values" in record.shown and yp.ndim == 1 and yt.dtype.kind in "fiu":
        err = (yp - yt)[rows]
        if name == "mae":
            return np.abs(err).mean(axis=1)
        sse = (err**2).sum(axis=1)
        if name != "r2":
            mse = sse / rows.shape[1]
            return np.sqrt(mse) if name == "rmse" else mse
        y = yt[rows]
        sst = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(
                sst > 0, 1 - sse / np.where(sst > 0, sst, 1), np.where(sse == 0, 1.0, 0.0)
            )
    return spec.batch_rows(yt, yp, rows)
