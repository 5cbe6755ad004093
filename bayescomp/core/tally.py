"""Wins, losses and ties of a candidate against a baseline, split by split.

One helper counts them for every place that reports them (the paired-scores plots of
:meth:`bayescomp.Scores.plot` and of a selection's report), so a tie is never counted
as a win of either model.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


class Tally(NamedTuple):
    """Splits the candidate won, lost and tied (oriented: a win is a *better* score)."""

    wins: int
    losses: int
    ties: int

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.ties

    def text(self, candidate: str, baseline: str) -> str:
        """``"svm better on 31, logreg better on 24, tied on 45 of 100 splits"``."""
        return (
            f"{candidate} better on {self.wins}, {baseline} better on {self.losses}, "
            f"tied on {self.ties} of {self.n} splits"
        )


def win_loss_tie(
    baseline: Any, candidate: Any, higher_is_better: bool = True, tol: float = 0.0
) -> Tally:
    """Count the splits where ``candidate`` scored better, worse, or the same as ``baseline``.

    Parameters
    ----------
    baseline, candidate : array-like of float
        Paired per-split scores (same length, same order).
    higher_is_better : bool, default True
        Orientation of the metric: for a loss a *lower* candidate score is a win.
    tol : float, default 0
        Differences with ``|candidate - baseline| <= tol`` count as ties (0: exact
        equality only, e.g. two models with the same accuracy on a fold).

    Returns
    -------
    Tally
        ``wins + losses + ties`` is the number of splits.

    Examples
    --------
    >>> win_loss_tie([0.9, 0.8, 0.7, 0.7], [0.95, 0.8, 0.6, 0.7])
    Tally(wins=1, losses=1, ties=2)
    >>> win_loss_tie([0.3, 0.2], [0.1, 0.2], higher_is_better=False)
    Tally(wins=1, losses=0, ties=1)
    """
    from bayescomp.core.checks import check_bool

    higher_is_better = bool(check_bool(higher_is_better, "higher_is_better"))
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    if b.shape != c.shape:
        raise ValueError(f"paired scores must have the same length, got {b.shape} and {c.shape}")
    if tol < 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    d = (c - b) if higher_is_better else (b - c)
    return Tally(int((d > tol).sum()), int((d < -tol).sum()), int((np.abs(d) <= tol).sum()))
