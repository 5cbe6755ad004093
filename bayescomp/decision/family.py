"""Promotion rules for a *family* of challengers: the false-promotion rate of the selection.

Each step of a champion/challenger walk is calibrated on its own: at the ROPE edge a
challenger is promoted with probability ``1 - gamma``.  With ``k`` challengers the
*selection* promotes one of them far more often (about 25 % with ten challengers at the
edge, ``python bench/selection_operating_characteristics.py``), and the promoted model's
expected gain is biased upward: it was promoted *because* its estimate came out high
(the winner's curse).

Rules (chosen with ``select(rule=...)``, :data:`bayescomp.decision.family_walk.RULES`):

``"family"`` (default)
    All challengers are compared with the baseline on the same splits.  Their mean
    differences ``y`` have a joint correlated-t posterior (Nadeau & Bengio 2003;
    the multivariate t of :mod:`bayescomp.posterior.multivariate`), scale matrix
    ``Sigma = c S / (n - 1)``, ``c = 1/n + rho/(1 - rho)``.  Only the *winner*
    (largest ``y``) can be promoted, and it is tested *given that it won*: the hybrid
    selective test of Andrews, Kitagawa & McCloskey (2024, "Inference on winners",
    QJE), which combines the conditional test given the selection event (Lee, Sun, Sun
    & Taylor 2016, polyhedral lemma) with a Bonferroni projection bound at level
    ``beta = (1 - gamma) / 10``.  The probability that the selection promotes a model
    which is not better beyond the ROPE is at most ``1 - gamma`` whatever ``k``, and
    with a single challenger the rule is today's.  The promoted model's gain is the
    hybrid median-unbiased estimate (the winner's-curse-corrected gain).
``"champion_challenger"``
    The former default: each challenger against the current champion, promote when
    ``P(difference > rope) >= gamma``.  Each step keeps its rate; the selection does not.

Sequential looks spend ``1 - gamma`` across looks with the O'Brien–Fleming-type
spending function of Lan & DeMets (1983) on the information fraction of the correlated
t (:func:`spent_gammas`), so that adding repetitions until a step is decisive keeps the
family-wise rate.  Racing (:func:`racing_drop`) stops fitting a challenger that is
already worse beyond the ROPE with probability ``>= gamma``.

Everything here is a pure, vectorised function of arrays (a leading batch axis is
allowed everywhere), so the same code decides a selection and runs the simulation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

#: share of ``1 - gamma`` given to the projection bound of the hybrid test (AKM's choice)
BETA_SHARE = 0.1


@dataclass(frozen=True)
class JointDifferences:
    """Joint correlated-t posterior of ``k`` challengers' mean differences vs the baseline.

    ``mean`` has shape ``(..., k)``, ``shape`` ``(..., k, k)`` (the scale matrix
    ``c S / (n - 1)``), ``df = n - 1``.  Each margin is the correlated t-test of that
    challenger against the baseline.
    """

    mean: np.ndarray
    shape: np.ndarray
    df: int

    @property
    def scale(self) -> np.ndarray:
        """Marginal scales ``sqrt(diag(shape))``, shape ``(..., k)``."""
        return np.sqrt(np.diagonal(self.shape, axis1=-2, axis2=-1))


def joint_differences(d: Any, rho: float) -> JointDifferences:
    """The joint posterior of the columns of ``d`` (shape ``(..., n, k)``: per-split
    differences challenger minus baseline, oriented so that positive is better).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> j = joint_differences(rng.normal(size=(100, 3)), rho=0.1)
    >>> j.mean.shape, j.shape.shape, j.df
    ((3,), (3, 3), 99)
    """
    d = np.asarray(d, dtype=float)
    if d.ndim < 2 or d.shape[-2] < 2:
        raise ValueError(
            f"joint_differences needs an (n, k) array of per-split differences "
            f"with n >= 2 splits; got shape {d.shape}"
        )
    if not np.all(np.isfinite(d)):
        raise ValueError(
            "the per-split differences contain NaN or infinite values; every "
            "challenger must be scored on every split of the baseline"
        )
    n = d.shape[-2]
    mean = d.mean(axis=-2)
    x = d - mean[..., None, :]
    cov = np.einsum("...ni,...nj->...ij", x, x) / (n - 1)
    c = 1.0 / n + float(rho) / (1.0 - float(rho))
    return JointDifferences(mean, c * cov, n - 1)


def selection_bounds(
    mean: np.ndarray, shape: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The winner and the interval of its estimate that keeps it the winner.

    Returns ``(winner, lower, upper)``: the index of the largest mean, and the bounds
    ``L <= y_winner <= U`` of the selection event ``{y_winner >= y_j for all j}`` with the
    other estimates' parts independent of ``y_winner`` held fixed (Lee et al. 2016).
    """
    k = mean.shape[-1]
    win = np.argmax(mean, axis=-1)
    y = np.take_along_axis(mean, win[..., None], -1)[..., 0]
    col = np.take_along_axis(shape, win[..., None, None], -1)[..., 0]  # Sigma[:, win]
    var = np.take_along_axis(col, win[..., None], -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(var > 0, col / var, 0.0)
        z = mean - b * y[..., None]
        a = 1.0 - b
        bound = z / a
    others = np.arange(k) != win[..., None]
    lower = np.where(others & (a > 1e-12), bound, -np.inf).max(axis=-1, initial=-np.inf)
    upper = np.where(others & (a < -1e-12), bound, np.inf).min(axis=-1, initial=np.inf)
    return win, lower, upper


def _truncated_sf(df: int, x: Any, lo: Any, hi: Any) -> np.ndarray:
    """``P(T >= x | lo <= T <= hi)`` for a standard Student t, stable in both tails."""
    x, lo, hi = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, lo, hi)))
    # reflect where the mass sits in the lower tail, so the ratios keep their precision
    flip = (lo + np.minimum(hi, 1e300)) < 0
    a = np.where(flip, -hi, lo)  # work with the cdf of -T there
    b = np.where(flip, -lo, hi)
    xx = np.where(flip, -x, x)
    ls_a, ls_b, ls_x = (stats.t.logsf(v, df) for v in (a, b, xx))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        above = np.exp(ls_x - ls_a) * -np.expm1(np.minimum(ls_b - ls_x, 0.0))
        den = -np.expm1(ls_b - ls_a)
        p = np.clip(above / den, 0.0, 1.0)
    p = np.where(flip, 1.0 - p, p)
    return np.where(x <= lo, 1.0, np.where(x >= hi, 0.0, p))


@dataclass(frozen=True)
class WinnerTest:
    """The winner of a family of challengers and its selection-adjusted test.

    Attributes (arrays over the batch axes)
    ----------
    winner : index of the challenger with the largest mean difference
    p_right : its unadjusted ``P(difference > rope)`` (what the per-step rule sees)
    p_selective : the hybrid selective p-value of ``difference <= rope`` given that it won;
        the winner is promoted when ``p_selective <= 1 - gamma``
    corrected_gain : the hybrid median-unbiased estimate of the winner's gain
    naive_gain : its mean difference (biased upward by the selection)
    promote : whether the winner is promoted at this ``gamma``
    """

    winner: np.ndarray
    p_right: np.ndarray
    p_selective: np.ndarray
    corrected_gain: np.ndarray
    naive_gain: np.ndarray
    promote: np.ndarray


def projection_critical(df: int, k: int, beta: float) -> float:
    """One-sided Bonferroni critical value covering all ``k`` margins at level ``beta``."""
    return float(stats.t.isf(beta / k, df)) if k > 1 and beta > 0 else np.inf


def winner_test(
    joint: JointDifferences, rope: float, gamma: float = 0.95, beta_share: float = BETA_SHARE
) -> WinnerTest:
    """Test the winner of ``joint`` for ``difference > rope`` given that it won.

    The hybrid test of Andrews, Kitagawa & McCloskey (2024): with ``alpha = 1 - gamma``
    and ``beta = beta_share * alpha`` (0 for one challenger), the winner is promoted when
    its Bonferroni lower bound at level ``beta`` exceeds ``rope``, or when the test
    conditional on the selection event and on that bound covering ``rope`` rejects at
    level ``(alpha - beta) / (1 - beta)``.  Its size is at most ``alpha`` for every
    configuration of the challengers' true differences.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> d = rng.normal(0.0, 0.02, size=(100, 4)); d[:, 2] += 0.05
    >>> w = winner_test(joint_differences(d, 0.1), rope=0.01)
    >>> int(w.winner), bool(w.promote), abs(float(w.corrected_gain - w.naive_gain)) < 1e-3
    (2, True, True)
    """
    alpha = 1.0 - float(gamma)
    k = joint.mean.shape[-1]
    beta = beta_share * alpha if k > 1 else 0.0
    win, lower, upper = selection_bounds(joint.mean, joint.shape)
    y = np.take_along_axis(joint.mean, win[..., None], -1)[..., 0]
    se = np.take_along_axis(joint.scale, win[..., None], -1)[..., 0]
    se_ = np.where(se > 0, se, 1.0)
    crit = projection_critical(joint.df, k, beta)
    p_cond = _truncated_sf(
        joint.df, (y - rope) / se_, (lower - rope) / se_, np.minimum((upper - rope) / se_, crit)
    )
    proj = (y - crit * se) > rope
    level = (alpha - beta) / (1.0 - beta)
    p_sel = np.where(proj, 0.0, np.minimum(1.0, beta + (1.0 - beta) * p_cond))
    promote = proj | (p_cond <= level)
    point = se <= 0  # identical differences on every split: no uncertainty left
    promote = np.where(point, y > rope, promote)
    p_sel = np.where(point, (y <= rope).astype(float), p_sel)
    p_right = np.where(point, (y > rope).astype(float), special.stdtr(joint.df, (y - rope) / se_))
    gain = np.where(point, y, _median_unbiased(joint.df, y, se_, lower, upper, crit))
    return WinnerTest(win, p_right, p_sel, gain, y, promote)


def _median_unbiased(
    df: int, y: np.ndarray, se: np.ndarray, lower: np.ndarray, upper: np.ndarray, crit: float
) -> np.ndarray:
    """Hybrid median-unbiased estimate: the ``mu`` at which the winner's estimate is the
    conditional median, searched inside the projection interval (bisection)."""
    half = np.where(np.isfinite(crit), crit, 8.0) * se
    lo, hi = y - half, y + half
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        sf = _truncated_sf(
            df, (y - mid) / se, (lower - mid) / se, np.minimum((upper - mid) / se, crit)
        )
        below = sf < 0.5  # the estimate is above the conditional median: mu is larger
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def information_fractions(n_splits: Any, rho: float) -> np.ndarray:
    """Information of each look relative to the last: ``(1/n_L + r) / (1/n_l + r)`` with
    ``r = rho / (1 - rho)`` (the inverse squared scale of the correlated t).

    Examples
    --------
    >>> information_fractions([100, 110, 120], 0.1).round(3).tolist()
    [0.986, 0.994, 1.0]
    """
    n = np.asarray(n_splits, dtype=float)
    r = float(rho) / (1.0 - float(rho))
    return (1.0 / n[-1] + r) / (1.0 / n + r)


def spent_gammas(gamma: float, n_splits: Any, rho: float) -> np.ndarray:
    """The promotion threshold of each look when ``1 - gamma`` is spent across looks.

    Lan & DeMets (1983) O'Brien–Fleming-type spending ``a(t) = 2 - 2 Phi(z / sqrt(t))``,
    ``z = Phi^-1(1 - alpha / 2)``, on the information fractions of
    :func:`information_fractions`; look ``l`` may promote with level ``a(t_l) - a(t_{l-1})``
    (the union bound keeps the total at most ``alpha``).  One look: ``[gamma]``.

    Examples
    --------
    >>> spent_gammas(0.95, [100], 0.1).tolist()
    [0.95]
    >>> g = spent_gammas(0.95, [100, 110, 120], 0.1)
    >>> bool(abs((1 - g).sum() - 0.05) < 1e-12), bool(g[0] > 0.95)
    (True, True)
    """
    alpha = 1.0 - float(gamma)
    t = information_fractions(n_splits, rho)
    z = stats.norm.isf(alpha / 2)
    spent = 2.0 * stats.norm.sf(z / np.sqrt(t))
    return 1.0 - np.diff(spent, prepend=0.0)


def racing_drop(p_left: Any, gamma: float) -> np.ndarray:
    """Racing: challengers already worse beyond the ROPE with probability ``>= gamma``
    (after the base design) are not fitted on further repetitions.

    Examples
    --------
    >>> racing_drop([0.99, 0.5], 0.95).tolist()
    [True, False]
    """
    return np.asarray(p_left, dtype=float) >= float(gamma)
