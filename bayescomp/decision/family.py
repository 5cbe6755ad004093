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
t, with boundaries exact for the looks' joint distribution (:func:`sequential_levels`;
the union bound over looks wasted most of ``1 - gamma``: the correlated t's information
grows by 4 % from 10 to 19 repetitions, so the looks nearly repeat each other), and for
a share :data:`LOOK_SHARE` of it when a winner is selected (:func:`spent_gammas`), so
that adding repetitions until a step is decisive keeps the family-wise rate.  Racing (:func:`racing_drop`) stops fitting a challenger that is
already worse beyond the ROPE with probability ``>= gamma``.

Everything here is a pure, vectorised function of arrays (a leading batch axis is
allowed everywhere), so the same code decides a selection and runs the simulation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special, stats

#: share of ``1 - gamma`` given to the projection bound of the hybrid test (AKM's choice)
BETA_SHARE = 0.1
#: share of ``1 - gamma`` the looks' boundaries are computed with when a winner is selected
#: among ``k >= 2`` challengers (:func:`spent_gammas`)
LOOK_SHARE = 0.8


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


def obrien_fleming_spending(alpha: float, t: Any) -> np.ndarray:
    """Lan & DeMets (1983) O'Brien–Fleming-type spending ``a(t) = 2 - 2 Phi(z / sqrt(t))``,
    ``z = Phi^-1(1 - alpha / 2)``: the error spent up to information fraction ``t``
    (``a(1) = alpha``)."""
    z = stats.norm.isf(float(alpha) / 2)
    return 2.0 * stats.norm.sf(z / np.sqrt(np.asarray(t, dtype=float)))


def sequential_levels(alpha: float, t: Any) -> np.ndarray:
    """Nominal one-sided level of each look of a group-sequential design, exact for the
    canonical joint distribution of the looks' statistics.

    Under the correlated t's model the looks' standardised statistics ``Z_l`` are jointly
    normal with ``corr(Z_l, Z_m) = sqrt(t_l / t_m)`` (``t`` the information fractions:
    :func:`information_fractions`).  The boundary ``c_l`` of look ``l`` solves
    ``P(Z_1 < c_1, ..., Z_{l-1} < c_{l-1}, Z_l >= c_l) = a(t_l) - a(t_{l-1})`` with the
    O'Brien–Fleming-type spending :func:`obrien_fleming_spending`, so the probability of
    crossing at any look is exactly ``alpha``; returns ``1 - Phi(c_l)``.  The
    probabilities come from the recursive numerical integration of Armitage, McPherson &
    Rowe (1969) (Jennison & Turnbull 2000, ch. 19) on the Brownian motion
    ``B_l = Z_l sqrt(t_l)``: a grid finer than the smallest increment's sd, the
    boundary cell weighted by the part of it below the boundary.

    Examples
    --------
    >>> sequential_levels(0.05, [1.0]).round(12).tolist()
    [0.05]
    >>> lv = sequential_levels(0.05, information_fractions([100, 110, 120], 0.1))
    >>> bool(lv[0] < 0.05), bool(lv.sum() > 0.05)  # looks nearly repeat each other
    (True, True)
    """
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size == 0 or np.any(np.diff(t) <= 0) or t[0] <= 0 or t[-1] > 1:
        raise ValueError(
            "information fractions must increase strictly within (0, 1]; got "
            f"{t.tolist()} — the looks must add splits"
        )
    spent = np.diff(obrien_fleming_spending(alpha, t), prepend=0.0)
    steps = np.sqrt(np.diff(t))
    h = float(np.clip(steps.min(initial=1.0) / 10, 2e-5, 0.01))
    x = np.arange(-9.0, 9.0 + h, h)
    w = stats.norm.pdf(x, scale=np.sqrt(t[0])) * h  # mass of each grid cell
    bounds = [stats.norm.isf(spent[0]) * np.sqrt(t[0])]
    for step, a in zip(steps, spent[1:], strict=True):
        w = w * np.clip((bounds[-1] - (x - h / 2)) / h, 0.0, 1.0)  # stopped paths out
        if a <= 0:
            bounds.append(np.inf)
        else:

            def cross(b: float, w: np.ndarray = w, step: float = step, a: float = a) -> float:
                return float(w @ stats.norm.sf((b - x) / step)) - a

            bounds.append(optimize.brentq(cross, -9.0, 20.0, xtol=1e-10))
        m = int(np.ceil(8 * step / h))
        kernel = stats.norm.pdf(np.arange(-m, m + 1) * h / step)
        w = np.convolve(w, kernel / kernel.sum(), mode="same")
    return stats.norm.sf(np.asarray(bounds) / np.sqrt(t))


def spent_gammas(gamma: float, n_splits: Any, rho: float, k: int = 1) -> np.ndarray:
    """The promotion threshold of each look when ``1 - gamma`` is spent across looks.

    ``1 -`` :func:`sequential_levels` on the information fractions of the looks'
    correlated t (:func:`information_fractions`).  With one challenger the looks' test is
    the correlated t-test, whose statistics have the canonical joint distribution, and the
    whole of ``1 - gamma`` is spent.  With ``k >= 2`` the winner's selective statistic
    re-crosses a boundary more often than one statistic does (the winner and the
    truncation of its test move between looks), so the boundaries are computed for
    :data:`LOOK_SHARE` of ``1 - gamma`` — a share calibrated by
    ``python bench/selection_operating_characteristics.py`` (docs/family.md).
    One look: ``[gamma]`` whatever ``k`` (the single-look test is exact).

    Examples
    --------
    >>> spent_gammas(0.95, [100], 0.1, k=10).tolist()
    [0.95]
    >>> spent_gammas(0.95, [100, 110, 120], 0.1).round(4).tolist()
    [0.9516, 0.9588, 0.9609]
    """
    t = information_fractions(n_splits, rho)
    if t.size == 1:
        return np.array([float(gamma)])
    share = 1.0 if int(k) <= 1 else LOOK_SHARE
    return 1.0 - sequential_levels(share * (1.0 - float(gamma)), t)


def racing_drop(p_left: Any, gamma: float) -> np.ndarray:
    """Racing: challengers already worse beyond the ROPE with probability ``>= gamma``
    (after the base design) are not fitted on further repetitions.

    Examples
    --------
    >>> racing_drop([0.99, 0.5], 0.95).tolist()
    [True, False]
    """
    return np.asarray(p_left, dtype=float) >= float(gamma)
