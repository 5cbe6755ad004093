"""A cross-validation design, materialised once and shared by every model.

Any scikit-learn splitter (an object with ``split``), an int, or an iterable of
``(train, test)`` index pairs is turned into a :class:`SplitDesign`: the list of
index pairs plus the bookkeeping the correlated t-test needs (split id, repeat,
fold, ``n_train``, ``n_test``) and a fingerprint that detects a changed design.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


#: the largest split size accepted: every whole number up to it is exact as a float
MAX_ROWS = 2**53


def rho_from_sizes(n_train: Any, n_test: Any) -> float:
    """Mean test fraction ``n_test / (n_train + n_test)`` over splits: the ``rho`` of the
    correlated t-test.  Exact (no summation noise) when every split has the same sizes.

    Sizes must be positive whole numbers up to ``2**53`` (beyond that ``n_train + n_test``
    loses precision, and at 1e308 overflows to inf, which would give ``rho = 0``).

    >>> rho_from_sizes([90, 90, 91], [10, 10, 9])
    0.09666666666666668
    >>> rho_from_sizes([9] * 6, [1] * 6)
    0.1
    """
    sizes = {
        "n_train": np.atleast_1d(np.asarray(n_train, dtype=float)),
        "n_test": np.atleast_1d(np.asarray(n_test, dtype=float)),
    }
    for name, arr in sizes.items():
        ok = np.isfinite(arr) & (arr > 0) & (arr <= MAX_ROWS)
        ok[ok] = arr[ok] % 1 == 0
        if not ok.all():
            raise ValueError(
                f"{name} must be a positive whole number of rows (at most 2**53); "
                f"got {arr[~ok].ravel()[:3].tolist()}: pass the real split sizes"
            )
    frac = sizes["n_test"] / (sizes["n_train"] + sizes["n_test"])
    if frac.size == 0:
        raise ValueError("no splits to compute the test fraction from")
    if np.all(frac == frac.flat[0]):
        return float(frac.flat[0])
    return float(np.mean(frac))


@dataclass(frozen=True)
class SplitDesign:
    """Materialised ``(train, test)`` index pairs with their bookkeeping.

    Attributes
    ----------
    splits : list of (ndarray, ndarray)
        Integer positions of the training and test rows of every split.
    repeat, fold : ndarray of int
        Repetition and fold of each split; -1 where the splitter does not say.
    n_samples : int
        Number of rows the design indexes.
    """

    splits: list[tuple[np.ndarray, np.ndarray]]
    repeat: np.ndarray
    fold: np.ndarray
    n_samples: int

    def __len__(self) -> int:
        return len(self.splits)

    @property
    def n_train(self) -> np.ndarray:
        return np.array([len(tr) for tr, _ in self.splits])

    @property
    def n_test(self) -> np.ndarray:
        return np.array([len(te) for _, te in self.splits])

    @property
    def rho(self) -> float:
        """Test fraction of the design: mean of ``n_test / (n_train + n_test)``."""
        return rho_from_sizes(self.n_train, self.n_test)

    def table(self) -> pd.DataFrame:
        """One row per split: ``split, repeat, fold, n_train, n_test``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "split": np.arange(len(self.splits)),
                "repeat": self.repeat,
                "fold": self.fold,
                "n_train": self.n_train,
                "n_test": self.n_test,
            }
        )

    @property
    def time_ordered(self) -> bool:
        """Whether every training index precedes every test index in every split (a
        rolling-origin design such as ``TimeSeriesSplit``): see :func:`is_time_ordered`."""
        return is_time_ordered(self.splits)

    def fingerprint(self) -> str:
        """SHA-256 of every index of every split: equal designs, equal fingerprints."""
        h = hashlib.sha256()
        h.update(str(self.n_samples).encode())
        for tr, te in self.splits:
            h.update(b"T")
            h.update(np.ascontiguousarray(tr, dtype=np.int64).tobytes())
            h.update(b"V")
            h.update(np.ascontiguousarray(te, dtype=np.int64).tobytes())
        return h.hexdigest()

    def subset(self, index: Iterable[int]) -> SplitDesign:
        """The design restricted to the given split ids (kept in the given order)."""
        idx = list(index)
        return SplitDesign(
            splits=[self.splits[i] for i in idx],
            repeat=self.repeat[idx],
            fold=self.fold[idx],
            n_samples=self.n_samples,
        )


def is_time_ordered(splits: Iterable[tuple[Any, Any]]) -> bool:
    """Whether every split trains only on rows before its test rows (row order = time).

    This holds for ``TimeSeriesSplit`` and any rolling-origin splitter; the per-split
    differences of such a design are serially correlated, not equicorrelated, so
    :func:`bayescomp.compare` uses the time-ordered posterior for them.

    >>> import numpy as np
    >>> from sklearn.model_selection import KFold, TimeSeriesSplit
    >>> X = np.zeros((30, 1))
    >>> is_time_ordered(TimeSeriesSplit(5).split(X)), is_time_ordered(KFold(5).split(X))
    (True, False)
    """
    pairs = list(splits)
    if len(pairs) < 2:
        return False
    return all(np.max(train) < np.min(test) for train, test in pairs)


def _repeat_fold(cv: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n)
    n_repeats = getattr(cv, "n_repeats", None)
    per_repeat = getattr(cv, "cvargs", {}).get("n_splits") or getattr(cv, "n_splits", None)
    if n_repeats and per_repeat and n == n_repeats * per_repeat:
        return i // per_repeat, i % per_repeat
    name = type(cv).__name__
    if "Shuffle" in name:  # every split is an independent hold-out repetition
        return i, np.zeros(n, dtype=int)
    if hasattr(cv, "split"):
        return np.zeros(n, dtype=int), i
    return np.full(n, -1), np.full(n, -1)


def is_classification_target(y: Any) -> bool:
    """Whether ``y`` holds class labels (stratify on it) rather than a regression target.

    scikit-learn's ``type_of_target`` calls a float target whose values all happen to be
    whole numbers "multiclass" (the diabetes target: 214 distinct values in 442 rows).
    Such a target counts as regression here when it has more than 30 distinct values and
    more than one per five rows: as classes, most would have fewer than five members, too
    few for stratified k-fold.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> is_classification_target([0, 1, 1]), is_classification_target(load_diabetes().target)
    (True, False)
    """
    if y is None:
        return False
    from sklearn.utils.multiclass import type_of_target

    if type_of_target(y) not in ("binary", "multiclass"):
        return False
    arr = np.asarray(y)
    if arr.dtype.kind == "f":
        distinct = len(np.unique(arr))
        if distinct > 30 and distinct > len(arr) / 5:
            return False
    return True


def materialise_splits(
    cv: Any,
    X: Any,
    y: Any = None,
    groups: Any = None,
    *,
    classifier: bool | None = None,
) -> SplitDesign:
    """Run the splitter once and keep its ``(train, test)`` pairs.

    Parameters
    ----------
    cv : int, splitter or iterable of (train, test)
        As in scikit-learn: an int means (Stratified)KFold via
        :func:`sklearn.model_selection.check_cv`.
    X, y, groups : array-like
        Passed to ``cv.split``.
    classifier : bool, optional
        Whether an int ``cv`` should stratify; inferred from ``y`` when omitted.

    Raises
    ------
    ValueError
        Fewer than two splits, an empty test set, or a row in both the training
        and the test set of a split.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import RepeatedKFold
    >>> d = materialise_splits(RepeatedKFold(n_splits=5, n_repeats=2, random_state=0), np.zeros((50, 1)))
    >>> len(d), d.rho, d.repeat[:6].tolist(), d.fold[:6].tolist()
    (10, 0.2, [0, 0, 0, 0, 0, 1], [0, 1, 2, 3, 4, 0])
    """
    from sklearn.model_selection import check_cv
    from sklearn.utils import indexable

    try:
        X, y, groups = indexable(X, y, groups)
    except ValueError as exc:
        raise ValueError(f"X, y and groups must have one row per sample: {exc}") from None
    if X is None or len(X) == 0:
        raise ValueError("X is empty or None: the splits need at least one row per fold")
    n_samples = len(X) if not hasattr(X, "shape") else X.shape[0]
    if classifier is None:
        classifier = is_classification_target(y)
    if isinstance(cv, int | np.integer) or cv is None or hasattr(cv, "split"):
        try:
            splitter = check_cv(cv, y, classifier=classifier)
            pairs = list(splitter.split(X, y, groups))
        except ValueError as exc:
            raise ValueError(f"cannot split the {n_samples} rows with cv={cv!r}: {exc}") from None
    elif isinstance(cv, str | bytes):
        raise TypeError(
            f"cv must be an int, a scikit-learn splitter or an iterable of "
            f"(train, test) index pairs; got {cv!r}"
        )
    else:
        splitter = cv
        pairs = cv
    splits: list[tuple[np.ndarray, np.ndarray]] = []
    for k, pair in enumerate(pairs):
        try:
            train, test = pair
        except (TypeError, ValueError):
            raise ValueError(
                f"split {k} is not a (train, test) pair of index arrays; pass a scikit-learn "
                "splitter, an int, or an iterable of (train_indices, test_indices)"
            ) from None
        train = np.asarray(train)
        test = np.asarray(test)
        if train.dtype == bool:
            train = np.flatnonzero(train)
        if test.dtype == bool:
            test = np.flatnonzero(test)
        train = train.astype(np.int64, copy=False)
        test = test.astype(np.int64, copy=False)
        if test.size == 0 or train.size == 0:
            raise ValueError(f"split {k} has an empty training or test set")
        if train.max() >= n_samples or test.max() >= n_samples or min(train.min(), test.min()) < 0:
            raise ValueError(f"split {k} indexes rows outside 0..{n_samples - 1}")
        in_train = np.zeros(n_samples, dtype=bool)  # O(n); np.intersect1d sorts both sides
        in_train[train] = True
        if in_train[test].any():
            raise ValueError(
                f"split {k} has rows in both its training and test set; the test rows must be "
                "held out"
            )
        splits.append((train, test))
    if len(splits) < 2:
        raise ValueError(
            f"the design has {len(splits)} split(s); a paired comparison needs at least 2 — "
            "use repeated cross-validation, e.g. RepeatedStratifiedKFold(n_splits=10, n_repeats=10)"
        )
    repeat, fold = _repeat_fold(splitter, len(splits))
    return SplitDesign(splits=splits, repeat=repeat, fold=fold, n_samples=int(n_samples))
