"""The family rule's maths: promote only what is better beyond the ROPE for the whole
selection of challengers (``docs/family.md``): the joint correlated-t posterior
(:func:`joint_differences`), the family test (:func:`family_test`), γ spent across looks
(:func:`sequential_levels`, :func:`spent_gammas`, :data:`LOOK_SHARE`) and racing
(:func:`racing_drop`).  Everything is a pure, vectorised function of arrays (a leading
batch axis is allowed), so the same code decides a selection and runs
``bench/selection_operating_characteristics.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special, stats

#: shares of ``1 - gamma`` of the three tests of :func:`family_test`: the winner's
#: conditional test, Dunnett's max-t band and the runner-up test (chosen by the trade-off
#: curve of ``python bench/selection_operating_characteristics.py --curve``)
SHARES = (0.5, 0.25, 0.25)
#: a challenger whose t-statistic against the ROPE edge is below ``-SCREEN`` is clearly not
#: better beyond the ROPE and does not count in the family
SCREEN = 1.5
#: the union is calibrated at this share of ``1 - gamma`` on the least-favourable draws:
#: with the challengers' covariance estimated from the data the calibration at the whole
#: of it promoted 5.6 % at the edge (k = 3, independent scores, 8 000 runs), each test
#: alone 5.0 %; the share keeps the measured rate at or below 5 %
CALIBRATION_SHARE = 0.9
#: below these degrees of freedom (two or three splits) the challengers' estimated
#: correlation is degenerate (of rank 1 or 2, its entries near +-1) and the union calibrated
#: on it promoted 7-21 % at the edge: the family test is then Bonferroni's over every
#: challenger's correlated t-test, valid whatever their correlation
MIN_DF = 3
#: seeded draws of the least-favourable configuration that calibrate :func:`family_test`
LFC_DRAWS = 4000
LFC_SEED = 20261126
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
class FamilyTest:
    """Which challengers of a family are certified better beyond the ROPE, and which one
    is promoted.

    Attributes (arrays over the batch axes; ``(..., k)`` where a challenger axis is named)
    ----------
    winner : index of the challenger with the largest mean difference
    promoted : index of the promoted challenger (the certified one with the largest mean
        difference), ``-1`` when none is certified
    certified : ``(..., k)`` certified better beyond the ROPE for the whole family
    p_family : ``(..., k)`` the family-adjusted p-value of ``difference <= rope``: a
        challenger is certified when it is at most ``1 - gamma``
    p_right : ``(..., k)`` the unadjusted ``P(difference > rope)`` of each challenger
    plausible : ``(..., k)`` challengers that count in the family (not clearly below the
        ROPE edge: :data:`SCREEN`)
    lower_bound : ``(..., k)`` the lower bound of each challenger's gain that holds for all
        of them at once with probability ``gamma`` (Dunnett's simultaneous band over the
        plausible challengers): a promoted model's gain that its selection cannot inflate
    """

    winner: np.ndarray
    promoted: np.ndarray
    certified: np.ndarray
    p_family: np.ndarray
    p_right: np.ndarray
    plausible: np.ndarray
    lower_bound: np.ndarray

    @property
    def promote(self) -> np.ndarray:
        """Whether a challenger is promoted."""
        return np.asarray(self.promoted) >= 0


def _selective_p(mean: Any, shape: Any, se: Any, keep: Any, rope: float, df: int) -> Any:
    """The conditional p-value of ``difference <= rope`` for the winner among ``keep``,
    given that it won (the polyhedral lemma of Lee et al. 2016)."""
    win, lower, upper = selection_bounds(np.where(keep, mean, -np.inf), shape)
    y = np.take_along_axis(mean, win[..., None], -1)[..., 0]
    s = np.take_along_axis(se, win[..., None], -1)[..., 0]
    with np.errstate(invalid="ignore"):
        lo = np.where(np.isfinite(lower), (lower - rope) / s, -np.inf)
        hi = np.where(np.isfinite(upper), (upper - rope) / s, np.inf)
    return _truncated_sf(df, (y - rope) / s, lo, hi)


def _sf_from_draws(draws: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P(S >= x)`` for the empirical law of ``draws`` ``(..., D)``, ``x`` ``(..., q)``."""
    d = draws.shape[-1]
    s = np.sort(draws, axis=-1).reshape(-1, d)
    xs = np.broadcast_to(x, draws.shape[:-1] + x.shape[-1:]).reshape(s.shape[0], -1)
    out = np.stack([np.searchsorted(a, b, side="left") for a, b in zip(s, xs, strict=True)])
    return (1.0 - out / d).reshape(draws.shape[:-1] + x.shape[-1:])


def _runner_up(x: np.ndarray) -> np.ndarray:
    """The second largest value along the last axis (``-inf`` for one column)."""
    k = x.shape[-1]
    return np.partition(x, k - 2, axis=-1)[..., k - 2] if k > 1 else np.full(x.shape[:-1], -np.inf)


def _least_favourable(corr: np.ndarray, keep: np.ndarray, df: int, draws: int) -> np.ndarray:
    """The challengers' t-statistics ``(..., D, k)`` with every plausible challenger exactly
    at the ROPE edge (the others ``-inf``), seeded so that a decision is reproducible.

    Each statistic has its own scale estimate, as in the data: the mean differences are
    normal with correlation ``corr`` and their scatter matrix is Wishart with ``df``
    degrees of freedom (Bartlett's decomposition), independent of them — a shared
    chi-square for all of them (the multivariate t) makes the maximum lighter-tailed and
    the calibration liberal.  Bartlett's decomposition needs ``df > k - 1``; with at least
    as many challengers as splits the scatter matrix is singular and is drawn as what it
    is, the sum of ``df`` outer products of normal vectors (:func:`_singular_scatter`)."""
    k = corr.shape[-1]
    rng = np.random.default_rng(LFC_SEED)
    if df <= k - 1:
        root = _low_rank_root(corr)
        z = rng.standard_normal((draws, root.shape[-1]))
        scatter = _singular_scatter(root, df, draws, rng)
        t0 = np.einsum("...ir,dr->...di", root, z) / np.sqrt(scatter)
        return np.where(keep[..., None, :], t0, -np.inf)
    chol = np.linalg.cholesky(corr + 1e-10 * np.eye(k))
    z = rng.standard_normal((draws, k))
    bartlett = np.tril(rng.standard_normal((draws, k, k)), -1)
    rows = np.arange(k)
    bartlett[:, rows, rows] = np.sqrt(rng.chisquare(df - rows, size=(draws, k)))
    scatter = (np.einsum("...ij,djm->...dim", chol, bartlett) ** 2).sum(-1) / df
    t0 = np.einsum("...ij,dj->...di", chol, z) / np.sqrt(scatter)
    return np.where(keep[..., None, :], t0, -np.inf)


def _low_rank_root(corr: np.ndarray) -> np.ndarray:
    """``F`` ``(..., k, r)`` with ``F F' = corr`` for a positive semi-definite ``corr`` of
    any rank (an estimate from fewer splits than challengers is singular): its
    eigenvectors scaled by the roots of the eigenvalues, ``r`` the largest numerical rank
    in the batch (the null directions add nothing)."""
    lam, vec = np.linalg.eigh(corr)
    lam = np.clip(lam, 0.0, None)
    r = int((lam > 1e-12 * lam[..., -1:]).sum(-1).max(initial=1))
    return vec[..., -r:] * np.sqrt(lam[..., None, -r:])


def _singular_scatter(root: np.ndarray, df: int, draws: int, rng: Any) -> np.ndarray:
    """The diagonal of ``draws`` scatter matrices ``(..., D, k)`` divided by ``df``: each
    the sum of ``df`` outer products of normal vectors with covariance ``root root'``, the
    Wishart law for any ``df >= 1``, also below the dimension (one draw of ``D`` vectors at
    a time, for memory)."""
    out = np.zeros((*root.shape[:-2], draws, root.shape[-2]))
    for _ in range(df):
        out += np.einsum("...ir,dr->...di", root, rng.standard_normal((draws, root.shape[-1]))) ** 2
    return out / df


def family_test(
    joint: JointDifferences,
    rope: float,
    gamma: float = 0.95,
    *,
    shares: tuple[float, float, float] = SHARES,
    draws: int = LFC_DRAWS,
) -> FamilyTest:
    """Certify the challengers of ``joint`` better beyond ``rope`` for the whole family.

    Three tests of ``difference <= rope``, each strongest where the others are weak, share
    ``1 - gamma`` (:data:`SHARES`) over the *plausible* challengers (those whose
    t-statistic against the ROPE edge is above ``-``:data:`SCREEN`; clearly worse ones
    cost nothing): the winner's conditional test given that it won (strong for a lone
    winner), the simultaneous max-t band of Dunnett (strong for several close winners;
    it certifies every challenger above its bound) and the runner-up's order statistic
    (strong when two or more are good).  The union is calibrated on ``draws`` seeded
    draws of the least-favourable configuration — every plausible challenger at the ROPE
    edge, with the correlation of ``joint`` (:func:`_least_favourable`) — so that it
    rejects there with probability ``1 - gamma``: ``p_family`` is the share of those
    draws whose smallest share-weighted p-value is at most the challenger's.  With one
    plausible challenger it is the correlated t-test; with fewer than :data:`MIN_DF` degrees
    of freedom, Bonferroni's test over the ``k`` correlated t-tests (and its bound).  Any
    number of challengers is allowed, also more than splits (the draws' scatter matrix is
    then singular: :func:`_least_favourable`).  The operating characteristics are
    in ``bench/selection_operating_characteristics.py`` (``docs/family.md``).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> d = rng.normal(0.0, 0.02, size=(100, 4)); d[:, 2] += 0.05
    >>> f = family_test(joint_differences(d, 0.1), rope=0.01)
    >>> int(f.winner), int(f.promoted), f.certified.tolist()
    (2, 2, [False, False, True, False])
    """
    mean = np.asarray(joint.mean, dtype=float)
    batch, k = mean.shape[:-1], mean.shape[-1]
    n = int(np.prod(batch, dtype=int))
    step = max(1, 4_000_000 // (draws * k * k))  # batch elements per chunk (memory)
    flat = [
        _family_test(
            JointDifferences(
                mean.reshape(n, k)[i : i + step],
                np.broadcast_to(joint.shape, (*batch, k, k)).reshape(n, k, k)[i : i + step],
                joint.df,
            ),
            rope,
            gamma,
            shares,
            draws,
        )
        for i in range(0, n, step)
    ]
    parts = [np.concatenate(p) for p in zip(*flat, strict=True)]
    shaped = [p.reshape(batch + p.shape[1:]) for p in parts]
    return FamilyTest(*shaped)


def _family_test(
    joint: JointDifferences,
    rope: float,
    gamma: float,
    shares: tuple[float, float, float],
    draws: int,
) -> tuple[np.ndarray, ...]:
    """:func:`family_test` on a flat batch ``(b, k)``: the fields of :class:`FamilyTest`."""
    mean, shape, df = joint.mean, joint.shape, joint.df
    k = mean.shape[-1]
    point = joint.scale <= 0  # identical differences on every split: no uncertainty
    se = np.where(point, 1.0, joint.scale)
    t = np.where(point, np.where(mean > rope, np.inf, -np.inf), (mean - rope) / se)
    p_right = np.where(point, (mean > rope).astype(float), special.stdtr(df, t))
    winner = np.argmax(mean, axis=-1)
    keep = (t > -SCREEN) | (np.arange(k) == winner[..., None])
    if df < MIN_DF:
        return _bonferroni(mean, se, point, p_right, winner, keep, rope, gamma, df)

    def weighted(p: Any, share: float) -> Any:  # a test without a share never rejects
        return np.asarray(p) / share if share > 0 else np.full(np.shape(p), np.inf)

    f_sel, f_max, f_second = shares
    tk = np.where(keep, t, -np.inf)
    corr = np.where(point[..., :, None] | point[..., None, :], np.eye(k), shape)
    corr = corr / (se[..., :, None] * se[..., None, :])
    t0 = _least_favourable(corr, keep, df, draws)
    p_sel0 = _selective_p(
        rope + t0 * se[..., None, :],
        shape[..., None, :, :],
        se[..., None, :],
        keep[..., None, :],
        rope,
        df,
    )
    max0, second0 = t0.max(-1), _runner_up(t0)
    several = keep.sum(-1) >= 2
    p_second0 = np.where(several[..., None], _sf_from_draws(second0, second0), 1.0)
    m0 = np.minimum(weighted(p_sel0, f_sel), weighted(_sf_from_draws(max0, max0), f_max))
    m0 = np.minimum(m0, weighted(p_second0, f_second))
    p_max = _sf_from_draws(max0, tk)  # (..., k): Dunnett's p of each challenger
    p_second = np.where(several, _sf_from_draws(second0, _runner_up(tk)[..., None])[..., 0], 1.0)
    p_sel = _selective_p(mean, shape, se, keep, rope, df)
    p_win = np.take_along_axis(p_max, winner[..., None], -1)[..., 0]
    m_win = np.minimum(weighted(p_sel, f_sel), weighted(p_win, f_max))
    m_win = np.minimum(m_win, weighted(p_second, f_second))
    m = np.where(np.arange(k) == winner[..., None], m_win[..., None], weighted(p_max, f_max))
    p_family = np.where(keep, np.minimum(1.0, _sf_from_draws(-m0, -m) / CALIBRATION_SHARE), 1.0)
    alone = ~several[..., None] | (k == 1)  # the correlated t-test, exactly
    p_family = np.where(alone & keep, 1.0 - p_right, p_family)
    p_family = np.where(point, (mean <= rope).astype(float), p_family)
    certified = p_family <= 1.0 - float(gamma)
    gain = np.where(certified, mean, -np.inf)
    promoted = np.where(certified.any(-1), gain.argmax(-1), -1)
    # the simultaneous lower bound of every challenger's gain: Dunnett's max-t quantile
    c = np.where(several, np.quantile(max0, float(gamma), axis=-1), stats.t.isf(1 - gamma, df))
    lower_bound = np.where(point, mean, mean - c[..., None] * se)
    return winner, promoted, certified, p_family, p_right, keep, lower_bound


def _bonferroni(
    mean: Any,
    se: Any,
    point: Any,
    p_right: Any,
    winner: Any,
    keep: Any,
    rope: float,
    gamma: float,
    df: int,
) -> tuple[np.ndarray, ...]:
    """:func:`_family_test`'s fields by Bonferroni's test over the ``k`` correlated t-tests
    and its simultaneous bound (fewer than :data:`MIN_DF` degrees of freedom)."""
    k = mean.shape[-1]
    p_family = np.where(point, (mean <= rope).astype(float), np.minimum(1.0, k * (1.0 - p_right)))
    certified = p_family <= 1.0 - float(gamma)
    promoted = np.where(certified.any(-1), np.where(certified, mean, -np.inf).argmax(-1), -1)
    c = stats.t.isf((1.0 - float(gamma)) / k, df)
    lower_bound = np.where(point, mean, mean - c * se)
    return winner, promoted, certified, p_family, p_right, keep, lower_bound


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
    whole of ``1 - gamma`` is spent.  With ``k >= 2`` the family test's statistic
    re-crosses a boundary more often than one statistic does (the winner and the
    truncation of its test move between looks), so the boundaries are computed for
    :data:`LOOK_SHARE` of ``1 - gamma`` — checked by
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
