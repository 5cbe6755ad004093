"""Repeated, shuffled group k-fold — the one repeated splitter scikit-learn lacks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from sklearn.model_selection import GroupKFold
from sklearn.utils import check_random_state

from bayescomp.core.checks import check_samples


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
        if not isinstance(n_splits, int | np.integer) or n_splits < 2:
            raise ValueError(f"n_splits must be an int >= 2, got {n_splits!r}")
        if not isinstance(n_repeats, int | np.integer) or n_repeats < 1:
            raise ValueError(f"n_repeats must be an int >= 1, got {n_repeats!r}")
        self.n_splits = int(n_splits)
        self.n_repeats = int(n_repeats)
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
