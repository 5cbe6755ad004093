"""Repeated, shuffled group k-fold — the one repeated splitter scikit-learn lacks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from sklearn.model_selection import GroupKFold
from sklearn.utils import check_random_state

from bayescomp.core.checks import check_number, check_samples


class RepeatedGroupKFold:
    """Group k-fold repeated ``n_repeats`` times with a different shuffle of the groups.

    Rows of one group are always together in the test fold (no leakage between
    related rows, e.g. several samples of one patient); every repetition
    reshuffles which groups share a fold.  Follows the scikit-learn splitter
    protocol (``split``, ``get_n_splits``), so it works anywhere a splitter does.

    Parameters
    ----------
    n_splits : int, default 5
        Folds per repetition (at least 2, at most the number of groups).
    n_repeats : int, default 10
        Repetitions.
    random_state : int, RandomState or None
        Seeds the shuffles; the same seed gives the same splits.
    stratify : bool, default False
        Keep the class proportions of ``y`` in every fold as far as the groups allow
        (scikit-learn's ``StratifiedGroupKFold``); for class labels only.

    Examples
    --------
    >>> import numpy as np
    >>> groups = np.repeat(np.arange(10), 3)
    >>> cv = RepeatedGroupKFold(n_splits=5, n_repeats=2, random_state=0)
    >>> splits = list(cv.split(np.zeros(30), groups=groups))
    >>> len(splits), cv.get_n_splits()
    (10, 10)
    >>> all(set(groups[te]).isdisjoint(groups[tr]) for tr, te in splits)
    True
    """

    def __init__(
        self,
        n_splits: int = 5,
        n_repeats: int = 10,
        random_state: Any = None,
        stratify: bool = False,
    ):
        self.n_splits = check_number(n_splits, "n_splits", integer=True, min_val=2)
        self.n_repeats = check_number(n_repeats, "n_repeats", integer=True, min_val=1)
        self.random_state = random_state
        self.stratify = bool(stratify)
        self.cvargs = {"n_splits": self.n_splits}

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return self.n_splits * self.n_repeats

    def split(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        if groups is None:
            raise ValueError(
                "RepeatedGroupKFold needs groups= (one group label per row), e.g. patient ids"
            )
        check_samples(X, y, groups, finite_X=False)
        n_groups = len(np.unique(np.asarray(groups, dtype=object).astype(str)))
        if self.n_splits > n_groups:
            raise ValueError(
                f"n_splits={self.n_splits} is more than the {n_groups} distinct groups: every "
                f"fold needs at least one group; use n_splits <= {n_groups} or more groups"
            )
        rng = check_random_state(self.random_state)
        for _ in range(self.n_repeats):
            seed = int(rng.randint(np.iinfo(np.int32).max))
            if self.stratify and y is not None:
                from sklearn.model_selection import StratifiedGroupKFold

                strat = StratifiedGroupKFold(
                    n_splits=self.n_splits, shuffle=True, random_state=seed
                )
                yield from strat.split(X, y, groups)
                continue
            cv = GroupKFold(n_splits=self.n_splits, shuffle=True, random_state=seed)
            yield from cv.split(X, y, groups)

    def __repr__(self) -> str:
        return (
            f"RepeatedGroupKFold(n_splits={self.n_splits}, n_repeats={self.n_repeats}, "
            f"random_state={self.random_state!r}" + (", stratify=True)" if self.stratify else ")")
        )


class GroupTimeSeriesSplit:
    """Expanding-window splits over whole groups in time order.

    The rows must be in time order (``read_table(..., time=COL)`` sorts them).  The groups
    are ordered by their first row, and scikit-learn's ``TimeSeriesSplit(n_splits, gap)``
    runs over that sequence of groups: each test window is a run of consecutive groups,
    its training window is every earlier group except the last ``gap`` ones.  So no group
    is in both training and test, and every training row precedes every test row — the
    design is time-ordered (:func:`bayescomp.splits.design.is_time_ordered`) and gets the
    time-ordered posterior.

    Groups must follow each other in time (days, weeks, batches, trading sessions).  A
    group whose rows lie on both sides of where a test window starts — a customer id
    seen over the whole period — cannot be kept whole in a time-ordered design: that is a
    ``ValueError`` naming the group.

    Parameters
    ----------
    n_splits : int, default 5
        Test windows (at least 2); needs at least ``n_splits + 1 + gap`` groups.
    gap : int, default 0
        Groups left out between each training window and its test window.

    Examples
    --------
    >>> import numpy as np
    >>> week = np.repeat(np.arange(6), 2)       # 6 weeks of 2 rows, in time order
    >>> cv = GroupTimeSeriesSplit(n_splits=3)
    >>> splits = list(cv.split(week, groups=week))
    >>> [(set(week[tr].tolist()), set(week[te].tolist())) for tr, te in splits]
    [({0, 1, 2}, {3}), ({0, 1, 2, 3}, {4}), ({0, 1, 2, 3, 4}, {5})]
    """

    def __init__(self, n_splits: int = 5, gap: int = 0):
        self.n_splits = check_number(n_splits, "n_splits", integer=True, min_val=2)
        self.gap = check_number(gap, "gap", integer=True, min_val=0)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return self.n_splits

    def split(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        from sklearn.model_selection import TimeSeriesSplit

        if groups is None:
            raise ValueError(
                "GroupTimeSeriesSplit needs groups= (one group label per row, rows in time "
                "order), e.g. the week of each row"
            )
        check_samples(X, y, groups, finite_X=False)
        labels = np.asarray(groups, dtype=object)
        # rank of each row's group by the group's first row: the groups' time order
        _, first, codes = np.unique(labels.astype(str), return_index=True, return_inverse=True)
        rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")[codes]
        n_groups = len(first)
        need = self.n_splits + 1 + self.gap
        if n_groups < need:
            fit = n_groups - 1 - self.gap
            fix = f"n_splits (--n-splits) {fit} or fewer" if fit >= 2 else "a smaller gap"
            raise ValueError(
                f"{n_groups} groups are too few for {self.n_splits} time-ordered test "
                f"windows of whole groups (gap {self.gap}): use {fix}, or more groups"
            )
        tss = TimeSeriesSplit(n_splits=self.n_splits, gap=self.gap)
        for k, (tr_g, te_g) in enumerate(tss.split(np.zeros(n_groups)), start=1):
            train = np.flatnonzero(rank <= tr_g[-1])
            test = np.flatnonzero((rank >= te_g[0]) & (rank <= te_g[-1]))
            start = test[0]
            if train[-1] > start:
                late = train[train > start]
                names = list(dict.fromkeys(labels[late].tolist()))
                more = f" (and {len(names) - 3} more)" if len(names) > 3 else ""
                raise ValueError(
                    f"group {', '.join(map(repr, names[:3]))}{more} has rows on both sides "
                    f"of the start of test window {k} (row {start} in time order): groups "
                    "must follow each other in time (e.g. weeks or batches) to be kept "
                    "whole in a time-ordered design; for ids seen over the whole period "
                    "(customers, patients) use the groups without the time order, or the "
                    "time order without the groups"
                )
            yield train, test

    def __repr__(self) -> str:
        return f"GroupTimeSeriesSplit(n_splits={self.n_splits}, gap={self.gap})"
