"""What bayescomp knows about a metric, in one table: :data:`METRICS`.

A :class:`Metric` record holds a metric's name, whether higher is better, the range its
values can take, the kind of prediction it is computed from (``"labels"``, ``"scores"`` —
continuous scores of a classification — or ``"values"`` — numbers: regression predictions
or per-item scores; None for what is no function of predictions, a timing), the
scikit-learn function that computes it with its fixed keyword arguments, its per-item form
on one test set, and the scikit-learn scorer that reports a loss negated.  Every other
module asks :func:`metric_record` (or the functions of :mod:`bayescomp.core.orientation`
built on it): this is the package's only metric table (``tests/test_architecture.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

INF = float("inf")
UNIT, SIGNED, UP_TO_ONE, LOSS, ANY = (0.0, 1.0), (-1.0, 1.0), (-INF, 1.0), (0.0, INF), (-INF, INF)
#: suffixes of scikit-learn's averaged and multiclass variants (``f1_macro``, ``roc_auc_ovr``)
AVERAGES = ("_micro", "_macro", "_weighted", "_samples", "_binary")
MULTICLASS = ("_ovr", "_ovo", "_ovr_weighted", "_ovo_weighted")


@dataclass(frozen=True)
class Metric:
    """One metric: everything the package knows about it (module docstring)."""

    name: str
    higher_is_better: bool | None
    bounds: tuple[float, float] = ANY
    needs: str | None = None
    function: str | None = None
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    #: its per-item score on one test set (a key of ``posterior.holdout_data.ITEM_SCORES``)
    item: str | None = None
    #: the scikit-learn scorer that reports it negated (a loss fitted by its plain name)
    scorer: str | None = None
    #: other names that mean exactly this metric (``canonical_metric`` maps them here)
    aliases: tuple[str, ...] = ()
    #: takes ``average=`` (``precision_macro``) and ``pos_label=``
    averaged: bool = False
    #: a binary metric of one column of scores, against ``y_true == pos_label``
    binary_scores: bool = False
    #: computed under Bayesian-bootstrap weights on one test set (not a mean of items)
    weighted: bool = False
    #: other names it goes by in the literature (shown beside its name in tables)
    also: tuple[str, ...] = ()
    #: why its value can be undefined at a threshold (0 / 0)
    undefined: str | None = None
    #: its formula in the confusion counts (a key of :data:`COUNT_FORMULAS`), if it has one
    counts: str | None = None
    #: the views that show it by default: ``metric_table`` of a task whose predictions are
    #: ``"labels"``, ``"scores"`` or ``"values"``, and ``"curves"`` (``threshold_curves``)
    shown: tuple[str, ...] = ()

    def from_counts(self, tp: Any, fp: Any, fn: Any, tn: Any, beta: float | None = None) -> Any:
        """The metric from the confusion counts (arrays alike), NaN where it is 0 / 0.

        >>> metric_record("f1").from_counts(8, 2, 2, 88), metric_record("npv").from_counts(0, 1, 0, 0)
        (0.8, nan)
        """
        import numpy as np

        if self.counts is None:
            raise ValueError(f"{self.name} is not a function of the confusion counts")
        b = self.options.get("beta", 1.0) if beta is None else beta
        tp, fp, fn, tn = (np.asarray(x, dtype=float) for x in (tp, fp, fn, tn))
        num, den = COUNT_FORMULAS[self.counts](tp, fp, fn, tn, b * b)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        return float(out) if out.ndim == 0 else out


#: numerator and denominator of each metric of the confusion counts (b2: beta squared)
COUNT_FORMULAS: dict[str, Any] = {
    "accuracy": lambda tp, fp, fn, tn, b2: (tp + tn, tp + fp + fn + tn),
    "error": lambda tp, fp, fn, tn, b2: (fp + fn, tp + fp + fn + tn),
    "precision": lambda tp, fp, fn, tn, b2: (tp, tp + fp),
    "recall": lambda tp, fp, fn, tn, b2: (tp, tp + fn),
    "specificity": lambda tp, fp, fn, tn, b2: (tn, tn + fp),
    "npv": lambda tp, fp, fn, tn, b2: (tn, tn + fn),
    "fpr": lambda tp, fp, fn, tn, b2: (fp, fp + tn),
    "fnr": lambda tp, fp, fn, tn, b2: (fn, fn + tp),
    "fbeta": lambda tp, fp, fn, tn, b2: ((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp),
    "jaccard": lambda tp, fp, fn, tn, b2: (tp, tp + fp + fn),
    "positive_rate": lambda tp, fp, fn, tn, b2: (tp + fp, tp + fp + fn + tn),
    "balanced_accuracy": lambda tp, fp, fn, tn, b2: (
        tp * (tn + fp) + tn * (tp + fn),
        2 * (tp + fn) * (tn + fp),
    ),
}


def _table(*rows: Metric) -> dict[str, Metric]:
    return {m.name: m for m in rows}


_NAN = {"zero_division": float("nan")}
M = Metric
#: the one metric table
# fmt: off
METRICS: dict[str, Metric] = _table(
    # classification: labels
    M("accuracy", True, UNIT, "labels", "accuracy_score", item="hit", aliases=("accuracy_score",), counts="accuracy", shown=("labels",)),
    M("balanced_accuracy", True, UNIT, "labels", "balanced_accuracy_score", aliases=("balanced_accuracy_score",), counts="balanced_accuracy"),
    M("error_rate", False, UNIT, "labels", "zero_one_loss", item="miss", counts="error", shown=("labels",)),
    M("zero_one_loss", False, UNIT, "labels", "zero_one_loss", item="miss", counts="error"),
    M("error", False, UNIT, "labels", "zero_one_loss", item="miss", counts="error"),
    M("hamming_loss", False, UNIT, "labels", "hamming_loss"),
    M("recall", True, UNIT, "labels", "recall_score", _NAN, averaged=True, weighted=True, aliases=("recall_score",), also=("TPR", "sensitivity"), undefined="a repetition has no positive row", counts="recall", shown=("labels", "curves")),
    M("tpr", True, UNIT, "labels", "recall_score", _NAN, averaged=True, counts="recall"),
    M("sensitivity", True, UNIT, "labels", "recall_score", _NAN, averaged=True, counts="recall"),
    M("true_positive_rate", True, UNIT, "labels", "recall_score", _NAN, counts="recall"),
    M("specificity", True, UNIT, "labels", "recall_score", {**_NAN, "_negative": True}, also=("TNR",), undefined="a repetition has no negative row", counts="specificity", shown=("labels",)),
    M("tnr", True, UNIT, "labels", "recall_score", {**_NAN, "_negative": True}, counts="specificity"),
    M("true_negative_rate", True, UNIT, "labels", counts="specificity"),
    M("precision", True, UNIT, "labels", "precision_score", _NAN, averaged=True, weighted=True, aliases=("precision_score",), also=("PPV",), undefined="no score reaches the threshold, so nothing is predicted positive (TP + FP = 0)", counts="precision", shown=("labels", "curves")),
    M("ppv", True, UNIT, "labels", "precision_score", _NAN, averaged=True, counts="precision"),
    M("npv", True, UNIT, "labels", counts="npv"),
    M("fpr", False, UNIT, "labels", undefined="a repetition has no negative row", counts="fpr", shown=("curves",)),
    M("fnr", False, UNIT, "labels", counts="fnr"),
    M("false_positive_rate", False, UNIT, "labels", counts="fpr"),
    M("false_negative_rate", False, UNIT, "labels", counts="fnr"),
    M("f1", True, UNIT, "labels", "f1_score", _NAN, averaged=True, weighted=True, aliases=("f1_score",), undefined="precision and recall are both 0 or undefined (TP = 0)", counts="fbeta", shown=("labels",)),
    M("fbeta", True, UNIT, "labels", "fbeta_score", {**_NAN, "beta": 2.0}, averaged=True, counts="fbeta", shown=("labels",)),
    M("f_beta", True, UNIT, "labels", "fbeta_score", {**_NAN, "beta": 2.0}, counts="fbeta"),
    M("f2", True, UNIT, "labels", "fbeta_score", {**_NAN, "beta": 2.0}, counts="fbeta"),
    M("f0.5", True, UNIT, "labels", "fbeta_score", {**_NAN, "beta": 0.5}, counts="fbeta"),
    M("jaccard", True, UNIT, "labels", "jaccard_score", _NAN, averaged=True, counts="jaccard"),
    M("matthews_corrcoef", True, SIGNED, "labels", "matthews_corrcoef", aliases=("mcc",)),
    M("cohen_kappa", True, SIGNED, "labels", "cohen_kappa_score"),
    M("cohen_kappa_score", True, SIGNED, "labels", "cohen_kappa_score"),
    # classification: scores
    M("roc_auc", True, UNIT, "scores", "roc_auc_score", binary_scores=True, weighted=True, aliases=("auc", "roc_auc_score"), shown=("scores",)),
    M("average_precision", True, UNIT, "scores", "average_precision_score", binary_scores=True, aliases=("average_precision_score", "ap"), shown=("scores",)),
    M("log_loss", False, LOSS, "scores", "log_loss", item="log", scorer="neg_log_loss", binary_scores=True),
    M("brier_score_loss", False, UNIT, "scores", "brier_score_loss", item="squared_probability", scorer="neg_brier_score", binary_scores=True),
    M("brier", False, UNIT, "scores", "brier_score_loss", item="squared_probability", scorer="neg_brier_score", binary_scores=True),
    M("top_k_accuracy", True, UNIT, "scores", "top_k_accuracy_score"),
    M("ndcg", True, ANY, "scores", "ndcg_score"),
    M("dcg", None, ANY, "scores", "dcg_score"),
    M("d2_log_loss", None, ANY, "scores", "d2_log_loss_score"),
    M("roc_curve", None, ANY, "scores", "roc_curve"),
    M("det_curve", None, ANY, "scores", "det_curve"),
    # regression (and per-item values on one test set)
    M("r2", True, UP_TO_ONE, "values", "r2_score", aliases=("r2_score",), shown=("values",)),
    M("explained_variance", True, UP_TO_ONE, "values", "explained_variance_score"),
    M("d2_absolute_error_score", True, UP_TO_ONE, "values", "d2_absolute_error_score"),
    M("d2_pinball", None, ANY, "values", "d2_pinball_score"),
    M("d2_tweedie", None, ANY, "values", "d2_tweedie_score"),
    M("mse", False, LOSS, "values", "mean_squared_error", item="squared", scorer="neg_mean_squared_error", shown=("values",)),
    M("mean_squared_error", False, LOSS, "values", "mean_squared_error", item="squared", scorer="neg_mean_squared_error"),
    M("squared_error", False, LOSS, "values", item="squared"),
    M("rmse", False, LOSS, "values", "root_mean_squared_error", scorer="neg_root_mean_squared_error", shown=("values",)),
    M("root_mean_squared_error", False, LOSS, "values", "root_mean_squared_error", scorer="neg_root_mean_squared_error"),
    M("mae", False, LOSS, "values", "mean_absolute_error", item="absolute", scorer="neg_mean_absolute_error", shown=("values",)),
    M("mean_absolute_error", False, LOSS, "values", "mean_absolute_error", item="absolute", scorer="neg_mean_absolute_error"),
    M("absolute_error", False, LOSS, "values", item="absolute"),
    M("median_absolute_error", False, LOSS, "values", "median_absolute_error", scorer="neg_median_absolute_error"),
    M("max_error", False, LOSS, "values", "max_error", scorer="neg_max_error"),
    M("mape", False, LOSS, "values", "mean_absolute_percentage_error", scorer="neg_mean_absolute_percentage_error"),
    M("mean_absolute_percentage_error", False, LOSS, "values", "mean_absolute_percentage_error", scorer="neg_mean_absolute_percentage_error"),
    M("msle", False, LOSS, "values", "mean_squared_log_error", scorer="neg_mean_squared_log_error"),
    M("mean_squared_log_error", False, LOSS, "values", "mean_squared_log_error", scorer="neg_mean_squared_log_error"),
    M("root_mean_squared_log_error", False, LOSS, "values", "root_mean_squared_log_error"),
    M("mean_poisson_deviance", False, LOSS, "values", "mean_poisson_deviance"),
    M("mean_gamma_deviance", False, LOSS, "values", "mean_gamma_deviance"),
    M("mean_tweedie_deviance", False, LOSS, "values", "mean_tweedie_deviance"),
    M("mean_pinball_loss", False, LOSS, "values", "mean_pinball_loss"),
    M("positive_rate", None, UNIT, "labels", counts="positive_rate"),
    # per-item scores named by what they are
    M("pass@1", True, UNIT, "values"),
    M("correct", True, UNIT, "values"),
    # ranking, precision@k on an unlabeled pool
    M("precision_at_k", True, UNIT),
    M("recall_at_k", True, UNIT),
    M("f1_at_k", True, UNIT),
    M("precision_at_k_unlabeled", True),
    M("recall_at_k_unlabeled", True),
    M("map", True),
    M("score", True),
    # OpenML evaluation measures
    M("predictive_accuracy", True),
    M("area_under_roc_curve", True),
    M("f_measure", True),
    M("kappa", True),
    M("relative_absolute_error", False, LOSS),
    M("root_relative_squared_error", False, LOSS),
    M("mean_prior_absolute_error", False, LOSS),
    # timings: lower is better, no prediction involved
    M("fit_time", False, LOSS),
    M("score_time", False, LOSS),
    M("runtime", False, LOSS),
    M("latency", False, LOSS),
)
# fmt: on
del M
#: alias -> canonical name (``"auc"`` -> ``"roc_auc"``)
ALIASES: dict[str, str] = {a: m.name for m in METRICS.values() for a in m.aliases}


def metric_record(name: str | None) -> Metric | None:
    """The record of ``name`` (a canonical name or an alias, any case), or None.

    Examples
    --------
    >>> metric_record("AUC").name, metric_record("rmse").scorer
    ('roc_auc', 'neg_root_mean_squared_error')
    >>> metric_record("my_metric") is None
    True
    """
    if name is None:
        return None
    key = str(name).strip().lower()
    return METRICS.get(ALIASES.get(key, key))


def base_record(name: str) -> tuple[Metric | None, str]:
    """The record behind a scikit-learn variant name (``f1_macro``, ``roc_auc_ovr``), and
    the suffix that was removed ("" for a plain name)."""
    key = str(name).strip().lower()
    for suffix in (*MULTICLASS, *AVERAGES, "_score"):
        if key.endswith(suffix):
            record = metric_record(key[: -len(suffix)])
            if record is not None:
                return record, suffix
    return metric_record(key), ""


def function_needs(function: str) -> str:
    """What a scikit-learn metric function is computed from (``"labels"`` for any
    function the table does not list)."""
    for m in METRICS.values():
        if m.function == function and m.needs is not None:
            return m.needs
    return "labels"


def count_metrics() -> list[str]:
    """The metrics that are functions of the confusion counts (:meth:`Metric.from_counts`)."""
    return [m.name for m in METRICS.values() if m.counts]


def shown(view: str) -> list[str]:
    """The metrics ``view`` shows by default (:attr:`Metric.shown`), in the table's order.

    >>> shown("curves"), shown("scores")
    (['recall', 'precision', 'fpr'], ['roc_auc', 'average_precision'])
    """
    return [m.name for m in METRICS.values() if view in m.shown]
