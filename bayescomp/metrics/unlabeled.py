"""Precision@k on an unlabeled pool whose class size is known (or bounded).

``recall@k`` is measured on the labeled test set at the pool's k-th highest score, and
``precision@k = recall@k * C / k`` for ``C`` class members in the pool (an interval ``C``
bounds it); ``precision@k > 1`` flags labeled members that do not represent the class.
The reasoning: ``docs/metric_uncertainty.md``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import as_float_array, check_no_level, check_no_missing
from bayescomp.core.exceptions import PrecisionAboveOneWarning
from bayescomp.core.jsonable import jsonable
from bayescomp.core.protocols import Card

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class UnlabeledPrecisionAtK(Card):
    """Recall@k, precision@k and F1@k on an unlabeled pool, for one class.

    Attributes
    ----------
    table : DataFrame
        Indexed by ``k`` (1..pool size): ``threshold``, ``recall_at_k``,
        ``precision_at_k`` (the estimate ``recall_at_k * C / k`` capped at 1, since
        a precision cannot exceed 1), ``precision_at_k_raw`` (the same ratio
        uncapped: values above 1 are evidence that the labeled data do not
        represent the class), ``f1_at_k`` (from the capped precision),
        ``precision_at_k_se`` (the binomial sampling error of the test-set recall,
        times ``C / k``), ``above_one`` (exactly ``precision_at_k_raw > 1``),
        ``above_one_significant`` (conservative: even a low Wilson bound of the
        recall, with the lower class size, gives a precision above 1 — what the
        warning reports) and, when the class size is an interval,
        ``precision_at_k_lower/upper`` (capped at 1) and ``f1_at_k_lower/upper``.
    class_size : float or (float, float)
    positive_class : object
    best_k : int
        ``k`` maximising the estimated F1 (central class size).
    best_threshold : float
        The unlabeled score at ``best_k``: predict the class when ``score >= best_threshold``.
    best_f1 : float
    best_threshold_range : (float, float) or None
        Best-F1 thresholds under the upper and lower class sizes (interval input).
    n_above_one : int
        Number of ``k`` flagged in ``above_one`` (raw estimate above 1).
    n_test_positive, n_pool : int
    n_above_one_significant : int
        Number of ``k`` flagged in ``above_one_significant``.
    """

    card_says = True

    table: pd.DataFrame = field(repr=False)
    class_size: Any
    positive_class: Any
    best_k: int
    best_threshold: float
    best_f1: float
    best_threshold_range: tuple[float, float] | None
    n_above_one: int
    n_test_positive: int
    n_pool: int
    n_above_one_significant: int = 0

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        """The table indexed by ``k`` (it has no interval: ``confidence_level`` stays None)."""
        check_no_level(confidence_level, "the precision@k table")
        return self.table

    def to_dict(self) -> dict[str, Any]:
        """The best ``k`` and its threshold, and the table's rows, JSON-ready."""
        return jsonable(
            {
                "positive_class": self.positive_class,
                "class_size": self.class_size,
                "best_k": self.best_k,
                "best_threshold": self.best_threshold,
                "best_f1": self.best_f1,
                "n_above_one": self.n_above_one,
                "table": self.table.reset_index().to_dict("records"),
            }
        )

    def to_frame(self) -> pd.DataFrame:
        return self.table.reset_index()

    def plot(self, *, ax: Axes | None = None) -> Axes:
        """recall@k against k, with the class-size line and the ideal (unbiased) diagonal."""
        from bayescomp.report.metric_plots import plot_recall_at_k

        return plot_recall_at_k(self, ax=ax)

    def __str__(self) -> str:
        return (
            f"class {self.positive_class!r}: best F1@k = {self.best_f1:.3f} at k = "
            f"{self.best_k} (threshold {self.best_threshold:.4g}); raw precision@k "
            f"estimate above 1 at {self.n_above_one} k ({self.n_above_one_significant} "
            "beyond its sampling error); precision@k is reported capped at 1"
        )


def _check_size(size: Any, n_pool: int, label: Any) -> tuple[float, float | None, float | None]:
    if isinstance(size, Sequence | np.ndarray) and not isinstance(size, str):
        vals = np.asarray(size, dtype=float).ravel()
        if vals.size != 2:
            raise ValueError(
                f"class_size for class {label!r} must be a number or a (low, high) interval; "
                f"got {size!r}"
            )
        lo, hi = float(vals[0]), float(vals[1])
        if not lo <= hi:
            raise ValueError(f"class_size interval ({lo}, {hi}) for {label!r} has low > high")
    else:
        try:
            lo = hi = float(size)
        except (TypeError, ValueError):
            raise ValueError(
                f"class_size for class {label!r} must be a number or (low, high); got {size!r}"
            ) from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo <= 0:
        raise ValueError(
            f"class_size for class {label!r} must be positive (how many members of the class "
            f"the unlabeled pool holds); got {size!r}"
        )
    if hi > n_pool:
        raise ValueError(
            f"class_size {hi:g} for class {label!r} exceeds the {n_pool} rows of the "
            "unlabeled pool; it must count members of the class inside the pool"
        )
    if lo == hi:
        return lo, None, None
    return 0.5 * (lo + hi), lo, hi


def _one_class(
    test_scores: np.ndarray,
    test_positive: np.ndarray,
    pool: np.ndarray,
    size: Any,
    label: Any,
) -> UnlabeledPrecisionAtK:
    import pandas as pd

    n_pool = pool.size
    central, lo, hi = _check_size(size, n_pool, label)
    n_pos = int(test_positive.sum())
    if n_pos == 0:
        raise ValueError(
            f"the labeled test set has no member of class {label!r}; recall@k cannot be estimated"
        )
    thresholds = np.sort(pool)[::-1]  # t_k = k-th highest unlabeled score
    k = np.arange(1, n_pool + 1)
    pos_sorted = np.sort(test_scores[test_positive])
    recall = (n_pos - np.searchsorted(pos_sorted, thresholds, side="left")) / n_pos

    def prec_f1(c: float) -> tuple[np.ndarray, np.ndarray]:
        p = recall * c / k
        pc = np.minimum(p, 1.0)  # a precision above 1 is impossible: F1 uses it capped at 1
        with np.errstate(invalid="ignore", divide="ignore"):
            f1 = np.where(pc + recall > 0, 2 * pc * recall / (pc + recall), 0.0)
        return p, f1

    precision, f1 = prec_f1(central)
    cols: dict[str, np.ndarray] = {
        "threshold": thresholds,
        "recall_at_k": recall,
        "precision_at_k": np.minimum(precision, 1.0),
        "precision_at_k_raw": precision,
        "f1_at_k": f1,
    }
    best_range = None
    if lo is not None and hi is not None:
        p_lo, f_lo = prec_f1(lo)
        p_hi, f_hi = prec_f1(hi)
        cols.update(
            precision_at_k_lower=np.minimum(p_lo, 1.0),
            precision_at_k_upper=np.minimum(p_hi, 1.0),
            f1_at_k_lower=f_lo,
            f1_at_k_upper=f_hi,
        )
        best_range = (
            float(thresholds[int(np.argmax(f_hi))]),
            float(thresholds[int(np.argmax(f_lo))]),
        )
    # sampling error of the test-set recall (binomial over the labeled members), carried to
    # precision.  The flag is deliberately conservative: a k is flagged only when even a
    # lower Wilson bound of the recall (z = 3, since many k are looked at, and an effective
    # size 1/(1/n_pos + 1/C) because the pool's own members are random too), with the
    # smallest class size, gives a precision above 1
    c_small = lo if lo is not None else central
    se = np.sqrt(recall * (1 - recall) / n_pos) * c_small / k
    z, m = 3.0, 1.0 / (1.0 / n_pos + 1.0 / c_small)
    centre = (recall + z * z / (2 * m)) / (1 + z * z / m)
    half = (z / (1 + z * z / m)) * np.sqrt(recall * (1 - recall) / m + z * z / (4.0 * m * m))
    flag = (centre - half) * c_small / k > 1
    cols["precision_at_k_se"] = se
    cols["above_one"] = precision > 1  # the flag agrees with the number it flags
    cols["above_one_significant"] = flag
    table = pd.DataFrame(cols, index=pd.Index(k, name="k"))
    above = int(np.sum(flag))
    if above:
        first = int(k[flag][0])
        warnings.warn(
            f"class {label!r}: estimated precision@k exceeds 1 for {above} values of k (first "
            f"at k = {first}): the model recalls the labeled members faster than the pool can "
            "contain them, a sign that the labeled data do not represent the class (or that "
            "the class size is too large)",
            PrecisionAboveOneWarning,
            stacklevel=3,
        )
    best = int(np.argmax(f1))
    return UnlabeledPrecisionAtK(
        table=table,
        class_size=size if lo is None else (lo, hi),
        positive_class=label,
        best_k=int(k[best]),
        best_threshold=float(thresholds[best]),
        best_f1=float(f1[best]),
        best_threshold_range=best_range,
        n_above_one=int(np.sum(precision > 1)),
        n_test_positive=n_pos,
        n_pool=n_pool,
        n_above_one_significant=above,
    )


def _finite(x: Any, name: str) -> np.ndarray:
    arr = as_float_array(x, name)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains {int(np.sum(~np.isfinite(arr)))} NaN or inf value(s)")
    return arr


def precision_at_k_unlabeled(
    test_scores: Any,
    test_labels: Any,
    unlabeled_scores: Any,
    class_size: Any,
    *,
    positive_class: Any = 1,
    classes: Sequence[Any] | None = None,
) -> UnlabeledPrecisionAtK | dict[Any, UnlabeledPrecisionAtK]:
    """Estimate precision@k on an unlabeled pool from test-set recall and a known class size.

    Parameters
    ----------
    test_scores : array_like of shape (n_test,) or (n_test, n_classes)
        Scores of the labeled test rows: for the positive class, or one column
        per class (multi-class; see ``classes``).
    test_labels : array_like of shape (n_test,)
        True labels of the test rows.
    unlabeled_scores : array_like of shape (n_pool,) or (n_pool, n_classes)
        Scores of the unlabeled pool, same layout as ``test_scores``.
    class_size : float, (low, high), or mapping class -> either
        How many members of the class the pool contains, or bounds on it.
        For multi-class scores a mapping with an entry per class to evaluate.
    positive_class : default 1
        The class of interest for one-dimensional scores.
    classes : sequence, optional
        Column labels of two-dimensional scores (default: the sorted labels
        of ``test_labels``).

    Returns
    -------
    UnlabeledPrecisionAtK, or dict class -> UnlabeledPrecisionAtK for multi-class.

    Warns
    -----
    PrecisionAboveOneWarning
        When estimated precision exceeds 1 for some k by more than its sampling error.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> test_y = np.r_[np.ones(500), np.zeros(500)]
    >>> test_s = np.r_[rng.normal(2, 1, 500), rng.normal(0, 1, 500)]
    >>> pool = np.r_[rng.normal(2, 1, 300), rng.normal(0, 1, 2700)]   # 300 members
    >>> res = precision_at_k_unlabeled(test_s, test_y, pool, class_size=300)
    >>> row = res.table.loc[300]
    >>> bool(abs(row["precision_at_k"] - row["recall_at_k"]) < 1e-12)
    True
    >>> 0.5 < res.best_threshold < 2.5
    True
    """
    ts = _finite(test_scores, "test_scores")
    pool = _finite(unlabeled_scores, "unlabeled_scores")
    labels = np.asarray(test_labels)
    if test_labels is not None:
        check_no_missing(labels, "test_labels", "a true label")
    if labels.ndim != 1 or labels.shape[0] != ts.shape[0]:
        raise ValueError(
            f"test_labels must hold one label per test row; got {labels.shape} for "
            f"{ts.shape[0]} rows"
        )
    if ts.ndim == 1:
        if pool.ndim != 1:
            raise ValueError("unlabeled_scores must be 1-D like test_scores")
        if isinstance(class_size, Mapping):
            if positive_class not in class_size:
                raise ValueError(f"class_size has no entry for positive_class {positive_class!r}")
            class_size = class_size[positive_class]
        return _one_class(ts, labels == positive_class, pool, class_size, positive_class)
    if ts.ndim != 2 or pool.ndim != 2 or pool.shape[1] != ts.shape[1]:
        raise ValueError(
            f"multi-class scores need shape (rows, n_classes) for both sets; got {ts.shape} "
            f"and {pool.shape}"
        )
    cols = list(classes) if classes is not None else list(np.unique(labels))
    if len(cols) != ts.shape[1]:
        raise ValueError(
            f"{ts.shape[1]} score columns but {len(cols)} classes; pass classes= in column order"
        )
    if not isinstance(class_size, Mapping):
        raise ValueError("multi-class scores need class_size as a mapping {class: size}")
    out = {}
    for c, size in class_size.items():
        if c not in cols:
            raise ValueError(f"class_size names class {c!r}, which is not among {cols}")
        j = cols.index(c)
        out[c] = _one_class(ts[:, j], labels == c, pool[:, j], size, c)
    return out
