"""Repetitions of a design: the default splitter and seeded extra repetitions.

:func:`default_cv` is the design :func:`bayescomp.select` uses when none is given;
:func:`block_cv` derives one more seeded repetition of a splitter (sequential testing
adds these while a step is inconclusive); :func:`cv_text` names a design for the
store and the report.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np


def default_cv(y: Any, *, n_splits: int = 10, n_repeats: int = 10, random_state: int = 0) -> Any:
    """``RepeatedStratifiedKFold`` for class labels, ``RepeatedKFold`` otherwise.

    Examples
    --------
    >>> default_cv([0, 1, 0, 1], n_splits=2, n_repeats=3)
    RepeatedStratifiedKFold(n_repeats=3, n_splits=2, random_state=0)
    """
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    from bayescomp.splits.design import is_classification_target

    if int(n_splits) < 2 or int(n_repeats) < 1:
        raise ValueError(f"need n_splits >= 2 and n_repeats >= 1, got {n_splits} and {n_repeats}")
    cls = RepeatedStratifiedKFold if is_classification_target(y) else RepeatedKFold
    return cls(n_splits=int(n_splits), n_repeats=int(n_repeats), random_state=int(random_state))


def block_seed(seed: int, block: int) -> int:
    """Seed of extra repetition ``block`` of a design seeded with ``seed``."""
    return int(np.random.SeedSequence([int(seed), int(block)]).generate_state(1)[0])


def block_cv(cv: Any, block: int) -> tuple[Any, int]:
    """One more seeded repetition of the design: the splitter with ``n_repeats=1`` and a
    seed derived from its own seed and the block number.  Returns ``(splitter, seed)``."""
    seed = getattr(cv, "random_state", None)
    if not hasattr(cv, "split") or not isinstance(seed, int | np.integer):
        raise ValueError(
            "max_repeats > 0 adds seeded repetitions of the design, which needs a splitter with "
            f"an integer random_state (got {type(cv).__name__} with random_state={seed!r}); pass "
            "e.g. RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=0)"
        )
    if hasattr(cv, "shuffle") and not cv.shuffle:
        raise ValueError(
            f"{cv!r} does not shuffle, so every repetition would be identical; use "
            "shuffle=True or a Repeated*KFold splitter with max_repeats > 0"
        )
    new = copy.deepcopy(cv)
    if hasattr(new, "n_repeats"):
        new.n_repeats = 1
    new_seed = block_seed(int(seed), block)
    new.random_state = new_seed
    return new, new_seed


def cv_text(cv: Any) -> str:
    """How a design is named in the store and the report."""
    if hasattr(cv, "split"):
        return repr(cv)
    return f"{type(cv).__name__} of index pairs"
