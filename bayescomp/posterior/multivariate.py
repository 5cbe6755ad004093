"""Several metrics at once: the joint correlated-t posterior of the difference vector.

The per-split differences of ``p`` metrics are equicorrelated across splits (``rho``, the
test fraction) with an unknown covariance between metrics; the posterior of the mean is a
multivariate Student t in closed form, whose marginals (``prior="marginal"``) are exactly
the univariate correlated t-tests.  The promotion probability with guardrails is a closed
form times a seeded Monte Carlo share (its standard error reported).  The model and its
priors: ``docs/guardrails.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from bayescomp.core.checks import check_gamma, check_number, check_rho, check_rope
from bayescomp.core.jsonable import jsonable
from bayescomp.core.margins import Absolute
from bayescomp.core.regions import RegionProbabilities, format_probability
from bayescomp.core.rule import Decision, gate
from bayescomp.posterior.base import PosteriorBase
from bayescomp.posterior.ttest import CorrelatedTTestResult

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

#: prior name -> nu0 as a function of the number of metrics p
PRIORS = {"marginal": lambda p: p - 1, "jeffreys": lambda p: 0}


@dataclass(frozen=True)
class UtilityDecision:
    """The cost-aware decision: switch when the expected utility is positive.

    ``U = sum_j gains[j] * mu_j - switching_cost`` with ``mu_j`` the oriented difference
    of metric ``j`` (positive = candidate better), so ``gains[j]`` is the value of one unit
    of improvement.  ``U`` is linear in ``mu``, so its posterior is a univariate Student t
    and ``expected_utility`` and ``p_positive = P(U > 0)`` are exact.
    """

    outcome: str
    expected_utility: float
    p_positive: float
    sd: float
    gains: dict[str, float]
    switching_cost: float
    reason: str

    def __str__(self) -> str:
        return f"{self.outcome}: {self.reason}"


@dataclass(frozen=True)
class MultiMetricResult(PosteriorBase):
    """Joint posterior of the oriented differences of several metrics.

    The first metric is the *primary* one: ``p_left``, ``p_rope``, ``p_right``,
    ``p_better``, ``hdi`` and ``plot`` describe it, so the result satisfies
    :class:`bayescomp.core.protocols.Posterior`; the other metrics are guardrails.

    Attributes
    ----------
    mean : ndarray, shape (p,)
        Posterior location: the mean oriented difference of each metric.
    shape : ndarray, shape (p, p)
        Scale matrix of the multivariate t, ``c S / df``.
    df : int
    rho : float
    n : int
        Number of paired splits.
    rope : ndarray, shape (p,)
    metrics : tuple of str
    directions : tuple of bool
        Whether higher is better, per metric.
    """

    mean: np.ndarray
    shape: np.ndarray
    df: int
    rho: float
    n: int
    metrics: tuple[str, ...]
    directions: tuple[bool, ...]
    differences: np.ndarray | None = field(default=None, repr=False, compare=False)
    prior: str = "marginal"
    draws: int = 100_000
    random_state: Any = 0
    gains: Mapping[str, float] | None = None
    switching_cost: float = 0.0
    #: mean score of each model on each metric (raw, not oriented); None when unknown
    baseline_scores: tuple[float, ...] | None = None
    candidate_scores: tuple[float, ...] | None = None

    # ------------------------------------------------------------- the primary metric
    @property
    def metric(self) -> str:
        return self.metrics[0]

    @property
    def higher_is_better(self) -> bool:
        return self.directions[0]

    @property
    def half_width(self) -> float:  # the primary metric's
        return float(self.rope[0])

    def marginal(self, metric: str | None = None) -> CorrelatedTTestResult:
        """One metric's marginal posterior, a univariate Student t (with the default prior,
        exactly :func:`bayescomp.correlated_ttest` of that metric)."""
        j = self._index(metric)
        diffs = None if self.differences is None else self.differences[:, j]
        return CorrelatedTTestResult(
            mean=float(self.mean[j]),
            scale=math.sqrt(max(float(self.shape[j, j]), 0.0)),
            df=self.df,
            rho=float(self.rho),
            n=self.n,
            rope=float(self.rope[j]),
            baseline_name=self.baseline_name,
            candidate_name=self.candidate_name,
            metric=self.metrics[j],
            differences=diffs,
            higher_is_better=self.directions[j],
            baseline_score=None if self.baseline_scores is None else self.baseline_scores[j],
            candidate_score=None if self.candidate_scores is None else self.candidate_scores[j],
        )

    def _index(self, metric: str | None) -> int:
        if metric is None:
            return 0
        if metric not in self.metrics:
            raise ValueError(f"unknown metric {metric!r}; this posterior covers {self.metrics}")
        return self.metrics.index(metric)

    @property
    def _tails(self) -> tuple[float, float]:
        primary = self.marginal()
        return primary.p_left, primary.p_right

    @property
    def baseline_score(self) -> float | None:
        return None if self.baseline_scores is None else self.baseline_scores[0]

    @property
    def candidate_score(self) -> float | None:
        return None if self.candidate_scores is None else self.candidate_scores[0]

    @property
    def p_better(self) -> float:
        return self.marginal().p_better

    @property
    def p_worse(self) -> float:
        return self.marginal().p_worse

    @property
    def expected_gain(self) -> float:
        return float(self.mean[0])

    def hdi(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """HDI of the primary metric's difference."""
        return self.marginal().hdi(confidence_level)

    def probabilities(self) -> dict[str, RegionProbabilities]:
        """Each metric's marginal (left, rope, right) probabilities, the primary first."""
        return {
            m: RegionProbabilities.of(self.marginal(m).probabilities()["mu"], m)
            for m in self.metrics
        }

    def diagnostics_summary(self) -> dict[str, Any]:
        """The Monte Carlo error of :attr:`p_joint` (the marginals are in closed form)."""
        return {"draws": self.draws, "p_joint_se": self.p_joint_se}

    # ----------------------------------------------------------------- the joint posterior
    def sample(self, size: int = 10_000, random_state: Any = None) -> np.ndarray:
        """Draws of the difference vector, shape ``(size, p)``."""
        dist = stats.multivariate_t(
            loc=self.mean, shape=self.shape, df=self.df, allow_singular=True
        )
        draws = dist.rvs(size=int(size), random_state=np.random.default_rng(random_state))
        return np.asarray(draws, dtype=float).reshape(int(size), len(self.metrics))

    @cached_property
    def _draws(self) -> np.ndarray:
        return self.sample(self.draws, self.random_state)

    @property
    def guardrail_metrics(self) -> tuple[str, ...]:
        return self.metrics[1:]

    @cached_property
    def p_joint(self) -> float:
        """``P(mu_1 > rope_1 and mu_j >= -rope_j for every guardrail j)``.

        Exact for one metric; otherwise ``P(mu_1 > rope_1)`` (closed form) times the share
        of the seeded Monte Carlo draws (``draws``) with ``mu_1 > rope_1`` in which
        every guardrail holds, so that ``p_joint <= p_right`` always."""
        return float(self.p_right) * self._guardrails_given_better[0]

    @cached_property
    def _guardrails_given_better(self) -> tuple[float, int]:
        """``P(every guardrail held | primary better beyond its ROPE)``, estimated from the
        draws in which the primary metric is better, and their number."""
        if len(self.metrics) == 1:
            return 1.0, 0
        x = self._draws
        better = x[:, 0] > self.rope[0]
        if not better.any():
            return 0.0, 0
        return float(np.mean(self.joint_event(x[better]))), int(better.sum())

    @property
    def p_joint_se(self) -> float:
        """Monte Carlo standard error of :attr:`p_joint` (0 when it is exact)."""
        q, m = self._guardrails_given_better
        if m == 0:
            return 0.0
        return float(self.p_right) * math.sqrt(q * (1 - q) / m)

    def joint_event(self, draws: np.ndarray) -> np.ndarray:
        """Per draw, whether the promotion event holds."""
        ok = draws[:, 0] > self.rope[0]
        return ok & np.all(draws[:, 1:] >= -self.rope[1:], axis=1)

    def p_guardrail_broken(self, metric: str) -> float:
        """``P(mu_j < -rope_j)``: the guardrail is worse beyond its ROPE (closed form)."""
        if self._index(metric) == 0:
            raise ValueError(f"{metric!r} is the primary metric, not a guardrail")
        return float(self.marginal(metric).p_left)

    # ----------------------------------------------------------------------- decisions
    def decision(self, gamma: float = 0.95, on: str | None = None) -> Decision:
        """The guarded promotion rule (see ``docs/guardrails.md``): the primary metric's
        decision, gated (:func:`~bayescomp.core.rule.gate`) by the guardrails — a promotion
        stands only when ``p_joint >= gamma`` (better on the primary metric beyond its ROPE
        and no guardrail worse beyond its own), and a guardrail worse beyond its ROPE with
        probability ``>= gamma`` makes the candidate *worse*.  With one metric this is
        exactly the univariate rule.
        """
        gamma = check_gamma(gamma)
        one = len(self.metrics) == 1  # then p_joint is the primary metric's p_right
        d = replace(self.marginal().decision(gamma), p_joint=self.p_right if one else self.p_joint)
        if self.gains is not None:
            d = replace(d, utility=self.utility())
        if not one:
            broken = {m: self.p_guardrail_broken(m) for m in self.guardrail_metrics}
            worst = max(broken, key=broken.__getitem__)
            r = Absolute(self.rope[self.metrics.index(worst)]).label()
            d = gate(
                d,
                self.p_joint >= gamma,
                f"P(that and every guardrail held) = {format_probability(self.p_joint, gamma)} "
                f"< {gamma:g} (weakest guardrail {worst}: P(worse beyond its ROPE) = "
                f"{format_probability(broken[worst], gamma)})",
                broken=f"guardrail {worst} broken: P({self.candidate_name} worse on {worst} "
                f"beyond {r}) = {format_probability(broken[worst], gamma)} ≥ {gamma:g}"
                if broken[worst] >= gamma
                else "",
                guardrails="; ".join(
                    f"{m}: P(worse beyond {Absolute(g).label()}) = {broken[m]:.3f}"
                    for m, g in zip(self.metrics[1:], self.rope[1:], strict=True)
                ),
            )
        for guard in self.guards().values():  # the slice guardrail
            d = guard.gate(d)
        return d

    def utility(
        self, gains: Mapping[str, float] | None = None, switching_cost: float | None = None
    ) -> UtilityDecision:
        """Expected-utility decision from gains per unit of improvement and a switching cost.

        ``U = sum_j gains[j] * mu_j - switching_cost`` (metrics without a gain count 0);
        *switch* when ``E[U] > 0``.  Reported beside the probability rule, never instead.
        """
        gains = self.gains if gains is None else gains
        cost = check_number(  # a finite number: NaN and inf refused
            self.switching_cost if switching_cost is None else switching_cost, "switching_cost"
        )
        if gains is None:
            raise ValueError("pass gains={metric: value of one unit of improvement}")
        g = _gain_vector(self.metrics, gains)
        loc = float(g @ self.mean) - cost
        scale = math.sqrt(max(float(g @ self.shape @ g), 0.0))
        p_pos = float(loc > 0) if scale == 0 else float(stats.t.sf(0.0, self.df, loc, scale))
        sd = scale * math.sqrt(self.df / (self.df - 2)) if self.df > 2 else math.inf
        outcome = "switch" if loc > 0 else "stay"
        reason = (
            f"expected utility of switching {loc:+.4g} (gains "
            + ", ".join(f"{m} {v:g}/unit" for m, v in gains.items())
            + f", switching cost {cost:g}); P(utility > 0) = {p_pos:.3f}"
        )
        return UtilityDecision(outcome, loc, p_pos, sd, dict(gains), cost, reason)

    # ------------------------------------------------------------------ tables and plots

    def summary(self, confidence_level: float | None = None, gamma: float = 0.95) -> pd.DataFrame:
        """One row per metric: its marginal posterior, ROPE, region probabilities and role;
        ``attrs`` carries ``p_joint``, its Monte Carlo error and the decision."""
        import pandas as pd

        rows = []
        for j, m in enumerate(self.metrics):
            row = self.marginal(m).summary(confidence_level, gamma=gamma).iloc[0].to_dict()
            row.pop("decision")
            row["role"] = "primary" if j == 0 else "guardrail"
            row["higher_is_better"] = self.directions[j]
            rows.append(row)
        frame = pd.DataFrame(rows)
        d = self.decision(gamma)
        frame.attrs.update(
            p_joint=self.p_joint, p_joint_se=self.p_joint_se, decision=d.outcome, reason=d.reason
        )
        return frame

    def __repr__(self) -> str:
        return (
            f"MultiMetricResult({self.candidate_name} vs {self.baseline_name}: primary "
            f"{self.metric}, guardrails {list(self.guardrail_metrics)}, n={self.n}, "
            f"df={self.df}; p_right={self.p_right:.3f}, p_joint={self.p_joint:.3f})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Per metric its summary row, and the joint probability with its error."""
        joint = {"p_joint": self.p_joint, "p_joint_se": self.p_joint_se}
        return jsonable(
            self._headline("multivariate")
            | joint
            | {"metrics": self.summary().to_dict("records")}
            | self._slice_record(self.decision())
        )

    def plot(self, *, ax: Any = None) -> Any:
        """Posterior draws of the primary difference against each guardrail's, with the
        promotion region shaded (one panel per guardrail); returns the axes."""
        from bayescomp.report.guardrail_plots import plot_guardrails

        return plot_guardrails(self, ax=ax)

    def figures(self) -> dict[str, Figure]:
        """The guardrail panels, on a new figure."""
        return {"posterior": np.ravel(self.plot())[0].figure}


def _gain_vector(metrics: Sequence[str], gains: Mapping[str, float]) -> np.ndarray:
    unknown = [m for m in gains if m not in metrics]
    if unknown:
        raise ValueError(f"gains name metric(s) {unknown} not in this comparison {list(metrics)}")
    g = np.array([float(gains.get(m, 0.0)) for m in metrics])
    if not np.all(np.isfinite(g)):
        raise ValueError(f"gains must be finite numbers, got {dict(gains)}")
    return g


def multivariate_ttest(
    differences: Any,
    *,
    rho: float,
    rope: Any = 0.0,
    metrics: Sequence[str] | None = None,
    directions: Sequence[bool] | None = None,
    prior: str = "marginal",
    draws: int = 100_000,
    random_state: Any = 0,
    gains: Mapping[str, float] | None = None,
    switching_cost: float = 0.0,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
) -> MultiMetricResult:
    """Joint correlated-t posterior of the per-split difference vector of several metrics.

    Parameters
    ----------
    differences : array_like, shape (n_splits, n_metrics)
        Per split, ``candidate - baseline`` of each metric, *oriented* so that positive
        means the candidate is better (negate lower-is-better metrics first;
        :func:`bayescomp.compare` with ``metric=[...]`` does it for you).
    rho : float
        Test fraction of the design, in ``[0, 1)``.
    rope : float or array_like of shape (n_metrics,)
        Half-width of each metric's ROPE.
    metrics : sequence of str, optional
        Names; the first is the primary metric, the others are guardrails.
    directions : sequence of bool, optional
        Orientation of each metric (for labels; the differences are already oriented).
    prior : {"marginal", "jeffreys"}
        ``"marginal"``: ``df = n - 1``, each marginal equals the univariate correlated
        t-test.  ``"jeffreys"``: ``df = n - p``.
    draws, random_state
        Monte Carlo draws for the joint probability, and their seed.
    gains, switching_cost
        Optional cost-aware decision (:meth:`MultiMetricResult.utility`).

    Returns
    -------
    MultiMetricResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = np.column_stack([0.03 + 0.01 * rng.standard_normal(30),
    ...                      -0.015 + 0.02 * rng.standard_normal(30)])
    >>> res = multivariate_ttest(d, rho=0.1, rope=[0.005, 0.02], metrics=["auc", "neg_ll"])
    >>> res.df, round(res.p_right, 3), round(res.p_joint, 3)
    (29, 1.0, 0.921)
    >>> res.decision(0.95).outcome
    'inconclusive'
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    if d.ndim != 2:
        raise ValueError(f"differences must be a (splits, metrics) matrix, got shape {d.shape}")
    n, p = d.shape
    if not np.all(np.isfinite(d)):
        raise ValueError("differences contain NaN/inf; fix or drop those splits for both models")
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {sorted(PRIORS)}, got {prior!r}")
    df = n - p + PRIORS[prior](p)
    if n < 2 or df < 1:
        raise ValueError(
            f"{n} paired splits are too few for {p} metrics with prior={prior!r} "
            f"(degrees of freedom {df}); use more repetitions of the design"
        )
    r = float(check_rho(rho))
    ropes = check_rope(rope)
    if ropes.size not in (1, p):
        raise ValueError(f"rope must be one half-width or one per metric ({p}); got {ropes.size}")
    ropes = np.broadcast_to(ropes, (p,)).astype(float)
    names = tuple(metrics) if metrics is not None else tuple(f"metric_{j}" for j in range(p))
    dirs = tuple(bool(x) for x in directions) if directions is not None else (True,) * p
    if len(names) != p or len(dirs) != p:
        raise ValueError(f"{p} metric columns but {len(names)} names / {len(dirs)} directions")
    check_number(draws, "draws", integer=True, min_val=1000)
    centred = d - d.mean(axis=0)
    scatter = centred.T @ centred
    c = 1.0 / n + r / (1.0 - r)
    if gains is not None:
        _gain_vector(names, gains)
    return MultiMetricResult(
        mean=d.mean(axis=0),
        shape=c * scatter / df,
        df=int(df),
        rho=r,
        n=int(n),
        rope=ropes,
        metrics=names,
        directions=dirs,
        baseline_name=baseline_name,
        candidate_name=candidate_name,
        differences=d,
        prior=prior,
        draws=int(draws),
        random_state=random_state,
        gains=dict(gains) if gains is not None else None,
        switching_cost=check_number(switching_cost, "switching_cost"),
    )
