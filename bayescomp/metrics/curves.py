"""Precision/recall/ROC curves at *fixed* thresholds across repeated partitions.

``sklearn.metrics.precision_recall_curve`` puts its thresholds at the scores
of each test set, so the curves of two repetitions have different x-values
and cannot be averaged.  Here every repetition is evaluated at the same
thresholds, and the spread over repetitions is summarised threshold by
threshold.  A metric that is undefined in a repetition (precision when no row
scores above the threshold; recall when the test set has no positive) is
recorded as missing and *counted* (``n_defined``), never dropped or set to 0.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_level
from bayescomp.core.jsonable import jsonable
from bayescomp.core.metric import count_metrics, metric_record, shown
from bayescomp.core.protocols import Card
from bayescomp.metrics._metric import check_no_missing_labels, check_pos_label, numeric_scores
from bayescomp.metrics.spark import is_spark_frame, score_checks, threshold_counts

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from bayescomp.core.protocols import FitStore


@dataclass(frozen=True)
class ThresholdCurves(Card):
    """Metrics of every repetition at fixed thresholds, and their spread.

    Attributes
    ----------
    thresholds : ndarray
        The thresholds; a row is predicted positive when ``score >= threshold``.
    metrics : tuple of str
    values : ndarray, shape (n_metrics, n_repetitions, n_thresholds)
        NaN where the metric is undefined in that repetition.
    n_test : ndarray
        Test rows of each repetition.
    quantiles : tuple of float
        Lower and upper quantile reported by :meth:`summary`.
    """

    thresholds: np.ndarray
    metrics: tuple[str, ...]
    values: np.ndarray = field(repr=False)
    n_test: np.ndarray = field(repr=False)
    quantiles: tuple[float, float] = (0.05, 0.95)

    @property
    def n_repetitions(self) -> int:
        return int(self.values.shape[1])

    def _index(self, metric: str) -> int:
        key = {"tpr": "recall", "tnr": "specificity"}.get(metric, metric)
        names = [{"tpr": "recall", "tnr": "specificity"}.get(m, m) for m in self.metrics]
        if key not in names:
            raise ValueError(f"metric {metric!r} was not computed; available: {self.metrics}")
        return names.index(key)

    def metric_values(self, metric: str) -> np.ndarray:
        """Array (n_repetitions, n_thresholds) of one metric, NaN where undefined."""
        return self.values[self._index(metric)]

    def to_frame(self) -> pd.DataFrame:
        """Long table: repetition, threshold, metric, value (NaN = undefined)."""
        import pandas as pd

        m, r, t = self.values.shape
        return pd.DataFrame(
            {
                "repetition": np.tile(np.repeat(np.arange(r), t), m),
                "threshold": np.tile(self.thresholds, m * r),
                "metric": np.repeat(np.asarray(self.metrics, dtype=object), r * t),
                "value": self.values.ravel(),
            }
        )

    def summary(
        self, metric: str | None = None, *, confidence_level: float | None = None
    ) -> pd.DataFrame:
        """Per threshold: mean, std, quantiles, median, min, max over the repetitions in which
        the metric was defined, and ``n_defined`` out of ``n_repetitions``.

        With ``metric=None`` the columns are a (metric, statistic) MultiIndex.  The
        quantiles are :attr:`quantiles`, or the central ``confidence_level`` band.
        """
        import pandas as pd

        lo_q, hi_q = self.quantiles
        if confidence_level is not None:
            level = check_level(confidence_level, "confidence_level")
            lo_q, hi_q = (1 - level) / 2, (1 + level) / 2
        frames = {}
        for name in [metric] if metric else list(self.metrics):
            v = self.metric_values(name)
            defined = np.isfinite(v)
            n_def = defined.sum(axis=0)
            with (
                np.errstate(all="ignore"),
                warnings.catch_warnings(action="ignore", category=RuntimeWarning),
            ):
                stats = {
                    "mean": np.nanmean(v, axis=0),
                    "std": np.nanstd(v, axis=0, ddof=1),
                    f"q{100 * lo_q:g}": np.nanquantile(v, lo_q, axis=0),
                    "median": np.nanmedian(v, axis=0),
                    f"q{100 * hi_q:g}": np.nanquantile(v, hi_q, axis=0),
                    "min": np.nanmin(v, axis=0),
                    "max": np.nanmax(v, axis=0),
                }
            stats["n_defined"] = n_def
            stats["n_repetitions"] = np.full(n_def.shape, v.shape[0])
            frames[name] = pd.DataFrame(stats, index=pd.Index(self.thresholds, name="threshold"))
        if metric:
            return frames[metric]
        return pd.concat(frames, axis=1)

    def to_dict(self) -> dict[str, Any]:
        """Thresholds, metrics and the per-threshold mean and SD of each metric."""
        s = self.summary()
        return jsonable(
            {
                "thresholds": self.thresholds,
                "metrics": list(self.metrics),
                "mean": {m: s[m]["mean"].to_numpy() for m in self.metrics},
                "std": {m: s[m]["std"].to_numpy() for m in self.metrics},
            }
        )

    def plot(
        self,
        kind: str = "pr",
        *,
        ax: Axes | None = None,
        band: str = "std",
        annotate_every: int = 10,
        label: str | None = None,
        color: str | None = None,
    ) -> Axes:
        """Mean curve with a band over repetitions.

        ``kind="pr"`` (precision against recall), ``"roc"`` (recall against
        false-positive rate) or the name of a metric (that metric against the
        threshold).  ``band="std"`` (mean ± 1 SD) or ``"quantile"`` (the
        summary's quantiles).  Every ``annotate_every``-th threshold is written
        on the curve.
        """
        from bayescomp.report.metric_plots import plot_threshold_curves

        return plot_threshold_curves(
            self,
            kind=kind,
            ax=ax,
            band=band,
            annotate_every=annotate_every,
            label=label,
            color=color,
        )


def _curve_values(
    positive: np.ndarray, score: np.ndarray, thresholds: np.ndarray, metrics: Sequence[str]
) -> np.ndarray:
    """All metrics of one repetition at all thresholds (rows: metrics)."""
    pos_sorted = np.sort(score[positive])
    neg_sorted = np.sort(score[~positive])
    n_pos, n_neg = pos_sorted.size, neg_sorted.size
    tp = (n_pos - np.searchsorted(pos_sorted, thresholds, side="left")).astype(float)
    fp = (n_neg - np.searchsorted(neg_sorted, thresholds, side="left")).astype(float)
    return _from_counts(tp, fp, n_pos, n_neg, metrics)


def _from_counts(
    tp: np.ndarray, fp: np.ndarray, n_pos: int, n_neg: int, metrics: Sequence[str]
) -> np.ndarray:
    """Every metric at every threshold from the confusion counts (rows: metrics)."""
    fn, tn = n_pos - tp, n_neg - fp
    return np.array([metric_record(m).from_counts(tp, fp, fn, tn) for m in metrics])


def _spark_curves(
    df: Any,
    thresholds: Any,
    metrics: tuple[str, ...],
    pos_label: Any,
    quantiles: tuple[float, float],
    columns: Mapping[str, str | None],
) -> ThresholdCurves:
    """:func:`threshold_curves` on a Spark DataFrame: the counts are computed in Spark."""
    rep = columns.get("repetition", "repetition")
    if rep is not None and rep not in df.columns:
        rep = None  # one repetition: the whole frame
    cols = dict(
        label=columns.get("label", "y_true"), score=columns.get("score", "y_score"), repetition=rep
    )
    proba, _ = score_checks(df, pos_label=pos_label, **cols)
    thr = _check_thresholds(thresholds, proba)
    counts = threshold_counts(df, thr, pos_label=pos_label, **cols)
    values = np.stack([_from_counts(c.tp, c.fp, c.n_pos, c.n_neg, metrics) for c in counts], axis=1)
    return ThresholdCurves(
        thresholds=thr,
        metrics=metrics,
        values=values,
        n_test=np.array([c.n_pos + c.n_neg for c in counts]),
        quantiles=quantiles,
    )


def _check_thresholds(thresholds: Any, proba: bool) -> np.ndarray:
    """The thresholds, checked (finite; in [0, 1] for probabilities), sorted, unique."""
    if thresholds is None:
        if not proba:
            raise ValueError(
                "the scores are not probabilities (they leave [0, 1]); pass thresholds on "
                "the scores' own scale"
            )
        thresholds = np.linspace(0.0, 1.0, 101)
    thr = np.asarray(thresholds, dtype=float).ravel()
    if thr.size == 0 or not np.all(np.isfinite(thr)):
        raise ValueError("thresholds must be a non-empty array of finite numbers")
    if proba and (thr.min() < 0 or thr.max() > 1):
        raise ValueError(
            f"thresholds must lie in [0, 1] for probability scores; got range "
            f"[{thr.min():g}, {thr.max():g}]"
        )
    return np.unique(np.round(thr, 12))


def _from_predictions(predictions: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    if hasattr(predictions, "columns"):
        need = {"repetition", "y_true", "y_score"}
        if not need <= set(predictions.columns):
            raise ValueError(
                f"a predictions table needs the columns {sorted(need)}; got "
                f"{list(predictions.columns)}"
            )
        return [
            (g["y_true"].to_numpy(), numeric_scores(g["y_score"], "y_score"))
            for _, g in predictions.groupby("repetition", sort=True)
        ]
    try:
        pairs = [(np.asarray(t), np.asarray(s)) for t, s in predictions]
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "predictions must be a DataFrame with columns repetition, y_true, y_score or a "
            f"sequence of (y_true, y_score) pairs, one per repetition: {exc}"
        ) from None
    return [(t, numeric_scores(s, f"y_score of repetition {i}")) for i, (t, s) in enumerate(pairs)]


def threshold_curves(
    estimator: Any = None,
    X: Any = None,
    y: Any = None,
    *,
    cv: Any = None,
    groups: Any = None,
    predictions: Any = None,
    thresholds: Any = None,
    metrics: Sequence[str] | None = None,
    pos_label: Any = 1,
    response_method: str = "auto",
    quantiles: tuple[float, float] = (0.05, 0.95),
    n_jobs: int | None = None,
    columns: Mapping[str, str | None] | None = None,
    cache: FitStore | None = None,
    dataset: str = "data",
    model: str = "model",
) -> ThresholdCurves:
    """Evaluate precision, recall, FPR... at the same fixed thresholds in every repetition.

    Either fit ``estimator`` on every split of ``cv`` (each split's test set is
    one repetition), or pass stored ``predictions``.

    Parameters
    ----------
    estimator : scikit-learn classifier, optional
        Binary classifier with ``predict_proba`` or ``decision_function``.
    X, y : array_like
        Data for the estimator.
    cv : splitter
        E.g. ``ShuffleSplit(n_splits=20, test_size=0.33)`` (repeated random
        partitions) or ``RepeatedStratifiedKFold``.
    groups : array_like, optional
        Passed to ``cv.split``.
    predictions : DataFrame, Spark DataFrame or sequence of (y_true, y_score), optional
        Stored out-of-sample predictions instead of an estimator: a table with
        columns ``repetition, y_true, y_score`` or one pair per repetition.  A Spark
        DataFrame stays in Spark: the confusion counts at every threshold are computed
        there and only they reach the driver (``docs/scaling_out.md``).
    thresholds : array_like, optional
        Default ``np.linspace(0, 1, 101)`` for probabilities; must be given
        for other scores.  Probabilities refuse thresholds outside [0, 1].
    metrics : sequence of str, optional
        Any metric of the confusion counts (:func:`bayescomp.core.metric.count_metrics`:
        ``precision``, ``recall``/``tpr``, ``fpr``, ``specificity``, ``f1``, ``accuracy``,
        ``positive_rate``, ...); default recall, precision and fpr.
    pos_label : default 1
        The positive class; must be one of the labels of ``y_true`` (a
        ValueError otherwise, e.g. for string labels with the default 1).
    response_method : {"auto", "predict_proba", "decision_function"}
    quantiles : (float, float), default (0.05, 0.95)
    n_jobs : int, optional
        Splits fitted in parallel.
    columns : dict, optional
        Column names of a Spark DataFrame ``predictions``: ``{"label": ..., "score": ...,
        "repetition": ...}`` (defaults ``y_true``, ``y_score``, ``repetition``; without a
        repetition column the whole frame is one repetition).
    cache : FitStore, optional
        Where every fit is kept with its out-of-fold scores (e.g.
        :class:`bayescomp.ResultStore`): a rerun, or a run killed half way and started
        again, reads the stored fits instead of refitting them (as
        :func:`bayescomp.cross_validate_paired` does).  A change of ``pos_label`` or
        ``response_method`` fits again; other splits, data or parameters are refused.
    dataset, model : str, default "data", "model"
        The names of the data and of ``estimator`` in ``cache`` (one store can hold
        several: give each estimator its own ``model`` name).

    Returns
    -------
    ThresholdCurves

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import ShuffleSplit
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> cur = threshold_curves(model, X, y, cv=ShuffleSplit(10, test_size=0.33, random_state=0),
    ...                        thresholds=np.linspace(0, 1, 21))
    >>> s = cur.summary("precision")
    >>> s.loc[0.5, "n_defined"], bool(s.loc[0.5, "mean"] > 0.9)
    (np.int64(10), True)
    """
    if (estimator is None) == (predictions is None):
        raise ValueError(
            "pass either an estimator with X, y and cv, or stored predictions — exactly one"
        )
    metrics = tuple(str(m).lower() for m in (shown("curves") if metrics is None else metrics))
    unknown = [m for m in metrics if not getattr(metric_record(m), "counts", None)]
    if unknown or not metrics:
        raise ValueError(f"unknown curve metric(s) {unknown}; choose from {count_metrics()}")
    lo_q, hi_q = (float(q) for q in quantiles)
    if not 0 <= lo_q < hi_q <= 1:
        raise ValueError(f"quantiles must satisfy 0 <= low < high <= 1; got {quantiles}")
    if predictions is not None and estimator is None and is_spark_frame(predictions):
        return _spark_curves(
            predictions, thresholds, metrics, pos_label, (lo_q, hi_q), dict(columns or {})
        )

    if estimator is not None:
        from bayescomp.metrics.oof import oof_positive_scores

        if X is None or y is None or cv is None:
            raise ValueError("fitting an estimator needs X, y and cv")
        check_no_missing_labels(y, "y")
        pairs, proba = oof_positive_scores(
            estimator, X, y, cv, groups, pos_label, response_method, n_jobs, cache, (dataset, model)
        )
    else:
        pairs = _from_predictions(predictions)
        proba = all(np.all((s >= 0) & (s <= 1)) for _, s in pairs if s.size)
    if not pairs:
        raise ValueError("no repetitions: cv gave no split / predictions are empty")
    for i, (t, s) in enumerate(pairs):
        if t.shape[0] != s.shape[0] or s.ndim != 1:
            raise ValueError(
                f"repetition {i}: y_true and y_score must be 1-D with one entry per row; got "
                f"shapes {t.shape} and {s.shape}"
            )
        if t.size == 0:
            raise ValueError(f"repetition {i} has no test rows")
        check_no_missing_labels(t, f"repetition {i}: y_true")
        if not np.all(np.isfinite(s)):
            raise ValueError(
                f"repetition {i}: y_score contains NaN or inf; fix the model or drop those rows"
            )
    check_pos_label(np.concatenate([np.asarray(t).ravel() for t, _ in pairs]), pos_label)
    thr = _check_thresholds(thresholds, proba)
    values = np.stack(
        [_curve_values(np.asarray(t) == pos_label, s, thr, metrics) for t, s in pairs], axis=1
    )
    return ThresholdCurves(
        thresholds=thr,
        metrics=metrics,
        values=values,
        n_test=np.array([t.shape[0] for t, _ in pairs]),
        quantiles=(lo_q, hi_q),
    )
