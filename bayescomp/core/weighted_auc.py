"""ROC AUC of many weighted resamples at once, shared by the bootstrap of one model's
metric (``metrics/``) and the Bayesian bootstrap of a difference (``posterior/``).

The Mann–Whitney form with mid-ranks for ties (the trapezoidal area of the ROC curve),
one pass over the sorted scores for a whole batch of weight vectors; the tests check it
against ``sklearn.metrics.roc_auc_score(..., sample_weight=w)``.
"""

from __future__ import annotations

import numpy as np


def auc_weighted(positive: np.ndarray, score: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """AUC of each frequency-weighted resample (``weights`` has shape (r, b)).

    Equal to ``roc_auc_score(y, score, sample_weight=w)`` for every row ``w``.
    """
    order = np.argsort(score, kind="stable")
    s = score[order]
    pos = positive[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # groups of tied scores
    out = np.empty(weights.shape[0])
    step = max(1, 2_000_000 // max(s.size, 1))
    for start in range(0, weights.shape[0], step):
        w = weights[start : start + step][:, order].astype(float)
        wp = np.add.reduceat(w * pos, starts, axis=1)
        wn = np.add.reduceat(w * ~pos, starts, axis=1)
        below = np.cumsum(wn, axis=1) - wn
        num = (wp * (below + 0.5 * wn)).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + step] = num / (wp.sum(axis=1) * wn.sum(axis=1))
    return out
