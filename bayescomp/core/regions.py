"""The three regions a difference can fall in, and the probabilities of each.

Left: the candidate is worse by more than the ROPE; rope: practically equivalent;
right: better by more than the ROPE (differences are oriented so that positive means
the candidate is better, whatever the metric's direction).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class RegionProbabilities:
    """Three region probabilities of one kind (left = candidate worse by more than the rope).

    Attributes
    ----------
    p_left, p_rope, p_right : float
    kind : str
        Which summary of the posterior these are (e.g. ``"delta0"``,
        ``"next_dataset"``, ``"baycomp_convention"``).
    """

    p_left: float
    p_rope: float
    p_right: float
    kind: str

    @classmethod
    def of(cls, values: Any, kind: str) -> RegionProbabilities:
        """From a length-3 array ``(left, rope, right)``."""
        left, rope, right = (float(v) for v in values)
        return cls(left, rope, right, kind)

    def __iter__(self):
        return iter((self.p_left, self.p_rope, self.p_right))

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.p_left, self.p_rope, self.p_right)

    def __repr__(self) -> str:
        return (
            f"RegionProbabilities({self.kind}: p_left={self.p_left:.4f}, "
            f"p_rope={self.p_rope:.4f}, p_right={self.p_right:.4f})"
        )


#: decision thresholds a printed probability must never appear to cross
COMMON_GAMMAS = (0.9, 0.95, 0.99)


def format_probability(p: float, gamma: float | None = None, digits: int = 3) -> str:
    """``p`` with ``digits`` decimals, more where rounding would cross a decision threshold.

    The thresholds are ``gamma`` and :data:`COMMON_GAMMAS` (and ``1 - t`` for each): a
    printed number never contradicts the comparison made with the unrounded one.  Where
    six decimals are not enough the text says ``"< 0.95"``.

    Examples
    --------
    >>> format_probability(0.94996, 0.95), format_probability(0.951), format_probability(0.2)
    ('0.94996', '0.951', '0.200')
    >>> format_probability(0.94999999, 0.95)
    '< 0.95'
    >>> format_probability(0.0102, 0.95)  # not 0.0102: 0.010 is not below the cut 0.01
    '0.010'
    """
    p = float(p)
    if not np.isfinite(p):
        return "nan"
    # 1 - 0.99 is 0.010000000000000009 in floating point: the cut is 0.01
    cuts = {*COMMON_GAMMAS, *(round(1 - t, 12) for t in COMMON_GAMMAS)}
    if gamma is not None:
        cuts |= {float(gamma), round(1 - float(gamma), 12)}
    for d in range(digits, 7):
        text = f"{p:.{d}f}"
        if all((float(text) >= t) == (p >= t) for t in cuts):
            return text
    t = min(cuts, key=lambda c: abs(c - p))
    return f"< {t:g}" if p < t else f"≥ {t:g}"


def t_region_masses(rope: float, nu: np.ndarray, loc: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Per-draw Student-t mass below -rope, inside, above +rope: shape (draws, 3)."""
    from scipy import stats

    left = stats.t.cdf(-rope, nu, loc=loc, scale=scale)
    right = stats.t.sf(rope, nu, loc=loc, scale=scale)
    mid = np.clip(1.0 - left - right, 0.0, 1.0)
    return np.column_stack([left, mid, right])


def argmax_shares(sample: np.ndarray) -> np.ndarray:
    """Share of draws (rows of ``sample``, columns left/rope/right) in which each region is
    the most probable: baycomp's summary of a posterior over region probabilities.

    A draw in which several regions are exactly equally probable counts equally for each
    of them (not for the first one, which would favour "left"), so mirrored draws give
    mirrored shares.

    Examples
    --------
    >>> argmax_shares(np.array([[0.5, 0.0, 0.5], [0.2, 0.1, 0.7]])).tolist()
    [0.25, 0.0, 0.75]
    """
    sample = np.asarray(sample, dtype=float)
    top = sample == sample.max(axis=1, keepdims=True)
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)


def shortest_interval(x: np.ndarray, level: float) -> tuple[float, float]:
    """The highest-density interval of the draws ``x``: the shortest interval from a draw to
    the ``floor(level * n)``-th draw after it (sorted), exactly as ``arviz.hdi`` of either
    ArviZ (0.2x and 1.x) picks it.

    Examples
    --------
    >>> shortest_interval(np.array([0.0, 5.0, 6.0, 6.5, 7.0]), 0.6)  # 4 of the 5 draws
    (5.0, 7.0)
    """
    s = np.sort(np.asarray(x, dtype=float).ravel())
    k = min(int(np.floor(level * s.size)), s.size - 1)
    i = int(np.argmin(s[k:] - s[: s.size - k]))
    return float(s[i]), float(s[i + k])
