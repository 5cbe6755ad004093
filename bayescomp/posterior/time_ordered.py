"""Time-ordered designs: a Bayesian AR(1) model of the per-window differences.

In a rolling-origin design (``TimeSeriesSplit``, an expanding window) the differences
``d_t = candidate_t - baseline_t`` of consecutive test windows are serially correlated,
not equicorrelated: the Nadeau–Bengio ``rho`` of the correlated t-test, taken from the
split sizes, is far too wide when they are independent and far too narrow when they are
strongly autocorrelated.  Here the differences are modelled as a stationary AR(1)
process around the mean difference ``mu``::

    d_t = mu + e_t,   e_t = phi e_{t-1} + eta_t,   eta_t ~ N(0, sigma^2)

with the exact (stationary) Gaussian likelihood, the flat prior on ``mu`` and
``log sigma``, and a Beta prior on ``(phi + 1) / 2``.  Given ``phi``, the posterior of
``mu`` is a Student-t with ``n - 1`` degrees of freedom centred on the GLS mean; ``phi`` is
integrated out on a grid of 400 cells (each cell carries the prior's exact mass), so the
posterior of ``mu`` is a mixture of Student-t's and every region probability is a weighted
sum of t CDFs — closed form, no sampling, a few hundred microseconds.

Why this and not Diebold–Mariano: with 10 to 30 windows the HAC (Newey–West) variance of
a Diebold–Mariano statistic with the Harvey–Leybourne–Newbold correction covers far too
little once the windows are autocorrelated (about 90 % at ``phi = 0.3`` and 60–70 % at
``phi = 0.8``, with any usual bandwidth), because a handful of sample autocovariances cannot
estimate a long-run variance.  Integrating ``phi`` out keeps the 95 % interval's coverage
within 93–97 % for ``phi`` from 0 to 0.8 with 10 and with 30 windows
(``python bench/time_ordered_coverage.py``).  The prior on ``phi`` (Beta(0.15, 0.65) on
``(phi + 1) / 2``) was chosen for that calibration: a flat prior under-covers at
``phi = 0.8`` with 10 windows (about 90 %), Jeffreys' over-covers (98 %) with 30.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import optimize, special, stats

from bayescomp.core.checks import check_level, check_rope
from bayescomp.core.exceptions import ZeroVarianceWarning
from bayescomp.posterior.base import PosteriorBase
from bayescomp.posterior.differences import paired_differences

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

#: Beta(a, b) prior on (phi + 1) / 2 (see the module docstring for why these values)
PRIOR_PHI = (0.15, 0.65)
#: cells of the grid over phi in (-1, 1)
GRID_CELLS = 400


@dataclass(frozen=True)
class TimeOrderedResult(PosteriorBase):
    """Posterior of the mean difference ``mu`` on a time-ordered design.

    A mixture of Student-t's (one per value of the AR(1) coefficient ``phi`` on the grid),
    answering the same questions as
    :class:`~bayescomp.posterior.ttest.CorrelatedTTestResult`.

    Attributes
    ----------
    loc, scale, weights, phi : ndarray
        Per grid cell: the t location (GLS mean), scale, posterior weight and ``phi``.
    df : int
        Degrees of freedom of every component, ``n - 1``.
    n : int
        Number of time windows (paired splits).
    rope : float
        Half-width of the region of practical equivalence.
    """

    loc: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    phi: np.ndarray
    df: int
    n: int
    metric: str | None = None
    differences: np.ndarray | None = field(default=None, repr=False, compare=False)
    higher_is_better: bool = True
    baseline_score: Any = None
    candidate_score: Any = None

    # ------------------------------------------------------------ probabilities
    def cdf(self, x: float) -> float:
        """``P(mu <= x)``."""
        if not np.any(self.scale > 0):
            return float(np.sum(self.weights * (self.loc <= x)))
        z = (x - self.loc) / np.where(self.scale > 0, self.scale, 1.0)
        c = np.where(self.scale > 0, special.stdtr(self.df, z), (self.loc <= x) * 1.0)
        return float(np.clip(np.sum(self.weights * c), 0.0, 1.0))

    def density(self, x: np.ndarray) -> np.ndarray:
        """The posterior density of ``mu`` at the points ``x`` (the components of scale 0, a
        point mass, left out)."""
        keep = (self.weights > 1e-9) & (self.scale > 0)
        scale = self.scale[keep, None]
        z = (np.asarray(x, dtype=float)[None, :] - self.loc[keep, None]) / scale
        return (self.weights[keep, None] * stats.t.pdf(z, self.df) / scale).sum(axis=0)

    @cached_property
    def _tails(self) -> tuple[float, float]:
        return self.cdf(-self.rope), 1.0 - self.cdf(self.rope)

    @property
    def p_better(self) -> float:
        """``P(mu > 0)``: the candidate is better at all."""
        return 1.0 - self.cdf(0.0)

    @property
    def p_worse(self) -> float:
        """``P(mu < 0)``: the risk that the candidate is worse."""
        return self.cdf(0.0)

    @property
    def expected_gain(self) -> float:
        """Posterior mean of ``mu``."""
        return float(np.sum(self.weights * self.loc))

    @property
    def phi_mean(self) -> float:
        """Posterior mean of the AR(1) coefficient of the per-window differences."""
        return float(np.sum(self.weights * self.phi))

    # ---------------------------------------------------------------- intervals
    def quantile(self, q: float) -> float:
        """The ``q`` quantile of ``mu`` (root of the mixture CDF)."""
        if not np.any(self.scale > 0):
            return float(self.loc[0])
        spread = float(np.max(self.scale[self.weights > 1e-12])) * 1e3 + 1.0
        lo = float(np.min(self.loc)) - spread
        hi = float(np.max(self.loc)) + spread
        return float(optimize.brentq(lambda x: self.cdf(x) - q, lo, hi, xtol=1e-12 * spread))

    def interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Equal-tailed credible interval with probability ``confidence_level``."""
        level = check_level(confidence_level, "confidence_level")
        return self.quantile(0.5 - level / 2), self.quantile(0.5 + level / 2)

    def hdi(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """The equal-tailed interval (the mixture is unimodal and nearly symmetric: its
        highest-density interval differs from it only in the far tails)."""
        return self.interval(confidence_level)

    def diagnostics_summary(self) -> dict[str, Any]:
        """The posterior mean of the AR(1) coefficient (the grid is exact: nothing sampled)."""
        return {"phi": self.phi_mean}

    def sample(self, size: int = 10_000, random_state: Any = None) -> np.ndarray:
        """Draws of ``mu``: a grid cell by its weight, then its Student-t."""
        rng = np.random.default_rng(random_state)
        k = rng.choice(len(self.weights), size=int(size), p=self.weights)
        return self.loc[k] + self.scale[k] * rng.standard_t(self.df, int(size))

    method_name = "time_ordered"

    def _columns(self, level: float) -> dict[str, Any]:
        """Posterior mean, interval, AR(1) coefficient, windows."""
        return super()._columns(level) | {"phi": self.phi_mean, "n": self.n, "df": self.df}

    def _repr_extra(self) -> str:
        return f", phi={self.phi_mean:.2f}, n={self.n}"

    def plot(self, *, ax: Axes | None = None, confidence_level: float = 0.95) -> Axes:
        """Posterior density of ``mu`` with the ROPE band and the region probabilities."""
        from bayescomp.report.plots import plot_posterior

        head = f"time-ordered windows (n = {self.n}, posterior mean phi = {self.phi_mean:.2f})"
        return plot_posterior(self, ax=ax, confidence_level=confidence_level, head=head)


def _components(z: np.ndarray, prior: tuple[float, float], cells: int) -> tuple[np.ndarray, ...]:
    """Per grid cell of ``phi``: log posterior weight, GLS mean and t scale of ``mu``.

    The inverse AR(1) correlation matrix is tridiagonal, so every quadratic form
    ``x' R^-1 y`` is ``A + phi^2 B - phi C`` with sums taken once from the data.
    """
    n = len(z)
    edges = np.linspace(0.0, 1.0, cells + 1)
    mass = np.diff(stats.beta.cdf(edges, *prior))  # the prior's exact mass per cell
    phi = 2.0 * (edges[:-1] + edges[1:]) / 2.0 - 1.0
    inner = slice(1, n - 1)
    a = n + phi**2 * (n - 2) - 2.0 * phi * (n - 1)  # 1' R^-1 1
    b = z.sum() + phi**2 * z[inner].sum() - phi * (z[1:].sum() + z[:-1].sum())
    q = (z @ z) + phi**2 * (z[inner] @ z[inner]) - 2.0 * phi * (z[1:] @ z[:-1])
    s = np.maximum(q - b * b / a, 1e-300)
    logw = (
        np.log(np.maximum(mass, 1e-300))
        + 0.5 * np.log1p(-(phi**2))
        - 0.5 * np.log(a)
        - 0.5 * (n - 1) * np.log(s)
    )
    return phi, logw, b / a, np.sqrt(s / ((n - 1) * a))


def time_ordered_test(
    baseline: Any,
    candidate: Any,
    *,
    rope: float = 0.0,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    metric: str | None = None,
    higher_is_better: bool = True,
    prior: tuple[float, float] = PRIOR_PHI,
) -> TimeOrderedResult:
    """Posterior of the mean difference on time-ordered windows (AR(1) differences).

    Parameters
    ----------
    baseline, candidate : array_like
        Scores of the two models on the same test windows, **in time order** (one per
        window; ``baseline`` may be a single number, a performance goal).
    rope : float, default 0
        Half-width of the region of practical equivalence.
    baseline_name, candidate_name, metric : str
        Used in summaries and plots.
    higher_is_better : bool, default True
        ``False`` for losses: the differences are negated so ``p_right`` is "better".
    prior : (float, float), default (0.15, 0.65)
        Beta prior on ``(phi + 1) / 2``; the default keeps the 95 % interval's coverage
        within 93–97 % for ``phi`` in [0, 0.8] with 10 to 30 windows.

    Returns
    -------
    TimeOrderedResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(0.80, 0.01, 12)
    >>> res = time_ordered_test(base, base + 0.02 + rng.normal(0, 0.003, 12), rope=0.005)
    >>> res.decision(0.95).outcome
    'promote'
    """
    d = paired_differences(baseline, candidate)
    if d.ndim != 1:
        raise ValueError(f"pass one score per time window (1-D), got shape {d.shape}")
    if not higher_is_better:
        d = -d
    rope = float(check_rope(rope))
    n = len(d)
    if n < 3:
        raise ValueError(
            f"a time-ordered design needs at least 3 test windows to estimate the "
            f"autocorrelation of the differences, got {n}; use more windows "
            "(e.g. TimeSeriesSplit(n_splits=10))"
        )
    centre, spread = float(d.mean()), float(d.std())
    base_arr = np.asarray(baseline, dtype=float)
    cand_arr = np.asarray(candidate, dtype=float)
    if spread <= 16 * np.finfo(float).eps * max(
        np.abs(cand_arr).max(), np.abs(base_arr).max(), 1e-300
    ):
        warnings.warn(
            "the paired differences are identical on every window: the posterior "
            "is a point mass at the mean difference; check that the models differ",
            ZeroVarianceWarning,
            stacklevel=2,
        )
        one = np.ones(1)
        return TimeOrderedResult(
            one * centre,
            one * 0.0,
            one,
            one * 0.0,
            n - 1,
            n,
            metric,
            d,
            bool(higher_is_better),
            float(base_arr.mean()),
            float(cand_arr.mean()),
            rope=rope,
            baseline_name=baseline_name,
            candidate_name=candidate_name,
        )
    phi, logw, loc, scale = _components((d - centre) / spread, prior, GRID_CELLS)
    w = np.exp(logw - logw.max())
    return TimeOrderedResult(
        loc=centre + spread * loc,
        scale=spread * scale,
        weights=w / w.sum(),
        phi=phi,
        df=n - 1,
        n=n,
        rope=rope,
        baseline_name=baseline_name,
        candidate_name=candidate_name,
        metric=metric,
        differences=d,
        higher_is_better=bool(higher_is_better),
        baseline_score=float(base_arr.mean()),
        candidate_score=float(cand_arr.mean()),
    )
