"""The Bayesian correlated t-test (Benavoli et al. 2017).

The paired differences ``d_j = candidate_j - baseline_j`` of ``n`` resampling
splits are correlated, because the training sets overlap.  Nadeau and Bengio
(2003) model that correlation as ``rho = n_test / (n_train + n_test)``, the
test fraction of the design.  With the non-informative prior of Corani and
Benavoli (2015) the posterior of the mean difference ``mu`` is a Student-t::

    mu | d ~ t(df = n - 1,
               loc = mean(d),
               scale = sqrt(s^2 * (1/n + rho / (1 - rho))))

where ``s^2`` is the sample variance of ``d`` (denominator ``n - 1``).  All
region probabilities below come from the t CDF, not from samples.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special, stats

from bayescomp.core.checks import check_bool, check_level, check_rho, check_rope
from bayescomp.core.exceptions import HeavyTailWarning, ZeroVarianceWarning
from bayescomp.core.jsonable import jsonable
from bayescomp.core.orientation import clip_to_range, difference_label
from bayescomp.core.rule import Decision, decide_many
from bayescomp.posterior.base import PosteriorBase
from bayescomp.posterior.differences import as_output as _out
from bayescomp.posterior.differences import corrected_scale, paired_differences, zero_variance

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az
    import pandas as pd
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class CorrelatedTTestResult(PosteriorBase):
    """Posterior of the mean difference ``mu`` (candidate minus baseline).

    Every numeric field is a float for a single comparison, or an array with
    the batch shape for a vectorised call.  ``p_right`` is the probability
    that the candidate is better by more than ``rope`` (baycomp's convention).

    Attributes
    ----------
    mean : float or ndarray
        Posterior location: the mean paired difference.
    scale : float or ndarray
        Posterior scale ``sqrt(s^2 (1/n + rho/(1-rho)))``; 0 for a point mass.
    df : int
        Degrees of freedom, ``n - 1``.
    rho : float or ndarray
        Correlation used (the test fraction of the design).
    n : int
        Number of paired splits.
    rope : float or ndarray
        Half-width of the region of practical equivalence.
    baseline_score, candidate_score : float or ndarray, optional
        Mean score of each model over the splits (the raw metric, not the
        difference; the goal itself for a performance goal), shown beside the
        decision in :meth:`summary`; None when unknown.
    variance : str
        Which variance gave ``scale``: ``"split"`` (the per-split differences', above), or
        the per-row variance of ``compare(..., variance="rows" | "gated")``
        (``"rows"``, ``"gated: rows"``, ``"gated: split"``; ``docs/per_row_variance.md``).
    """

    mean: Any
    scale: Any
    df: int
    rho: Any
    n: int
    metric: str | None = None
    differences: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: orientation of the metric; differences are always oriented so positive = better
    higher_is_better: bool = True
    baseline_score: Any = None
    candidate_score: Any = None
    variance: str = "split"

    # ----------------------------------------------------------------- helpers
    @property
    def _point_mass(self) -> np.ndarray:
        return np.asarray(self.scale) == 0

    def _tail(self, x: Any, upper: bool = False) -> Any:
        """``P(mu > x)`` (``upper``) or ``P(mu < x)``, by the Student-t cdf
        (``scipy.special.stdtr``, which ``scipy.stats.t`` itself calls); where the scale is 0
        the posterior is a point mass at the mean."""
        mean = np.asarray(self.mean, dtype=float)
        point = self._point_mass
        scale = np.where(point, 1.0, np.asarray(self.scale, dtype=float))
        z = (mean - x) / scale if upper else (x - mean) / scale
        return _out(np.where(point, (mean > x) if upper else (mean < x), special.stdtr(self.df, z)))

    @property
    def is_batch(self) -> bool:
        return np.ndim(self.mean) > 0

    # ------------------------------------------------------------ probabilities
    @property
    def p_better(self) -> Any:
        """``P(mu > 0)``: the candidate is better at all."""
        return self._tail(0.0, upper=True)

    @property
    def p_worse(self) -> Any:
        """``P(mu < 0)``: the risk that the candidate is worse."""
        return self._tail(0.0)

    @cached_property
    def _tails(self) -> tuple[np.ndarray, np.ndarray]:
        """``(P(mu < -rope), P(mu > rope))``, computed once."""
        rope = np.asarray(self.rope, dtype=float)
        return np.asarray(self._tail(-rope), float), np.asarray(self._tail(rope, upper=True), float)

    @property
    def expected_gain(self) -> Any:
        """Posterior mean of ``mu`` (the location; for ``n = 2`` the median)."""
        return self.mean

    @property
    def sd(self) -> Any:
        """Posterior standard deviation (``inf`` when ``df <= 2``)."""
        if self.df <= 2:
            return _out(np.where(self._point_mass, 0.0, np.inf))
        return _out(np.asarray(self.scale) * np.sqrt(self.df / (self.df - 2)))

    # ---------------------------------------------------------------- intervals
    def interval(self, confidence_level: float = 0.95) -> tuple[Any, Any]:
        """Equal-tailed credible interval with probability ``confidence_level``.

        For a bounded metric the interval is clipped to the range a difference can take
        (``[-1, 1]`` for accuracy or AUC, see
        :func:`bayescomp.core.orientation.metric_bounds`): the Student-t posterior is
        unbounded, and with few splits its interval reaches impossible values.
        """
        level = check_level(confidence_level, "confidence_level")
        q = stats.t.ppf(0.5 + level / 2, self.df)
        half = q * np.asarray(self.scale)
        low, high = np.asarray(self.mean) - half, np.asarray(self.mean) + half
        lo, hi = clip_to_range(-np.inf, np.inf, self.metric, difference=True)[:2]
        return _out(np.clip(low, lo, hi)), _out(np.clip(high, lo, hi))

    def hdi(self, confidence_level: float = 0.95) -> tuple[Any, Any]:
        """Highest-density interval; the t posterior is symmetric and unimodal, so
        it coincides with the equal-tailed interval."""
        return self.interval(confidence_level)

    # ----------------------------------------------------------------- sampling
    def sample(self, size: int = 10_000, random_state: Any = None) -> np.ndarray:
        """Draws from the posterior, shape ``(size, *batch_shape)``."""
        rng = np.random.default_rng(random_state)
        shape = (int(size), *np.shape(self.mean))
        return np.asarray(self.mean) + np.asarray(self.scale) * rng.standard_t(self.df, shape)

    def to_inference_data(
        self, draws: int = 2000, random_state: Any = None, chains: int = 4
    ) -> az.InferenceData:
        """Posterior draws of ``mu`` as an ``arviz.InferenceData``.

        The draws are exact and independent; they exist so that every ArviZ tool
        (``az.summary``, ``az.plot_posterior(idata, rope=...)``) works.

        Examples
        --------
        >>> import numpy as np, arviz as az
        >>> rng = np.random.default_rng(0)
        >>> res = correlated_ttest(rng.normal(0.8, 0.02, 30), rng.normal(0.82, 0.02, 30), rho=0.1)
        >>> idata = res.to_inference_data(draws=500, random_state=0)
        >>> az.summary(idata, kind="stats").index.tolist()
        ['mu']
        """
        from bayescomp.core.arviz_compat import from_dict

        x = self.sample(int(draws) * int(chains), random_state)
        x = x.reshape(int(chains), int(draws), *np.shape(self.mean))
        dims = {"mu": ["comparison"]} if self.is_batch and x.ndim == 3 else None
        attrs = {
            "method": "correlated_ttest",
            "baseline": self.baseline_name,
            "candidate": self.candidate_name,
            "df": int(self.df),
            "n": int(self.n),
        }
        if not self.is_batch:
            attrs.update(
                rope=float(self.rope),
                rho=float(self.rho),
                loc=float(self.mean),
                scale=float(self.scale),
            )
        if x.ndim > 3:
            x = x.reshape(int(chains), int(draws), -1)
            dims = {"mu": ["comparison"]}
        return from_dict({"posterior": {"mu": x}}, dims=dims, attrs=attrs)

    # ----------------------------------------------------------------- decision
    def decision(self, gamma: float = 0.95, on: str | None = None) -> Decision:
        """Promote / worse / equivalent / inconclusive, with the reason.

        Point-mass posteriors (zero variance) are decided like any other, but
        the reason says that no uncertainty could be estimated.
        """
        if self.is_batch:
            raise ValueError(
                "decision() needs a single comparison; use decisions(gamma) for a batch"
            )
        d = super().decision(gamma, on)
        if bool(self._point_mass):
            d = Decision(**{**d.to_dict(), "reason": d.reason + " (zero variance: point mass)"})
        return d

    def _advice(self, gamma: float) -> str:
        """Undecided on a k-fold design's splits: how many more repetitions would decide
        (:func:`~bayescomp.posterior.repetitions.plan_differences`)."""
        d = self.differences
        if (
            d is None
            or d.ndim != 1
            or d.size < 3
            or not float(self.rho) >= 0.0001  # 1 / rho is no k-fold design to plan
            or bool(self._point_mass)
            or self.decisions(gamma)[()] != "inconclusive"
        ):
            return super()._advice(gamma)
        from bayescomp.posterior.repetitions import plan_differences

        rho = float(self.rho)
        try:  # advice only: a pilot the planner cannot plan keeps the plain advice
            return plan_differences(d, rho, round(1 / rho), float(self.rope), gamma).advice()
        except (ValueError, ArithmeticError):
            return super()._advice(gamma)

    def decisions(self, gamma: float = 0.95) -> np.ndarray:
        """Outcome strings for every comparison of a batch (same rule as :meth:`decision`)."""
        return decide_many(self.p_left, self.p_rope, self.p_right, gamma)

    # ------------------------------------------------------------------ summary
    def summary(self, confidence_level: float | None = None, gamma: float = 0.95) -> pd.DataFrame:
        """One row per comparison: posterior moments, HDI (``confidence_level``, default
        0.95), probabilities, decision (at ``gamma``)."""
        import pandas as pd

        level = 0.95 if confidence_level is None else confidence_level
        low, high = self.hdi(level)
        pct = f"{100 * level:g}"
        cols = {
            "baseline": self.baseline_name,
            "candidate": self.candidate_name,
            "metric": self.metric,
            "baseline_score": np.nan if self.baseline_score is None else self.baseline_score,
            "candidate_score": np.nan if self.candidate_score is None else self.candidate_score,
            "difference": difference_label(self, sep=" - "),
            "mean": self.mean,
            "sd": self.sd,
            f"hdi_{pct}_low": low,
            f"hdi_{pct}_high": high,
            "rho": self.rho,
            "n": self.n,
            "df": self.df,
            "rope": self.rope,
            "p_left": self.p_left,
            "p_rope": self.p_rope,
            "p_right": self.p_right,
            "p_better": self.p_better,
            "decision": self.decisions(gamma),
        }
        shape = np.shape(self.mean)
        data = {
            k: np.broadcast_to(
                np.asarray(
                    v,
                    dtype=object
                    if k in ("baseline", "candidate", "metric", "difference", "decision")
                    else float,
                ),
                shape,
            ).ravel()
            for k, v in cols.items()
        }
        frame = pd.DataFrame(data)
        for k in ("n", "df"):
            frame[k] = frame[k].astype(int)
        return frame

    def __repr__(self) -> str:
        if self.is_batch:
            return (
                f"CorrelatedTTestResult(batch of {np.size(self.mean)} comparisons, n={self.n}, "
                f"df={self.df})"
            )
        return (
            f"CorrelatedTTestResult({difference_label(self, sep=' - ')}: "
            f"mean={float(self.mean):+.4g}, scale={float(self.scale):.4g}, df={self.df}, "
            f"rho={float(self.rho):.3g}, rope={float(self.rope):g}; "
            f"p_left={float(self.p_left):.3f}, p_rope={float(self.p_rope):.3f}, "
            f"p_right={float(self.p_right):.3f})"
        )

    # --------------------------------------------------------------------- plot

    def to_dict(self) -> dict[str, Any]:
        """The summary's row (decision at gamma 0.95) and ``method: "ttest"``, JSON-ready;
        a batch gives ``{"comparisons": [row, ...]}``."""
        rows = [
            {**r, "method": "ttest", "variance": self.variance}
            for r in self.summary().to_dict("records")
        ]
        if self.is_batch:
            return jsonable({"comparisons": rows})
        return jsonable(rows[0] | self._slice_record(self.decision()))

    def density(self, x: np.ndarray) -> np.ndarray:
        """The posterior density of ``mu`` at the points ``x``: the Student-t's."""
        return stats.t.pdf(x, self.df, loc=self.mean, scale=self.scale)

    def plot(self, *, ax: Axes | None = None, confidence_level: float = 0.95) -> Axes:
        """Posterior density with the ROPE band and the three probabilities annotated."""
        from bayescomp.report.plots import plot_posterior

        if self.is_batch:
            raise ValueError("plot() draws a single comparison; index the batch first")
        return plot_posterior(self, ax=ax, confidence_level=confidence_level)


def _mean_score(scores: Any, axis: int, shape: tuple[int, ...]) -> Any:
    """Mean score of one model over the splits (a goal ``p*`` is its own mean)."""
    a = np.asarray(scores, dtype=float)
    m = a if a.ndim == 0 else a.mean(axis=axis)
    return _out(np.broadcast_to(m, shape))


def correlated_ttest(
    baseline: Any,
    candidate: Any,
    *,
    rho: Any,
    rope: Any = 0.0,
    axis: int = -1,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    metric: str | None = None,
    higher_is_better: bool = True,
) -> CorrelatedTTestResult:
    """Bayesian correlated t-test on paired per-split scores.

    Parameters
    ----------
    baseline, candidate : array_like
        Scores of the two models on the *same* splits, splits along ``axis``.
        ``baseline`` may be a single number (a performance goal ``p*``).
        Higher must mean better; flip signs (or use :func:`bayescomp.compare`
        with ``higher_is_better=False``) for losses.
    rho : float or array_like
        Correlation between splits, the test fraction of the design
        ``n_test / (n_train + n_test)`` — 0.1 for 10-fold CV, 0.2 for an 80/20
        shuffle split.  Must lie in ``[0, 1)``; broadcast against the batch.
    rope : float or array_like, default 0
        Half-width of the region of practical equivalence on the metric's scale.
    axis : int, default -1
        Axis holding the splits; every other axis is a batch of comparisons.
    baseline_name, candidate_name, metric : str
        Used in summaries and plots.
    higher_is_better : bool, default True
        ``False`` for losses (RMSE, log-loss): the differences are then
        ``baseline - candidate``, so that ``p_right`` is still "candidate better".

    Returns
    -------
    CorrelatedTTestResult

    Raises
    ------
    ValueError
        On NaN/inf scores, mismatched shapes, fewer than two splits, rho outside
        ``[0, 1)`` or a negative rope.

    Warns
    -----
    ZeroVarianceWarning
        When the differences are identical on every split (point-mass posterior).

    Examples
    --------
    >>> import numpy as np
    >>> base = np.array([0.80, 0.82, 0.79, 0.81, 0.83, 0.80, 0.78, 0.82, 0.81, 0.80])
    >>> cand = base + np.array([0.02, 0.01, 0.03, 0.02, 0.00, 0.02, 0.03, 0.01, 0.02, 0.02])
    >>> res = correlated_ttest(base, cand, rho=0.1, rope=0.01)
    >>> round(res.mean, 3), res.df
    (0.018, 9)
    >>> res.decision(0.95).outcome
    'promote'
    """
    higher_is_better = check_bool(higher_is_better, "higher_is_better")
    d = paired_differences(baseline, candidate, axis=axis)
    if not higher_is_better:
        d = -d
    r = check_rho(rho)
    rope_arr = check_rope(rope)
    n = d.shape[-1]
    mean, sd, scale = corrected_scale(d, r)
    # zero variance: all differences identical up to rounding of the scores (relative to
    # the scores' own magnitude, so the answer does not change when they are rescaled)
    zero = zero_variance(sd, baseline, candidate, axis=axis)
    if np.any(zero):
        count = int(np.sum(zero))
        where = "" if np.ndim(zero) == 0 else f" in {count} of {np.size(zero)} comparisons"
        warnings.warn(
            f"the paired differences are identical on every split{where}: the posterior is a "
            "point mass at the mean difference and carries no uncertainty; check that the two "
            "models really differ (or that the scores are not copies)",
            ZeroVarianceWarning,
            stacklevel=2,
        )
        scale = np.where(zero, 0.0, scale)
    if n == 2:
        warnings.warn(
            "only 2 paired splits: the posterior is a Cauchy (df = 1) with no mean and very "
            "heavy tails; use more repetitions for a useful answer",
            HeavyTailWarning,
            stacklevel=2,
        )
    shape = np.broadcast_shapes(np.shape(mean), np.shape(r), np.shape(rope_arr))
    return CorrelatedTTestResult(
        mean=_out(np.broadcast_to(mean, shape)),
        scale=_out(np.broadcast_to(scale, shape)),
        df=n - 1,
        rho=_out(np.broadcast_to(r, shape)),
        n=n,
        rope=_out(np.broadcast_to(rope_arr, shape)),
        baseline_name=baseline_name,
        candidate_name=candidate_name,
        metric=metric,
        differences=d,
        higher_is_better=bool(higher_is_better),
        baseline_score=_mean_score(baseline, axis, shape),
        candidate_score=_mean_score(candidate, axis, shape),
    )
